#include "sim/asic/reread_stream.hpp"

#include "sim/asic/sim_time.hpp"

#include <algorithm>

namespace normsim::asic {

RereadStream::RereadStream(sc_core::sc_module_name n, const RunGeometry& g, const RowLimit& limit)
    : sc_module(n), g_(g), limit_(limit) {
  SC_METHOD(step);
}

void RereadStream::period_state(PeriodState& s) const {
  s.row_index(row_);
  s.value(chunk_);
  if (g_.fusion == Fusion::fused) {  // the z cycles it holds (unused, and stale, otherwise)
    s.row_index(sum_row_);
    s.time(sum_done_);
  }
  s.optional(pending_);
}

void RereadStream::next_chunk() {
  if (++chunk_ == g_.chunks) {
    chunk_ = 0;
    ++row_;
  }
}

void RereadStream::step() {
  if (await_slot()) return;  // clocked: act in this unit's slot of the cycle
  if (!g_.rereads()) return;  // SRAM replay: nothing to re-read
  for (;;) {
    if (pending_) {
      // A full FIFO holds the stream; a slot frees when the normalise unit takes one.
      if (!to_output.nb_write(*pending_)) {
        next_trigger(to_output.data_read_event());
        return;
      }
      pending_.reset();
      next_chunk();
    }
    if (row_ == limit_.rows()) return;
    const int64_t db = g_.reread_in_chunk(chunk_);
    if (db <= 0) {  // kept in SRAM: nothing to re-read
      next_chunk();
      continue;
    }
    // Fused: what is re-read is z, which the lanes' adder writes; not before the row's z is in DRAM.
    if (g_.fusion == Fusion::fused) {
      while (sum_row_ < row_) {
        if (!sum_in_dram.nb_read(sum_done_)) {
          next_trigger(sum_in_dram.data_written_event());
          return;
        }
        ++sum_row_;
      }
      if (trigger_at(sum_done_)) return;
    }
    pending_ = dram->read(now_cycles(), static_cast<double>(db * g_.in_bytes), Traffic::input_reread);
    if (g_.grad_bytes > 0)  // the backward re-reads dy beside x
      pending_->done = std::max(pending_->done, dram->read(now_cycles(), static_cast<double>(db * g_.grad_bytes), Traffic::grad_reread).done);
  }
}

}  // namespace normsim::asic
