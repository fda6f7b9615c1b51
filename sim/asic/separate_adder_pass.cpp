#include "sim/asic/separate_adder_pass.hpp"

#include <limits>

#include "sim/asic/sim_time.hpp"

namespace normsim::asic {

SeparateAdderPass::SeparateAdderPass(sc_core::sc_module_name n, const RunGeometry& g, double dram_window_bytes)
    : sc_module(n), g_(g), window_bytes_(dram_window_bytes) {
  stats_.add("pass_cycles", "cycles", "the separate adder's pass: x and r read, z written, before the norm unit starts",
             &pass_cycles_);
  if (g.fusion != Fusion::separate_adder) return;
  total_ = g.rows * g.chunks;
  SC_METHOD(step);
}

void SeparateAdderPass::step() {
  if (await_slot()) return;  // clocked: act in this unit's slot of the cycle
  for (;;) {
    const double now = now_cycles();
    while (!reads_.empty() && reached(reads_.front().first)) {
      in_flight_bytes_ -= reads_.front().second;
      reads_.pop_front();
    }
    // z of a transaction goes out once both its operands are in (requests in time order).
    while (!writes_.empty() && reached(writes_.front().first)) {
      const double bytes = static_cast<double>(writes_.front().second * g_.in_bytes);
      last_write_done_ = std::max(last_write_done_, dram->write(now, bytes, Traffic::adder_write).done);
      writes_.pop_front();
    }
    if (next_ == total_ && writes_.empty()) {
      pass_cycles_ = last_write_done_;
      done->announce(last_write_done_);
      return;
    }
    if (next_ < total_) {
      const int64_t elems = g_.chunk_size(static_cast<int>(next_ % g_.chunks));
      const double x_bytes = static_cast<double>(elems * g_.in_bytes), r_bytes = static_cast<double>(elems * g_.residual_bytes);
      if (reads_.empty() || in_flight_bytes_ + x_bytes + r_bytes <= window_bytes_) {
        dram->read(now, x_bytes, Traffic::adder_read);
        const Grant grant = dram->read(now, r_bytes, Traffic::adder_read);
        reads_.emplace_back(grant.done, x_bytes + r_bytes);
        in_flight_bytes_ += x_bytes + r_bytes;
        writes_.emplace_back(grant.done, elems);
        ++next_;
        continue;
      }
    }
    // Wait for the oldest read to land (room in the window, a write to issue).
    double t = std::numeric_limits<double>::infinity();
    if (!reads_.empty()) t = reads_.front().first;
    if (!writes_.empty()) t = std::min(t, writes_.front().first);
    if (trigger_at(t)) return;
  }
}

}  // namespace normsim::asic
