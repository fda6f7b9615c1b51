#include "sim/asic/chan_merge_tree.hpp"

#include <algorithm>

namespace normsim::asic {

ChanMergeTree::ChanMergeTree(sc_core::sc_module_name n, const Config& cfg, RowArithmetic* arith)
    : sc_module(n), cfg_(cfg), arith_(arith) {
  stats_.add("busy_cycles", "cycles", "cycles the merge units held a row (a dedicated tree: one a row, pipelined)",
             &busy_cycles_);
}

double ChanMergeTree::transport(RowSlot& slot) {
  if (arith_) arith_->datapath->merge(slot.state, arith_->numerics->counters);
  const double start = std::max(slot.t_ready, free_at_);
  const double wait = start - slot.t_ready;
  // Datapaths > 1 run rows side by side, each on its own units: the units
  // this row contends for are its datapath's, taken one row in `datapaths`.
  free_at_ = start + cfg_.merge.occupancy_cycles(cfg_.level_cycles) / static_cast<double>(cfg_.datapaths);
  busy_cycles_ += cfg_.merge.occupancy_cycles(cfg_.level_cycles);
  slot.t_ready = start + cfg_.merge.latency_cycles(cfg_.level_cycles);
  return wait;
}

}  // namespace normsim::asic
