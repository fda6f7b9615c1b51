#include "sim/asic/branch_grad_pass.hpp"

#include <algorithm>

namespace normsim::asic {

double finish_branch_pass(const RunGeometry& g, DramModel& dram, double start) {
  if (g.branch_pass_bytes == 0) return start;
  const double bytes = static_cast<double>(g.rows * g.hidden * g.branch_pass_bytes);
  const Grant rd = dram.read(start, bytes, Traffic::branch_pass_read);
  const Grant wr = dram.write(start, bytes, Traffic::branch_grad);  // streamed: writes follow the reads through the shared port
  return std::max(rd.done, wr.done);
}

}  // namespace normsim::asic
