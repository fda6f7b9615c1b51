#include "sim/asic/param_grad_pass.hpp"

#include <algorithm>

namespace normsim::asic {

double finish_param_grads(const RunGeometry& g, DramModel& dram, SramModel& sram, double start) {
  if (!g.backward) return start;
  const double acc = g.acc_bytes_of(g.hidden), fp32 = static_cast<double>(g.hidden * g.param_grads * 4);
  switch (g.param_grad) {
    case config::ParamGradPath::onchip: {
      const Grant rd = sram.read(start, acc);
      return dram.write(rd.done, fp32, Traffic::param_grads).done;
    }
    case config::ParamGradPath::partials: {
      // The partials stream back and are summed as they arrive; the sum is written at the end.
      const Grant rd = dram.read(start, acc * static_cast<double>(g.partial_count()), Traffic::partials_read);
      return dram.write(rd.done, fp32, Traffic::param_grads).done;
    }
    case config::ParamGradPath::dram_rmw: return start;
  }
  return start;
}

}  // namespace normsim::asic
