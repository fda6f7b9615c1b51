#include "sim/asic/welford_lane_array.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/asic/sim_time.hpp"

namespace normsim::asic {

WelfordLaneArray::WelfordLaneArray(sc_core::sc_module_name n, const RunGeometry& g, int latency_cycles,
                                   RowArithmetic* arith)
    : sc_module(n),
      g_(g),
      latency_cycles_(latency_cycles),
      arith_(arith) {
  stalls_.register_in(stats_);
  stats_.add("stall_cycles.merge_unit", "cycles", "a finished row waited in the lanes for the shared merge units", &merge_wait_);
  stats_.add("busy_cycles", "cycles", "cycles the lanes worked on elements", &busy_cycles_);
  SC_METHOD(step);
}

void WelfordLaneArray::period_state(PeriodState& s) const {
  s.time(free_at_);
  s.value(static_cast<double>(phase_));
  s.token(tok_);
  s.time(start_);
  s.time(last_row_cycle_);
  s.time(row_sum_done_);
}

void WelfordLaneArray::step() {
  if (await_slot()) return;  // clocked: act in this unit's slot of the cycle
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
        if (arith_) arith_->datapath->lanes(slot->x, slot->state, arith_->numerics->counters);
        if (param_grads.size() > 0) param_grads->row_done(slot->row, free_at_);
        slot->t_ready = free_at_ + latency_cycles_;
        // Shared merge units busy: the lanes keep the row's states (and take
        // no new elements) until the units take them.
        const double wait = reduce->transport(*slot);
        merge_wait_ += wait;
        free_at_ += wait;
        last_row_cycle_ = free_at_;
        finish->transport(*slot);
        if (first_stats_cycle_ < 0) first_stats_cycle_ = slot->t_ready;
        if (arith_ && arith_->rtl) arith_->rtl->post_stats(slot->row, slot->x, slot->state);
        // Fused with a re-read: the row's z is in DRAM when its last write is.
        // The re-read stream is at most rows_in_flight rows behind the lanes
        // (its row's buffer must be replayed before the lanes can fill
        // another), so a FIFO of that depth never holds the lanes back.
        if (g_.fusion == Fusion::fused && g_.rereads() && !sum_in_dram.nb_write(row_sum_done_))
          throw std::logic_error("welford_lanes: the z-in-DRAM FIFO is full; it is sized to rows in flight");
        row_sum_done_ = 0;
      }
      if (!to_output.nb_write(slot)) {
        phase_ = Phase::hand_over;
        next_trigger(to_output.data_read_event());
        return;
      }
    }
    phase_ = Phase::take;
  }
}

bool WelfordLaneArray::take_chunk() {
  const double ready = free_at_;  // when the lanes could take this chunk
  const double work = g_.lane_cycles(g_.chunk_size(tok_.chunk));
  // Lanes consume the stream as it arrives: they start at the first byte and
  // cannot finish before the last one.
  start_ = std::max(ready, tok_.dram.first_byte);
  const double end = std::max(start_ + work, tok_.dram.done);
  const double stall = end - ready - work;
  if (stall > 0) {
    // Issued after the lanes were ready: no free row buffer held the input path back.
    double buffer = std::clamp(tok_.dram.issue - ready, 0.0, stall);
    // Held back until a separate adder's z is in DRAM (the unfused baseline).
    const double pass = std::clamp(adder_done->cycle() - ready, 0.0, buffer);
    stalls_.adder_pass += pass;
    buffer -= pass;
    double lat = 0, bw = 0;
    BandwidthServer::attribute(tok_.dram, std::max(ready, tok_.dram.issue), dram->latency(), lat, bw);
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
  // A backward's lanes also hand the columns to the gradient accumulator.
  if (g_.stored_in_chunk(tok_.chunk) <= 0 && g_.sum_elems(tok_.chunk) <= 0 && param_grads.size() == 0) return true;
  if (trigger_at(start_)) return false;
  write_row_buffer();
  return true;
}

void WelfordLaneArray::write_row_buffer() {
  if (const int64_t stored = g_.stored_in_chunk(tok_.chunk); stored > 0)
    tok_.slot->sram_write[static_cast<size_t>(tok_.chunk)] = sram->write(request_cycle(start_), static_cast<double>(stored * g_.row_elem_bytes()));
  if (const int64_t sum = g_.sum_elems(tok_.chunk); sum > 0)
    row_sum_done_ = std::max(row_sum_done_, dram->write(request_cycle(start_), static_cast<double>(sum * g_.in_bytes), Traffic::sum).done);
  // The accumulator's read-modify-write: the lanes cannot retire the
  // transaction before its words are written back.
  if (param_grads.size() == 0) return;
  if (const double done = param_grads->accumulate(request_cycle(start_), g_.chunk_size(tok_.chunk)); done > free_at_) {
    stalls_.sram_port += done - free_at_;
    free_at_ = done;
    last_row_cycle_ = done;
  }
}

}  // namespace normsim::asic
