#include "sim/asic/input_path_unit.hpp"

#include "sim/run/functional_run.hpp"

namespace normsim::asic {

InputPathUnit::InputPathUnit(sc_core::sc_module_name n, AccelContext& ctx)
    : sc_module(n),
      ctx_(ctx),
      window_bytes_(static_cast<double>(ctx.cfg.dram.max_outstanding) * ctx.cfg.dram.burst_bytes) {
  SC_THREAD(run);
}

void InputPathUnit::retire() {
  in_flight_bytes_ -= in_flight_.front().second;
  in_flight_.pop_front();
}

void InputPathUnit::run() {
  const int64_t stored = ctx_.path->stored_elems(ctx_.hidden);
  // gamma/beta first: read once from DRAM into their on-chip buffer.
  ctx_.params_done = ctx_.dram->read(now_cycles(), static_cast<double>(ctx_.param_bytes), Traffic::params).done;
  for (int64_t r = 0; r < ctx_.rows; ++r) {
    RowSlot* slot = free_slots.read();  // blocks while every row buffer is busy
    slot->row = r;
    if (ctx_.numerics) run::generate_input_row(*ctx_.workload, r, slot->x, &ctx_.numerics->input_saturations);
    ctx_.sram->hold(stored * ctx_.in_bytes);
    slot->sram_write.assign(static_cast<size_t>(ctx_.chunks), Grant{});
    for (int k = 0; k < ctx_.chunks; ++k) {
      const int64_t b = ctx_.chunk_begin(k), e = ctx_.chunk_end(k);
      const double bytes = static_cast<double>((e - b) * ctx_.in_bytes);
      // At most max_outstanding bursts of this stream in flight (Little's law):
      // wait for the oldest to land before asking for more.
      while (!in_flight_.empty() && in_flight_.front().first <= now_cycles()) retire();
      while (!in_flight_.empty() && in_flight_bytes_ + bytes > window_bytes_) {
        wait_until(in_flight_.front().first);
        retire();
      }
      const Grant g = ctx_.dram->read(now_cycles(), bytes, Traffic::input);
      in_flight_.emplace_back(g.done, bytes);
      in_flight_bytes_ += bytes;
      to_lanes.write(ChunkToken{slot, k, ctx_.chunks, g});
    }
  }
}

RereadStream::RereadStream(sc_core::sc_module_name n, AccelContext& ctx) : sc_module(n), ctx_(ctx) {
  SC_THREAD(run);
}

int RereadStream::fifo_transactions(const AccelContext& ctx) {
  const double fifo_bytes = static_cast<double>(ctx.cfg.dram.max_outstanding) * ctx.cfg.dram.burst_bytes;
  const double chunk_bytes = static_cast<double>(ctx.chunk_elems * ctx.in_bytes);
  return std::max(1, static_cast<int>(fifo_bytes / chunk_bytes));
}

void RereadStream::run() {
  const int64_t stored = ctx_.path->stored_elems(ctx_.hidden);
  if (stored >= ctx_.hidden) return;  // SRAM replay: nothing to re-read
  for (int64_t r = 0; r < ctx_.rows; ++r)
    for (int k = 0; k < ctx_.chunks; ++k) {
      const int64_t b = ctx_.chunk_begin(k), e = ctx_.chunk_end(k);
      const int64_t db = (e - b) - std::max<int64_t>(0, std::min(e, stored) - b);
      if (db <= 0) continue;
      // Blocks while the FIFO is full; a slot frees when the normalise unit takes one.
      to_normalize.write(ctx_.dram->read(now_cycles(), static_cast<double>(db * ctx_.in_bytes), Traffic::input_reread));
    }
}

}  // namespace normsim::asic
