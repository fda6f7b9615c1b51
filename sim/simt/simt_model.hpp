// The SIMT model: occupancy -> rows in flight -> L1/L2 reuse of re-read
// passes -> DRAM and L2 bytes -> duration. Analytic, per launch, explained
// term by term in docs/SIMT.md; all parameters come from the GPU arch file.
//
// Measurement conditions it predicts (those of the golden ncu data): every
// launch starts with cold caches (ncu flushes them), and bytes written that
// are still dirty in the L2 when the launch ends are not counted as DRAM
// writes.
#pragma once

#include <string>
#include <vector>

#include "sim/simt/gpu_arch.hpp"
#include "sim/simt/kernel_desc.hpp"

namespace normsim::simt {

struct Occupancy {
  int blocks_per_sm = 0;
  std::string limiter;  ///< threads | registers | shared memory | blocks
  int warps_per_sm = 0;
  int64_t rows_in_flight = 0;  ///< rows being worked on at once across the GPU
  double waves = 0;            ///< grid / (SMs x blocks per SM)
};

Occupancy occupancy(const SubKernel& k, const GpuArch& g);

/// The exponent of the p-norm that combines a launch's latency chain and
/// DRAM time: 1 with one row an SM (they add), towards the arch's
/// memory_overlap_exponent with many.
double memory_overlap_exponent(const Occupancy& o, const GpuArch& g);

/// The L1 a kernel's re-reads can use on one SM: what its shared memory (at
/// least the driver's carve-out) and gamma/beta leave.
double l1_free_bytes(const SubKernel& k, const Occupancy& o, const GpuArch& g);

/// The breakdown of one launch.
struct LaunchPrediction {
  std::string name;
  Occupancy occ;
  double x_in_flight_bytes = 0;     ///< x of the rows in flight: the scale of a re-read's reuse distance
  double l1_hit = 0, l2_hit = 0;    ///< hit fraction of a re-read pass
  double dram_bytes_read = 0, dram_bytes_written = 0, l2_bytes = 0;
  double warp_instructions = 0;  ///< executed warp instructions (the issue bound's count)
  double row_cycles = 0;         ///< one row slot's critical path per row (the latency chain)
  double rounds = 0;             ///< rows one slot walks (rows / rows in flight)
  // Duration bounds (us): the largest decides, plus the launch overhead.
  double dram_us = 0, latency_us = 0, issue_us = 0, smem_us = 0, request_us = 0, dispatch_us = 0;
  double epilogue_us = 0;  ///< the threads' scalar atomics/stores at the end, after everything else
  double fill_us = 0;      ///< the first round's loads queued at the DRAM, once
  double duration_us = 0;
  std::string bound;  ///< which bound decided
  /// d ln(DRAM bytes read) / d ln(x in flight): how far the prediction
  /// moves when the x of the rows in flight -- the scale of every re-read's
  /// reuse distance, per SM for the L1 and across the GPU for the L2 -- is
  /// 10% larger or smaller (a central difference). 0 where x is read once;
  /// large where the rows in flight sit on a steep part of the measured
  /// reuse curves (the L2 transition), where what the model does not know
  /// -- the warps' exact phases, which the loads in flight and the DRAM's
  /// order of service decide -- moves the DRAM bytes most (docs/SIMT.md).
  double dram_read_elasticity = 0;
};

struct Prediction {
  LaunchPlan plan;
  std::vector<LaunchPrediction> launches;
  double dram_bytes_read = 0, dram_bytes_written = 0, l2_bytes = 0;
  double warp_instructions = 0;
  double duration_us = 0;
  double cycles = 0;  ///< SM cycles at the arch clock
  double dram_read_elasticity = 0;  ///< the launches' elasticities weighted by their DRAM bytes read
};

/// d ln(DRAM bytes read) / d ln(x in flight) of one launch (LaunchPrediction::dram_read_elasticity).
double dram_read_elasticity(const SubKernel& k, const GpuArch& g);

/// with_elasticity: also each launch's DRAM-read elasticity (two more
/// evaluations of the traffic model per launch; the fit leaves it out).
Prediction predict(const LaunchPlan& plan, const GpuArch& gpu, bool with_elasticity = true);

}  // namespace normsim::simt
