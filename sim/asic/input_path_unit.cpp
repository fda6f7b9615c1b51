#include "sim/asic/input_path_unit.hpp"

#include "sim/core/row_inputs.hpp"

namespace normsim::asic {

InputPathUnit::InputPathUnit(sc_core::sc_module_name n, AccelContext& ctx)
    : sc_module(n),
      ctx_(ctx),
      window_bytes_(static_cast<double>(ctx.cfg.dram.max_outstanding) * ctx.cfg.dram.burst_bytes) {
  SC_METHOD(step);
}

void InputPathUnit::retire() {
  in_flight_bytes_ -= in_flight_.front().second;
  in_flight_.pop_front();
}

void InputPathUnit::step() {
  if (!params_issued_) {
    // gamma/beta first: read once from DRAM into their on-chip buffer.
    ctx_.params_done = ctx_.dram->read(now_cycles(), static_cast<double>(ctx_.param_bytes), Traffic::params).done;
    params_issued_ = true;
  }
  const int64_t stored = ctx_.stored_elems;
  for (;;) {
    if (pending_) {
      if (!to_lanes.nb_write(*pending_)) {
        next_trigger(to_lanes.data_read_event());
        return;
      }
      pending_.reset();
      if (++chunk_ == ctx_.chunks) {
        slot_ = nullptr;
        ++row_;
      }
    }
    if (row_ == ctx_.rows) return;  // the whole input has been issued
    if (!slot_) {
      if (!free_slots.nb_read(slot_)) {  // every row buffer is busy
        next_trigger(free_slots.data_written_event());
        return;
      }
      slot_->row = row_;
      if (ctx_.numerics) core::generate_input_row(*ctx_.workload, row_, slot_->x, &ctx_.numerics->input_saturations);
      ctx_.sram->hold(stored * ctx_.in_bytes);
      slot_->sram_write.assign(static_cast<size_t>(ctx_.chunks), Grant{});
      chunk_ = 0;
    }
    const int64_t b = ctx_.chunk_begin(chunk_), e = ctx_.chunk_end(chunk_);
    const double bytes = static_cast<double>((e - b) * ctx_.in_bytes);
    // At most max_outstanding bursts of this stream in flight (Little's law):
    // wait for the oldest to land before asking for more.
    if (window_wait_) {
      window_wait_ = false;
      retire();
    } else {
      while (!in_flight_.empty() && in_flight_.front().first <= now_cycles()) retire();
    }
    while (!in_flight_.empty() && in_flight_bytes_ + bytes > window_bytes_) {
      if (trigger_at(in_flight_.front().first)) {
        window_wait_ = true;
        return;
      }
      retire();
    }
    const Grant g = ctx_.dram->read(now_cycles(), bytes, Traffic::input);
    in_flight_.emplace_back(g.done, bytes);
    in_flight_bytes_ += bytes;
    pending_ = ChunkToken{slot_, chunk_, ctx_.chunks, g};
  }
}

RereadStream::RereadStream(sc_core::sc_module_name n, AccelContext& ctx) : sc_module(n), ctx_(ctx) {
  SC_METHOD(step);
}

void RereadStream::next_chunk() {
  if (++chunk_ == ctx_.chunks) {
    chunk_ = 0;
    ++row_;
  }
}

void RereadStream::step() {
  const int64_t stored = ctx_.stored_elems;
  if (stored >= ctx_.hidden) return;  // SRAM replay: nothing to re-read
  for (;;) {
    if (pending_) {
      // A full FIFO holds the stream; a slot frees when the normalise unit takes one.
      if (!to_normalize.nb_write(*pending_)) {
        next_trigger(to_normalize.data_read_event());
        return;
      }
      pending_.reset();
      next_chunk();
    }
    if (row_ == ctx_.rows) return;
    const int64_t b = ctx_.chunk_begin(chunk_), e = ctx_.chunk_end(chunk_);
    const int64_t db = (e - b) - std::max<int64_t>(0, std::min(e, stored) - b);
    if (db <= 0) {  // kept in SRAM: nothing to re-read
      next_chunk();
      continue;
    }
    pending_ = ctx_.dram->read(now_cycles(), static_cast<double>(db * ctx_.in_bytes), Traffic::input_reread);
  }
}

}  // namespace normsim::asic
