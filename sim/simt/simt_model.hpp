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
#include "sim/simt/warp_state.hpp"

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
core::Bytes l1_free_bytes(const SubKernel& k, const Occupancy& o, const GpuArch& g);

/// One row slot's critical path for one row (cycles), by what its warps
/// wait on there; total() is LaunchPrediction::row_cycles.
struct RowChain {
  double global_load = 0;  ///< global loads' latency, in batches of the loads in flight (gamma/beta's too)
  double shared_load = 0;  ///< loads of a pass over a row kept in shared memory
  double alu = 0;          ///< the per-element dependency chain and the reductions' adds (fixed-latency pipes)
  double division = 0;     ///< IEEE divisions on the chain (MUFU.RCP and its Newton step)
  double shuffle = 0;      ///< the reductions' warp shuffles
  double smem = 0;         ///< the reductions' shared-memory (and distributed shared memory) round trips
  double barrier = 0;      ///< __syncthreads and cluster barriers, the block's warps arriving together
  double total() const { return global_load + shared_load + alu + division + shuffle + smem + barrier; }
  RowChain& operator+=(const RowChain& o) {
    global_load += o.global_load;
    shared_load += o.shared_load;
    alu += o.alu;
    division += o.division;
    shuffle += o.shuffle;
    smem += o.smem;
    barrier += o.barrier;
    return *this;
  }
};

/// One row slot's chain for a launch whose re-reads hit the L2 with `l2_hit`.
RowChain row_chain(const SubKernel& k, const GpuArch& g, double l2_hit);

/// The breakdown of one launch.
struct LaunchPrediction {
  std::string name;
  Occupancy occ;
  double x_in_flight_bytes = 0;     ///< x of the rows in flight: the scale of a re-read's reuse distance
  double l1_hit = 0, l2_hit = 0;    ///< hit fraction of a re-read pass
  double dram_bytes_read = 0, dram_bytes_written = 0, l2_bytes = 0;
  double reread_dram_bytes = 0;  ///< of the DRAM bytes read, those of re-read passes that missed L1 and L2
  double warp_instructions = 0;  ///< executed warp instructions (the issue bound's count)
  double row_cycles = 0;         ///< one row slot's critical path per row (the latency chain)
  double rounds = 0;             ///< rows one slot walks (rows / rows in flight)
  // Duration bounds (us): the largest decides, plus the launch overhead.
  double dram_us = 0, latency_us = 0, issue_us = 0, smem_us = 0, request_us = 0, dispatch_us = 0;
  double dependent_issue_us = 0;  ///< of issue_us: one warp issuing its own instructions a dependent latency apart
  double epilogue_us = 0;  ///< the threads' scalar atomics/stores at the end, after everything else
  double fill_us = 0;      ///< the first round's loads queued at the DRAM, once
  double memory_us = 0;    ///< the latency chain and DRAM time combined (their p-norm): the memory bound
  double bounds_us = 0;    ///< the bounds combined (their p-norm), before what is added once
  double duration_us = 0;
  RowChain chain;          ///< row_cycles by what the warps wait on
  WarpProfile warps;       ///< where the warps spend their cycles (warp_states_model.hpp)
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

/// Below this DRAM-read elasticity a prediction is firm: x is read once or
/// its re-reads sit on a flat part of the reuse curves. From it on the rows
/// in flight are on the L2's cliff, where bytes in flight and phases the
/// model cannot know move the DRAM bytes.
inline constexpr double kCliffElasticity = 0.1;

/// [lo, hi] around a predicted value.
struct Range {
  double lo = 0, hi = 0;
  bool contains(double v) const { return v >= lo && v <= hi; }
  /// (hi - lo) / value; 0 for a value of 0.
  double relative_width(double value) const { return value > 0 ? (hi - lo) / value : 0.0; }
};

/// A prediction's ranges: the launches evaluated with the x in flight and
/// the rows' phase spread moved by the arch's range.in_flight_spread both
/// ways (and the dirty bytes at the end by range.dirty_spread_bytes), the
/// envelope summed over launches, then widened by the fitted floors
/// (duration: by the share of it DRAM time decides).
struct PredictionRanges {
  Range dram_bytes_read, dram_bytes_written, l2_bytes, duration_us;
};

struct Prediction {
  LaunchPlan plan;
  std::vector<LaunchPrediction> launches;
  double dram_bytes_read = 0, dram_bytes_written = 0, l2_bytes = 0;
  double reread_dram_bytes = 0;  ///< the launches' re-read misses
  double warp_instructions = 0;
  double duration_us = 0;
  double cycles = 0;  ///< SM cycles at the arch clock
  double dram_read_elasticity = 0;  ///< the launches' elasticities weighted by their DRAM bytes read
  WarpProfile warps;  ///< the launches' warp profiles weighted by their durations (as ncu_profile.json's)
  PredictionRanges ranges;
  /// Stores whose lanes lie a row apart (v1): the L2 may fill their
  /// sectors from DRAM, by an address hashing the model does not know.
  bool scattered_stores = false;
  /// Outside the arch's calibrated envelope: what lies beyond ("hidden
  /// 16777216 > 65536"); empty inside it.
  std::string extrapolated;
  /// Firm: inside the calibrated envelope, off the L2 cliff and no scattered
  /// stores; the DRAM bytes are then known to a few percent (docs/FIDELITY.md).
  bool firm() const { return extrapolated.empty() && dram_read_elasticity < kCliffElasticity && !scattered_stores; }
  /// "extrapolated", "on the L2 cliff", "scattered stores" or "firm".
  const char* firmness() const {
    return !extrapolated.empty() ? "extrapolated"
           : dram_read_elasticity >= kCliffElasticity ? "on the L2 cliff"
           : scattered_stores                          ? "scattered stores"
                                                       : "firm";
  }
};

/// What of a launch lies outside `gpu`'s calibrated envelope ("" when nothing).
std::string outside_envelope(const LaunchPlan& plan, const GpuArch& gpu);

/// d ln(DRAM bytes read) / d ln(x in flight) of one launch (LaunchPrediction::dram_read_elasticity).
double dram_read_elasticity(const SubKernel& k, const GpuArch& g);

/// with_sensitivity: also each launch's DRAM-read elasticity and the
/// prediction's ranges (thirteen more evaluations of a launch; the fit of
/// the point prediction leaves them out).
Prediction predict(const LaunchPlan& plan, const GpuArch& gpu, bool with_sensitivity = true);

}  // namespace normsim::simt
