// Variance + eps -> rstd: leading-zero normalise, table seed, Newton steps;
// a pipeline of fixed latency, called by the lane array after the merge
// tree through its `finish` port (a blocking transport, row_transport.hpp).
#pragma once

#include <systemc.h>

#include "sim/asic/row_arithmetic.hpp"
#include "sim/asic/row_slot.hpp"
#include "sim/asic/row_transport.hpp"

namespace normsim::asic {

struct RsqrtUnit : sc_core::sc_module, RowTransportIf {
  /// `latency_cycles`: asic.rsqrt.latency_cycles.
  RsqrtUnit(sc_core::sc_module_name n, int latency_cycles, RowArithmetic* arith);
  /// Never waits (a pipeline): returns 0.
  double transport(RowSlot& slot) override;

 private:
  const int latency_cycles_;
  RowArithmetic* arith_;
};

}  // namespace normsim::asic
