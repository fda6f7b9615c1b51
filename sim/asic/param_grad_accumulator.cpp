#include "sim/asic/param_grad_accumulator.hpp"

#include <algorithm>

namespace normsim::asic {

ParamGradAccumulator::ParamGradAccumulator(sc_core::sc_module_name n, const RunGeometry& g, DramModel& dram, SramModel& sram)
    : sc_module(n), g_(g), dram_(dram), sram_(sram), stats_(basename()) {
  stats_.add("accumulator_rmw_bytes", "bytes", "dgamma/dbeta accumulator bytes read and written back (each way)", &rmw_bytes_);
  stats_.add("accumulator_readout_bytes", "bytes", "accumulator bytes read out as partials", &readout_bytes_);
}

// On chip: the lanes cannot retire the transaction before its words are
// written back. In DRAM: the write is posted; the read came with the input.
double ParamGradAccumulator::accumulate(double start, int64_t elems) {
  const double bytes = g_.acc_bytes_of(elems);
  if (g_.param_grad == config::ParamGradPath::dram_rmw) {
    dram_.write(start, bytes, Traffic::grad_acc_write);
    return start;
  }
  const Grant rd = sram_.read(start, bytes);
  const Grant wr = sram_.write(start, bytes);
  rmw_bytes_ += static_cast<uint64_t>(bytes);
  return std::max(rd.done, wr.done);
}

// Partials: every partial_rows rows the accumulator is read out and written
// to DRAM as one partial (the after-rows pass sums them).
void ParamGradAccumulator::row_done(int64_t row, double at) {
  if (g_.param_grad != config::ParamGradPath::partials || !g_.closes_partial(row)) return;
  const double bytes = g_.acc_bytes_of(g_.hidden);
  const Grant rd = sram_.read(at, bytes);
  dram_.write(rd.done, bytes, Traffic::partials);
  readout_bytes_ += static_cast<uint64_t>(bytes);
}

double ParamGradAccumulator::finish(double start) {
  const double acc = g_.acc_bytes_of(g_.hidden), fp32 = static_cast<double>(g_.hidden * g_.param_grads * 4);
  switch (g_.param_grad) {
    case config::ParamGradPath::onchip: {
      const Grant rd = sram_.read(start, acc);
      return dram_.write(rd.done, fp32, Traffic::param_grads).done;
    }
    case config::ParamGradPath::partials: {
      // The partials stream back and are summed as they arrive; the sum is written at the end.
      const Grant rd = dram_.read(start, acc * static_cast<double>(g_.partial_count()), Traffic::partials_read);
      return dram_.write(rd.done, fp32, Traffic::param_grads).done;
    }
    case config::ParamGradPath::dram_rmw: return start;
  }
  return start;
}

}  // namespace normsim::asic
