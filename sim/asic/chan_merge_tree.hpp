// log2(L) levels of Chan merges (adders for sums) on the arch's merge units
// (core::MergeSchedule): a dedicated tree is a pure, pipelined latency; a
// shared one takes one row at a time, so a row can wait for it. The lane
// array hands it a finished row through its `reduce` port, a blocking
// transport (row_transport.hpp) that costs no thread switch. The backward's
// row-sum tree (S1 and S2 over the lanes, adders only) is the same tree on
// the same units at its own level latency: an instance of its own.
#pragma once

#include <systemc.h>

#include "sim/asic/row_arithmetic.hpp"
#include "sim/asic/row_slot.hpp"
#include "sim/asic/row_transport.hpp"
#include "sim/core/merge_schedule.hpp"
#include "sim/core/stats.hpp"
#include "sim/asic/steady_state.hpp"

namespace normsim::asic {

struct ChanMergeTree : sc_core::sc_module, RowTransportIf, HasPeriodState {
  struct Config {
    core::MergeSchedule merge;  ///< the tree on the arch's merge units
    int level_cycles = 1;       ///< one level's latency: asic.chan_merge_tree.level_cycles, or asic.row_sum_tree.level_cycles
    int datapaths = 1;          ///< rows side by side, each on its own units
  };
  ChanMergeTree(sc_core::sc_module_name n, const Config& cfg, RowArithmetic* arith);
  /// Merges the row's lane states; its time advances by the wait for the
  /// units and the tree's latency. Returns the wait: the cycles the lanes
  /// hold the row's states before the tree takes them.
  double transport(RowSlot& slot) override;
  const core::StatGroup& stats() const { return stats_; }
  void period_state(PeriodState& s) const override { s.time(free_at_); }

 private:
  const Config cfg_;
  RowArithmetic* arith_;
  double free_at_ = 0;  ///< cycle the units can take the next row
  double busy_cycles_ = 0;
  core::StatGroup stats_{basename()};
};

}  // namespace normsim::asic
