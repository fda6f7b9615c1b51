// What limits a kernel, read off its warp-state profile by one rule for
// measured (ncu) and predicted profiles alike, and the optimisation each
// limit points to.
//
// The rule is Nsight Compute's Speed-of-Light reading: a unit at 60% of its
// peak or more is the bottleneck ("achieved compute throughput and/or memory
// bandwidth below 60% of peak typically indicate latency issues", ncu's
// SOLBottleneck rule); below that the stall reasons say which latency. The
// four situations are the classic LayerNorm diagnosis: bandwidth at its
// peak (cut bytes); low bandwidth with long-scoreboard stalls (too few loads
// in flight); short-scoreboard or barrier stalls (the reductions'
// synchronisation); register spills (cache fewer elements per thread). An
// issue-bound kernel is the fifth.
#pragma once

#include <array>
#include <string_view>

#include "sim/simt/warp_state.hpp"

namespace normsim::simt {

enum class Limiter { dram_bandwidth, latency, synchronisation, spills, issue };

struct LimiterInfo {
  Limiter limiter;
  std::string_view name;       ///< "dram_bandwidth"
  std::string_view situation;  ///< what the profile shows
  std::string_view direction;  ///< the optimisation it implies
};
inline constexpr std::array<LimiterInfo, 5> kLimiterInfo = {{
    {Limiter::dram_bandwidth, "dram_bandwidth", "DRAM throughput at 60% of its peak or more",
     "cut bytes: fuse the residual, bias and scale, read x once, lower-precision inputs and outputs, no intermediate "
     "tensors, vector loads"},
    {Limiter::latency, "latency",
     "DRAM throughput and issue below 60% of their peaks, and the warps wait on memory more than on the reductions: "
     "too few loads in flight",
     "more loads in flight: a larger grid or more rows per block, more warps per row, contiguous and wider loads, "
     "deeper unrolling"},
    {Limiter::synchronisation, "synchronisation",
     "short-scoreboard, MIO-throttle and barrier stalls outweigh long-scoreboard ones: the reductions' shared memory "
     "and barriers",
     "fewer synchronisations: warp-shuffle reductions, fewer __syncthreads, no bank conflicts, smaller blocks"},
    {Limiter::spills, "spills", "registers spill to local memory",
     "fewer cached elements per thread, two passes over x, another block size, less unrolling, part of the row in "
     "shared memory"},
    {Limiter::issue, "issue", "instruction issue at 60% of its peak or more",
     "fewer instructions per element: vector loads, fewer index computations, fused arithmetic"},
}};

constexpr const LimiterInfo& limiter_info(Limiter l) { return kLimiterInfo[static_cast<size_t>(l)]; }
constexpr std::string_view to_string(Limiter l) { return limiter_info(l).name; }

/// A throughput at this share of its peak or more is the limiter.
inline constexpr double kSolBoundShare = 0.6;

/// The rule above: spills when local memory moves any bytes; else the
/// larger of DRAM throughput and issue activity if it reaches
/// kSolBoundShare; else synchronisation when short-scoreboard, MIO-throttle
/// and barrier stalls together outweigh long-scoreboard ones, latency when not.
Limiter limiter(const WarpProfile& p);

}  // namespace normsim::simt
