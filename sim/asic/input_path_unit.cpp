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
  // The unfused baseline: the unit starts once the separate adder's z is in DRAM.
  if (ctx_.fusion == Fusion::separate_adder && !params_issued_) {
    if (ctx_.adder_done_cycle < 0) {
      next_trigger(*ctx_.adder_issued);
      return;
    }
    if (trigger_at(ctx_.adder_done_cycle)) return;
  }
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
      if (ctx_.numerics)
        core::datapath_input_row(*ctx_.workload, ctx_.datapath->config().residual_add, row_, slot_->x,
                                 &ctx_.numerics->input_saturations, &ctx_.numerics->residual_add);
      ctx_.sram->hold(stored * ctx_.in_bytes);
      slot_->sram_write.assign(static_cast<size_t>(ctx_.chunks), Grant{});
      chunk_ = 0;
    }
    const int64_t b = ctx_.chunk_begin(chunk_), e = ctx_.chunk_end(chunk_);
    // Fused: x and r, the two operands of the adder in front of the lanes.
    const double x_bytes = static_cast<double>((e - b) * ctx_.in_bytes);
    const double r_bytes = ctx_.fusion == Fusion::fused ? static_cast<double>((e - b) * ctx_.residual_bytes) : 0.0;
    const double bytes = x_bytes + r_bytes;
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
    Grant g = ctx_.dram->read(now_cycles(), x_bytes, Traffic::input);
    if (r_bytes > 0) g.done = ctx_.dram->read(now_cycles(), r_bytes, Traffic::residual).done;  // both in before the adder's last sum
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
    // Fused: what is re-read is z, which the lanes' adder writes; not before the row's z is in DRAM.
    if (ctx_.fusion == Fusion::fused) {
      while (row_ > ctx_.sum_first_row && !ctx_.sum_done.empty()) {
        ctx_.sum_done.pop_front();
        ++ctx_.sum_first_row;
      }
      if (ctx_.sum_done.empty() || ctx_.sum_first_row != row_) {
        next_trigger(*ctx_.sum_issued);
        return;
      }
      if (trigger_at(ctx_.sum_done.front())) return;
    }
    pending_ = ctx_.dram->read(now_cycles(), static_cast<double>(db * ctx_.in_bytes), Traffic::input_reread);
  }
}

}  // namespace normsim::asic
