#include "sim/asic/rsqrt_unit.hpp"

namespace normsim::asic {

RsqrtUnit::RsqrtUnit(sc_core::sc_module_name n, int latency_cycles, RowArithmetic* arith)
    : sc_module(n), latency_cycles_(latency_cycles), arith_(arith) {}

double RsqrtUnit::transport(RowSlot& slot) {
  if (arith_) arith_->datapath->rsqrt(slot.state, arith_->numerics->counters);
  slot.t_ready += latency_cycles_;
  return 0;
}

}  // namespace normsim::asic
