// Variance + eps -> rstd: leading-zero normalise, table seed, Newton steps;
// a pipeline of fixed latency, called by the lane array after the merge
// tree through its `rsqrt` port (a blocking transport, row_transport.hpp).
#pragma once

#include <systemc.h>

#include "sim/asic/row_arithmetic.hpp"
#include "sim/asic/row_slot.hpp"
#include "sim/asic/row_transport.hpp"

namespace normsim::asic {

struct RsqrtUnit : sc_core::sc_module, RowTransportIf {
  /// `latency_cycles`: latency.rsqrt_cycles.
  RsqrtUnit(sc_core::sc_module_name n, int latency_cycles, RowArithmetic* arith);
  /// Never waits (a pipeline): returns 0.
  double transport(RowSlot& slot) override;
  double first_stats_cycle() const { return first_stats_cycle_; }  ///< when the first row's statistics were out (-1: none yet)

 private:
  const int latency_cycles_;
  RowArithmetic* arith_;
  double first_stats_cycle_ = -1;
};

}  // namespace normsim::asic
