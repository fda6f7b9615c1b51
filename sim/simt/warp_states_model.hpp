// The SIMT model's warp states: where a launch's resident warps spend their
// cycles (warp_state.hpp), derived from the mechanisms that give its
// duration (simt_model.hpp), not fitted per case:
//  * selected: one cycle per warp instruction issued (the issue bound's count);
//  * not_selected: a scheduler issuing a fraction u of its cycles keeps, per
//    issue, u / (1 - u) eligible warps waiting (a single-server queue's
//    length), at most the scheduler's other warps;
//  * the row chain (RowChain): global loads -> long_scoreboard; shared-memory
//    loads, shuffles and the reductions' shared memory -> short_scoreboard;
//    barriers -> barrier;
//  * wait: every issue holds its warp for its control code's stall count
//    (the SASS's mean, SassFacts::mean_stall_cycles), the cycles beyond the issue;
//  * what the combined bounds take beyond that, split by each bound's share
//    of their p-norm: memory and L1-miss requests -> long_scoreboard (a
//    row's warps that meet at a barrier wait there for the slowest: of w
//    warps whose loads land spread over the stretch, (w - 1) / 2w of it at
//    the barrier), shared memory -> mio_throttle; issue throughput is
//    not_selected's queue, and while block dispatch decides no warp is
//    resident (the resident warps shrink by the dispatch's share, Little's law);
//  * the pipeline fill -> long_scoreboard; the scalar epilogue's n
//    operations a thread -> lg_throttle while they queue, drain for the last.
// The launch overhead and the fixed tail hold no resident warps here.
#pragma once

#include "sim/simt/simt_model.hpp"

namespace normsim::simt {

/// `r` is the launch's prediction up to its duration (bounds, chain, bytes).
WarpProfile predict_warp_states(const SubKernel& k, const GpuArch& g, const LaunchPrediction& r);

/// Resident warps per active SM averaged over the launch: one block per SM
/// for a grid of at most one block an SM, the grid spread over the SMs for
/// a partial wave, and the last wave's empty slots counted for several.
double resident_warps_per_sm(const SubKernel& k, const Occupancy& o, const GpuArch& g);

}  // namespace normsim::simt
