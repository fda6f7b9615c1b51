#include "sim/asic/stats_units.hpp"

#include <bit>

namespace normsim::asic {

WelfordLaneArray::WelfordLaneArray(sc_core::sc_module_name n, AccelContext& ctx, ChanMergeTree& tree, RsqrtUnit& rsqrt)
    : sc_module(n), ctx_(ctx), tree_(tree), rsqrt_(rsqrt) {
  stalls_.register_in(stats_);
  stats_.add("stall_cycles.merge_unit", "cycles", "a finished row waited in the lanes for the shared merge units", &merge_wait_);
  stats_.add("busy_cycles", "cycles", "cycles the lanes worked on elements", &busy_cycles_);
  SC_METHOD(step);
}

void WelfordLaneArray::step() {
  for (;;) {
    switch (phase_) {
      case Phase::take:
        if (!from_input.nb_read(tok_)) {
          next_trigger(from_input.data_written_event());
          return;
        }
        if (!take_chunk()) {
          phase_ = Phase::sram_write;
          return;
        }
        break;
      case Phase::sram_write:  // woken at start_
        write_row_buffer();
        break;
      case Phase::hand_over:  // woken by room in the FIFO to the normalise unit
        break;
    }
    if (tok_.chunk + 1 == tok_.chunks) {
      RowSlot* slot = tok_.slot;
      if (phase_ != Phase::hand_over) {
        if (ctx_.numerics) ctx_.datapath->lanes(slot->x, slot->state, ctx_.numerics->counters);
        slot->t_ready = free_at_ + ctx_.cfg.latency.welford_cycles;
        // Shared merge units busy: the lanes keep the row's states (and take
        // no new elements) until the units take them.
        const double wait = tree_.transport(*slot);
        merge_wait_ += wait;
        free_at_ += wait;
        last_row_cycle_ = free_at_;
        rsqrt_.transport(*slot);
        if (ctx_.rtl) ctx_.rtl->post_stats(slot->row, slot->x, slot->state);
        // Fused with a re-read: the row's z is in DRAM when its last write is.
        if (ctx_.fusion == Fusion::fused && ctx_.stored_elems < ctx_.hidden) {
          ctx_.sum_done.push_back(row_sum_done_);
          ctx_.sum_issued->notify(sc_core::SC_ZERO_TIME);
        }
        row_sum_done_ = 0;
      }
      if (!to_normalize.nb_write(slot)) {
        phase_ = Phase::hand_over;
        next_trigger(to_normalize.data_read_event());
        return;
      }
    }
    phase_ = Phase::take;
  }
}

bool WelfordLaneArray::take_chunk() {
  const double ready = free_at_;  // when the lanes could take this chunk
  const int64_t elems = ctx_.chunk_end(tok_.chunk) - ctx_.chunk_begin(tok_.chunk);
  const double work = ctx_.lane_cycles(elems);
  // Lanes consume the stream as it arrives: they start at the first byte and
  // cannot finish before the last one.
  start_ = std::max(ready, tok_.dram.first_byte);
  const double end = std::max(start_ + work, tok_.dram.done);
  const double stall = end - ready - work;
  if (stall > 0) {
    // Issued after the lanes were ready: no free row buffer held the input path back.
    double buffer = std::clamp(tok_.dram.issue - ready, 0.0, stall);
    // Held back until a separate adder's z is in DRAM (the unfused baseline).
    const double pass = std::clamp(ctx_.adder_done_cycle - ready, 0.0, buffer);
    stalls_.adder_pass += pass;
    buffer -= pass;
    double lat = 0, bw = 0;
    BandwidthServer::attribute(tok_.dram, std::max(ready, tok_.dram.issue), ctx_.dram->latency(), lat, bw);
    lat = std::min(lat, stall - buffer);
    stalls_.row_buffer += buffer;
    stalls_.dram_latency += lat;
    stalls_.dram_bandwidth += stall - buffer - lat;
  }
  busy_cycles_ += work;
  free_at_ = end;
  last_row_cycle_ = end;
  // The stream also fills the row buffer with the part the replay path keeps;
  // the SRAM port takes requests in time order, so its write waits for start_.
  // A fused unit writes z to DRAM as its adder produces it (kept, or for the re-read).
  if (stored_in_chunk() <= 0 && ctx_.sum_elems(tok_.chunk) <= 0) return true;
  if (trigger_at(start_)) return false;
  write_row_buffer();
  return true;
}

int64_t WelfordLaneArray::stored_in_chunk() const {
  const int64_t stored = ctx_.stored_elems;
  return std::min(ctx_.chunk_end(tok_.chunk), stored) - ctx_.chunk_begin(tok_.chunk);
}

void WelfordLaneArray::write_row_buffer() {
  if (const int64_t stored = stored_in_chunk(); stored > 0)
    tok_.slot->sram_write[static_cast<size_t>(tok_.chunk)] = ctx_.sram->write(start_, static_cast<double>(stored * ctx_.in_bytes));
  if (const int64_t sum = ctx_.sum_elems(tok_.chunk); sum > 0)
    row_sum_done_ = std::max(row_sum_done_, ctx_.dram->write(start_, static_cast<double>(sum * ctx_.in_bytes), Traffic::sum).done);
}

ChanMergeTree::ChanMergeTree(sc_core::sc_module_name n, AccelContext& ctx) : sc_module(n), ctx_(ctx) {
  stats_.add("busy_cycles", "cycles", "cycles the merge units held a row (a dedicated tree: one a row, pipelined)",
             &busy_cycles_);
}

double ChanMergeTree::transport(RowSlot& slot) {
  if (ctx_.numerics) ctx_.datapath->merge(slot.state, ctx_.numerics->counters);
  const int level_cycles = ctx_.cfg.latency.merge_level_cycles;
  const double start = std::max(slot.t_ready, free_at_);
  const double wait = start - slot.t_ready;
  // Datapaths > 1 run rows side by side, each on its own units: the units
  // this row contends for are its datapath's, taken one row in `datapaths`.
  free_at_ = start + ctx_.merge.occupancy_cycles(level_cycles) / static_cast<double>(ctx_.cfg.datapaths);
  busy_cycles_ += ctx_.merge.occupancy_cycles(level_cycles);
  slot.t_ready = start + ctx_.merge.latency_cycles(level_cycles);
  return wait;
}

RsqrtUnit::RsqrtUnit(sc_core::sc_module_name n, AccelContext& ctx) : sc_module(n), ctx_(ctx) {}

void RsqrtUnit::transport(RowSlot& slot) {
  if (ctx_.numerics) ctx_.datapath->rsqrt(slot.state, ctx_.numerics->counters);
  slot.t_ready += ctx_.cfg.latency.rsqrt_cycles;
  if (first_stats_cycle_ < 0) first_stats_cycle_ = slot.t_ready;
}

}  // namespace normsim::asic
