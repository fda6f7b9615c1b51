#include "sim/simt/limiter.hpp"

#include <algorithm>

namespace normsim::simt {

Limiter limiter(const WarpProfile& p) {
  if (p.local_memory_bytes > 0) return Limiter::spills;  // NaN (not measured) is not > 0
  if (std::max(p.dram_throughput, p.issue_active) >= kSolBoundShare)
    return p.dram_throughput >= p.issue_active ? Limiter::dram_bandwidth : Limiter::issue;
  const double sync = p[WarpState::short_scoreboard] + p[WarpState::mio_throttle] + p[WarpState::barrier];
  return sync > p[WarpState::long_scoreboard] ? Limiter::synchronisation : Limiter::latency;
}

}  // namespace normsim::simt
