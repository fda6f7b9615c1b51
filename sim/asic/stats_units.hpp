// The statistics side of the datapath: L Welford (or partial-sum) lanes, the
// Chan merge tree, and the RSQRT unit. Each knows its time; the arithmetic is
// sim/core's stage functions, called once per row.
#pragma once

#include "sim/asic/accel_context.hpp"

namespace normsim::asic {

/// L lanes, one element per lane per cycle; element i to lane i mod L.
SC_MODULE(WelfordLaneArray) {
  SC_HAS_PROCESS(WelfordLaneArray);
  sc_core::sc_fifo_in<ChunkToken> from_input;
  sc_core::sc_fifo_out<RowSlot*> to_merge;
  WelfordLaneArray(sc_core::sc_module_name n, AccelContext& ctx);

 private:
  void run();
  AccelContext& ctx_;
  double free_at_ = 0;  ///< cycle the lanes can take the next element
};

/// log2(L) levels of Chan merges (adders for sums), pipelined: a pure latency.
SC_MODULE(ChanMergeTree) {
  SC_HAS_PROCESS(ChanMergeTree);
  sc_core::sc_fifo_in<RowSlot*> from_lanes;
  sc_core::sc_fifo_out<RowSlot*> to_rsqrt;
  ChanMergeTree(sc_core::sc_module_name n, AccelContext& ctx);
  int levels() const;

 private:
  void run();
  AccelContext& ctx_;
};

/// Variance + eps -> rstd: leading-zero normalise, table seed, Newton steps; pipelined.
SC_MODULE(RsqrtUnit) {
  SC_HAS_PROCESS(RsqrtUnit);
  sc_core::sc_fifo_in<RowSlot*> from_merge;
  sc_core::sc_fifo_out<RowSlot*> to_normalize;
  RsqrtUnit(sc_core::sc_module_name n, AccelContext& ctx);

 private:
  void run();
  AccelContext& ctx_;
};

}  // namespace normsim::asic
