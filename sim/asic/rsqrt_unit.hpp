// Variance + eps -> rstd: leading-zero normalise, table seed, Newton steps;
// a pipeline of fixed latency, called by the lane array after the merge
// tree (a blocking transport that annotates the row's time).
#pragma once

#include <systemc.h>

#include "sim/asic/row_arithmetic.hpp"
#include "sim/asic/row_slot.hpp"

namespace normsim::asic {

SC_MODULE(RsqrtUnit) {
  /// `latency_cycles`: latency.rsqrt_cycles.
  RsqrtUnit(sc_core::sc_module_name n, int latency_cycles, RowArithmetic* arith);
  void transport(RowSlot& slot);
  double first_stats_cycle() const { return first_stats_cycle_; }  ///< when the first row's statistics were out (-1: none yet)

 private:
  const int latency_cycles_;
  RowArithmetic* arith_;
  double first_stats_cycle_ = -1;
};

}  // namespace normsim::asic
