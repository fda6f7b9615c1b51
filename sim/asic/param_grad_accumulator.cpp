#include "sim/asic/param_grad_accumulator.hpp"

#include <algorithm>
#include <limits>

#include "sim/asic/traffic_identity.hpp"

namespace normsim::asic {

ParamGradAccumulator::Config ParamGradAccumulator::Config::of(const config::Workload& w, const config::Arch& a,
                                                               const AsicConfig& c) {
  return {c.param_grad_accumulator.path, c.param_grad_accumulator.partial_rows, param_grad_count(w), param_grad_acc_bytes(a), w.rows, w.hidden};
}

ParamGradAccumulator::ParamGradAccumulator(sc_core::sc_module_name n, const Config& cfg)
    : sc_module(n), cfg_(cfg), stats_(basename()) {
  stats_.add("accumulator_rmw_bytes", "bytes", "dgamma/dbeta accumulator bytes read and written back (each way)", &rmw_bytes_);
  stats_.add("accumulator_readout_bytes", "bytes", "accumulator bytes read out as partials", &readout_bytes_);
  if (g_whole_cycles && cfg_.path == config::ParamGradPath::partials) {
    SC_METHOD(readout);
  }
}

void ParamGradAccumulator::period_state(PeriodState& s) const {
  s.queue(readout_reads_);
  s.queue(readout_writes_);
}

void ParamGradAccumulator::readout() {
  if (await_slot()) return;  // clocked: act in this unit's slot of the cycle
  for (;;) {
    while (!readout_reads_.empty() && reached(readout_reads_.front().first)) {
      const double bytes = readout_reads_.front().second;
      readout_writes_.emplace_back(sram->read(now_cycles(), bytes).done, bytes);
      readout_reads_.pop_front();
    }
    while (!readout_writes_.empty() && reached(readout_writes_.front().first)) {
      dram->write(now_cycles(), readout_writes_.front().second, Traffic::partials);
      readout_writes_.pop_front();
    }
    double t = std::numeric_limits<double>::infinity();
    if (!readout_reads_.empty()) t = readout_reads_.front().first;
    if (!readout_writes_.empty()) t = std::min(t, readout_writes_.front().first);
    if (t == std::numeric_limits<double>::infinity()) {
      next_trigger(readout_added_);
      return;
    }
    if (trigger_at(t)) return;
  }
}

// On chip: the lanes cannot retire the transaction before its words are
// written back. In DRAM: the write is posted; the read came with the input.
double ParamGradAccumulator::accumulate(double start, int64_t elems) {
  const double bytes = cfg_.acc_bytes_of(elems);
  if (cfg_.path == config::ParamGradPath::dram_rmw) {
    dram->write(start, bytes, Traffic::grad_acc_write);
    return start;
  }
  const Grant rd = sram->read(start, bytes);
  const Grant wr = sram->write(start, bytes);
  rmw_bytes_ += static_cast<uint64_t>(bytes);
  return std::max(rd.done, wr.done);
}

// Partials: every partial_rows rows the accumulator is read out and written
// to DRAM as one partial (the after-rows pass sums them).
void ParamGradAccumulator::row_done(int64_t row, double at) {
  if (cfg_.path != config::ParamGradPath::partials || !cfg_.closes_partial(row)) return;
  const double bytes = cfg_.acc_bytes_of(cfg_.hidden);
  readout_bytes_ += static_cast<uint64_t>(bytes);
  if (g_whole_cycles) {
    readout_reads_.emplace_back(at, bytes);
    readout_added_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  const Grant rd = sram->read(at, bytes);
  dram->write(rd.done, bytes, Traffic::partials);
}

double ParamGradAccumulator::input_read_bytes(int64_t row, int64_t elems) const {
  return cfg_.path == config::ParamGradPath::dram_rmw && row > 0 ? cfg_.acc_bytes_of(elems) : 0.0;
}

double ParamGradAccumulator::read_with_input(double at, double bytes) {
  return dram->read(at, bytes, Traffic::grad_acc_read).done;
}

double ParamGradAccumulator::finish(double start) {
  const double acc = cfg_.acc_bytes_of(cfg_.hidden), fp32 = static_cast<double>(cfg_.hidden * cfg_.grads * 4);
  switch (cfg_.path) {
    case config::ParamGradPath::onchip: {
      const Grant rd = sram->read(start, acc);
      return dram->write(rd.done, fp32, Traffic::param_grads).done;
    }
    case config::ParamGradPath::partials: {
      // The partials stream back and are summed as they arrive; the sum is written at the end.
      const Grant rd = dram->read(start, acc * static_cast<double>(cfg_.partial_count()), Traffic::partials_read);
      return dram->write(rd.done, fp32, Traffic::param_grads).done;
    }
    case config::ParamGradPath::dram_rmw: return start;
  }
  return start;
}

}  // namespace normsim::asic
