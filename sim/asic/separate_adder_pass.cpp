#include "sim/asic/separate_adder_pass.hpp"

#include <limits>

namespace normsim::asic {

SeparateAdderPass::SeparateAdderPass(sc_core::sc_module_name n, AccelContext& ctx)
    : sc_module(n),
      ctx_(ctx),
      window_bytes_(static_cast<double>(ctx.cfg.dram.max_outstanding) * ctx.cfg.dram.burst_bytes) {
  stats_.add("pass_cycles", "cycles", "the separate adder's pass: x and r read, z written, before the norm unit starts",
             &pass_cycles_);
  if (ctx.fusion != Fusion::separate_adder) return;
  total_ = ctx.rows * ctx.chunks;
  SC_METHOD(step);
}

void SeparateAdderPass::step() {
  for (;;) {
    const double now = now_cycles();
    while (!reads_.empty() && reached(reads_.front().first)) {
      in_flight_bytes_ -= reads_.front().second;
      reads_.pop_front();
    }
    // z of a transaction goes out once both its operands are in (requests in time order).
    while (!writes_.empty() && reached(writes_.front().first)) {
      const double bytes = static_cast<double>(writes_.front().second * ctx_.in_bytes);
      last_write_done_ = std::max(last_write_done_, ctx_.dram->write(now, bytes, Traffic::adder_write).done);
      writes_.pop_front();
    }
    if (next_ == total_ && writes_.empty()) {
      pass_cycles_ = last_write_done_;
      ctx_.adder_done_cycle = last_write_done_;
      issued_event.notify(sc_core::SC_ZERO_TIME);
      return;
    }
    if (next_ < total_) {
      const int k = static_cast<int>(next_ % ctx_.chunks);
      const int64_t elems = ctx_.chunk_end(k) - ctx_.chunk_begin(k);
      const double x_bytes = static_cast<double>(elems * ctx_.in_bytes), r_bytes = static_cast<double>(elems * ctx_.residual_bytes);
      if (reads_.empty() || in_flight_bytes_ + x_bytes + r_bytes <= window_bytes_) {
        ctx_.dram->read(now, x_bytes, Traffic::adder_read);
        const Grant g = ctx_.dram->read(now, r_bytes, Traffic::adder_read);
        reads_.emplace_back(g.done, x_bytes + r_bytes);
        in_flight_bytes_ += x_bytes + r_bytes;
        writes_.emplace_back(g.done, elems);
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
