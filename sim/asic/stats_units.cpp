#include "sim/asic/stats_units.hpp"

#include <bit>

namespace normsim::asic {

WelfordLaneArray::WelfordLaneArray(sc_core::sc_module_name n, AccelContext& ctx, ChanMergeTree& tree, RsqrtUnit& rsqrt)
    : sc_module(n), ctx_(ctx), tree_(tree), rsqrt_(rsqrt) {
  SC_THREAD(run);
}

void WelfordLaneArray::run() {
  for (;;) {
    const ChunkToken tok = from_input.read();
    const double ready = free_at_;  // when the lanes could take this chunk
    const int64_t elems = ctx_.chunk_end(tok.chunk) - ctx_.chunk_begin(tok.chunk);
    const double work = ctx_.lane_cycles(elems);
    // Lanes consume the stream as it arrives: they start at the first byte and
    // cannot finish before the last one.
    const double start = std::max(ready, tok.dram.first_byte);
    const double end = std::max(start + work, tok.dram.done);
    const double stall = end - ready - work;
    if (stall > 0) {
      // Issued after the lanes were ready: no free row buffer held the input path back.
      const double buffer = std::clamp(tok.dram.issue - ready, 0.0, stall);
      double lat = 0, bw = 0;
      BandwidthServer::attribute(tok.dram, std::max(ready, tok.dram.issue), ctx_.dram->latency(), lat, bw);
      lat = std::min(lat, stall - buffer);
      ctx_.lanes_stalls.row_buffer += buffer;
      ctx_.lanes_stalls.dram_latency += lat;
      ctx_.lanes_stalls.dram_bandwidth += stall - buffer - lat;
    }
    ctx_.lanes_busy += work;
    free_at_ = end;
    ctx_.last_lanes_cycle = end;
    // The stream also fills the row buffer with the part the replay path keeps.
    const int64_t stored = ctx_.path->stored_elems(ctx_.hidden);
    const int64_t sb = std::min(ctx_.chunk_end(tok.chunk), stored) - ctx_.chunk_begin(tok.chunk);
    if (sb > 0) {
      wait_until(start);  // shared ports take requests in time order
      tok.slot->sram_write[tok.chunk] = ctx_.sram->write(start, static_cast<double>(sb * ctx_.in_bytes));
    }
    if (tok.chunk + 1 == tok.chunks) {
      RowSlot* slot = tok.slot;
      if (ctx_.numerics) ctx_.datapath->lanes(slot->x, slot->state, ctx_.numerics->counters);
      slot->t_ready = end + ctx_.cfg.latency.welford_cycles;
      tree_.transport(*slot);
      rsqrt_.transport(*slot);
      if (ctx_.rtl) ctx_.rtl->check_stats(slot->row, slot->x, slot->state);
      to_normalize.write(slot);
    }
  }
}

ChanMergeTree::ChanMergeTree(sc_core::sc_module_name n, AccelContext& ctx) : sc_module(n), ctx_(ctx) {}

int ChanMergeTree::levels() const { return std::countr_zero(static_cast<unsigned>(ctx_.datapath_lanes)); }

void ChanMergeTree::transport(RowSlot& slot) {
  if (ctx_.numerics) ctx_.datapath->merge(slot.state, ctx_.numerics->counters);
  slot.t_ready += levels() * ctx_.cfg.latency.merge_level_cycles;
}

RsqrtUnit::RsqrtUnit(sc_core::sc_module_name n, AccelContext& ctx) : sc_module(n), ctx_(ctx) {}

void RsqrtUnit::transport(RowSlot& slot) {
  if (ctx_.numerics) ctx_.datapath->rsqrt(slot.state, ctx_.numerics->counters);
  slot.t_ready += ctx_.cfg.latency.rsqrt_cycles;
  if (ctx_.first_stats_cycle < 0) ctx_.first_stats_cycle = slot.t_ready;
}

}  // namespace normsim::asic
