#include "sim/asic/input_path_unit.hpp"

#include "sim/asic/sim_time.hpp"

#include <algorithm>
#include <utility>
#include "sim/core/row_inputs.hpp"

namespace normsim::asic {

InputPathUnit::InputPathUnit(sc_core::sc_module_name n, const RunGeometry& g, const RowLimit& limit, double dram_window_bytes,
                             int row_buffers, RowArithmetic* arith)
    : sc_module(n),
      g_(g),
      limit_(limit),
      arith_(arith),
      window_bytes_(dram_window_bytes),
      row_buffers_(row_buffers) {
  stats_.add("row_buffers_peak", "row buffers", "most row buffers held at once (taken, not yet replayed)", &row_buffers_peak_);
  stats_.add("row_buffer_waits", "rows", "rows whose buffer the input path waited for (every one was busy)", &row_buffer_waits_);
  SC_METHOD(step);
}

void InputPathUnit::retire() {
  in_flight_bytes_ -= in_flight_.front().second;
  in_flight_.pop_front();
}

void InputPathUnit::period_state(PeriodState& s) const {
  s.queue(in_flight_);
  s.value(in_flight_bytes_);
  s.row_index(row_);
  s.value(chunk_);
  s.slot(slot_);
  s.value(window_wait_);
  s.value(waiting_for_buffer_);
  s.optional(pending_);
}

void InputPathUnit::step() {
  if (await_slot()) return;  // clocked: act in this unit's slot of the cycle
  // The unfused baseline: the unit starts once the separate adder's z is in DRAM.
  if (g_.fusion == Fusion::separate_adder && !params_issued_) {
    if (!adder_done->announced()) {
      next_trigger(adder_done->announced_event());
      return;
    }
    if (trigger_at(adder_done->cycle())) return;
  }
  if (!params_issued_) {
    // gamma/beta first: read once from DRAM into their on-chip buffer.
    params_on_chip->announce(dram->read(now_cycles(), static_cast<double>(g_.param_bytes), Traffic::params).done);
    params_issued_ = true;
  }
  for (;;) {
    if (pending_) {
      if (!to_lanes.nb_write(*pending_)) {
        next_trigger(to_lanes.data_read_event());
        return;
      }
      pending_.reset();
      if (++chunk_ == g_.chunks) {
        slot_ = nullptr;
        ++row_;
      }
    }
    if (row_ == limit_.rows()) return;  // the whole input has been issued
    if (!slot_) {
      if (!free_slots.nb_read(slot_)) {  // every row buffer is busy
        if (!waiting_for_buffer_) row_buffer_waits_ += 1;
        waiting_for_buffer_ = true;
        next_trigger(free_slots.data_written_event());
        return;
      }
      waiting_for_buffer_ = false;
      row_buffers_peak_ = std::max(row_buffers_peak_, static_cast<double>(row_buffers_ - free_slots->num_available()));
      slot_->row = row_;
      if (arith_)
        core::datapath_input_row(*arith_->workload, arith_->datapath->config().residual_add, row_, slot_->x,
                                 &arith_->numerics->input_saturations, &arith_->numerics->residual_add);
      sram->hold(g_.stored_elems * g_.row_elem_bytes());
      slot_->sram_write.assign(static_cast<size_t>(g_.chunks), Grant{});
      chunk_ = 0;
    }
    // Fused: x and r, the two operands of the adder in front of the lanes.
    // The backward: x (or x_hat) and dy, with the row's saved statistics at
    // its first transaction and, where the gradient accumulator
    // reads-modifies-writes DRAM, its words of these columns (its own read).
    const int64_t elems = g_.chunk_size(chunk_);
    const double x_bytes = static_cast<double>(elems * g_.in_bytes);
    const double r_bytes = g_.fusion == Fusion::fused ? static_cast<double>(elems * g_.residual_bytes) : 0.0;
    const double dy_bytes = static_cast<double>(elems * g_.grad_bytes);
    const double stats_bytes = chunk_ == 0 ? g_.saved_stats_bytes : 0.0;
    const double acc_bytes = param_grads.size() > 0 ? param_grads->input_read_bytes(row_, elems) : 0.0;
    const double bytes = x_bytes + r_bytes + dy_bytes + stats_bytes + acc_bytes;
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
    Grant grant = dram->read(now_cycles(), x_bytes, Traffic::input);
    if (r_bytes > 0) grant.done = dram->read(now_cycles(), r_bytes, Traffic::residual).done;  // both in before the adder's last sum
    // Every operand in before the lanes' last element.
    for (const auto& [b, kind] : {std::pair{dy_bytes, Traffic::grad}, std::pair{stats_bytes, Traffic::saved_stats}})
      if (b > 0) grant.done = std::max(grant.done, dram->read(now_cycles(), b, kind).done);
    if (acc_bytes > 0) grant.done = std::max(grant.done, param_grads->read_with_input(now_cycles(), acc_bytes));
    in_flight_.emplace_back(grant.done, bytes);
    in_flight_bytes_ += bytes;
    pending_ = ChunkToken{slot_, chunk_, g_.chunks, grant};
  }
}

}  // namespace normsim::asic
