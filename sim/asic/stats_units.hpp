// The statistics side of the datapath: L Welford (or partial-sum) lanes, the
// Chan merge tree, and the RSQRT unit. Each knows its time; the arithmetic is
// sim/core's stage functions, called once per row. The merge tree and the
// RSQRT unit are fixed-latency pipelines: the lane array hands a finished row
// to them as a blocking transport call that annotates the row's time (TLM
// loosely-timed style), which costs no thread switch.
#pragma once

#include "sim/asic/accel_context.hpp"

namespace normsim::asic {

/// log2(L) levels of Chan merges (adders for sums) on the arch's merge units
/// (core::MergeSchedule): a dedicated tree is a pure, pipelined latency; a
/// shared one takes one row at a time, so a row can wait for it.
SC_MODULE(ChanMergeTree) {
  ChanMergeTree(sc_core::sc_module_name n, AccelContext& ctx);
  /// Merges the row's lane states; its time advances by the wait for the
  /// units and the tree's latency. Returns the wait: the cycles the lanes
  /// hold the row's states before the tree takes them.
  double transport(RowSlot& slot);
  const core::StatGroup& stats() const { return stats_; }

 private:
  AccelContext& ctx_;
  double free_at_ = 0;  ///< cycle the units can take the next row
  double busy_cycles_ = 0;
  core::StatGroup stats_{"chan_merge_tree"};
};

/// Variance + eps -> rstd: leading-zero normalise, table seed, Newton steps; pipelined.
SC_MODULE(RsqrtUnit) {
  RsqrtUnit(sc_core::sc_module_name n, AccelContext& ctx);
  void transport(RowSlot& slot);
  double first_stats_cycle() const { return first_stats_cycle_; }  ///< when the first row's statistics were out (-1: none yet)

 private:
  AccelContext& ctx_;
  double first_stats_cycle_ = -1;
};

/// L lanes, one element per lane per cycle; element i to lane i mod L.
SC_MODULE(WelfordLaneArray) {
  SC_HAS_PROCESS(WelfordLaneArray);
  sc_core::sc_fifo_in<ChunkToken> from_input;
  sc_core::sc_fifo_out<RowSlot*> to_normalize;  ///< rows with their statistics
  WelfordLaneArray(sc_core::sc_module_name n, AccelContext& ctx, ChanMergeTree& tree, RsqrtUnit& rsqrt);
  const core::StatGroup& stats() const { return stats_; }
  double last_row_cycle() const { return last_row_cycle_; }  ///< when the lanes finished the last row

 private:
  void step();
  /// The lanes take `tok_`: counters and times; false if they must first
  /// wait for the cycle its writes (the row buffer's, a fused unit's z) can be issued.
  bool take_chunk();
  int64_t stored_in_chunk() const;  ///< elements of tok_ the replay path keeps
  /// The kept part into the row buffer; a fused unit's sum z into DRAM.
  void write_row_buffer();
  AccelContext& ctx_;
  ChanMergeTree& tree_;
  RsqrtUnit& rsqrt_;
  double free_at_ = 0;  ///< cycle the lanes can take the next element
  enum class Phase { take, sram_write, hand_over } phase_ = Phase::take;
  ChunkToken tok_;      ///< the transaction in the lanes
  double start_ = 0;    ///< cycle the lanes start on it
  StallCounters stalls_;
  double merge_wait_ = 0;  ///< cycles the lanes held a finished row for shared merge units
  double busy_cycles_ = 0, last_row_cycle_ = 0;
  double row_sum_done_ = 0;  ///< fused: when this row's z writes are in DRAM
  core::StatGroup stats_{"welford_lanes"};
};

}  // namespace normsim::asic
