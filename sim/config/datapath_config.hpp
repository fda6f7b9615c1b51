// The datapath a workload + arch describe: the arch's lanes, algorithm,
// arithmetic and formats at the workload's norm, row length and eps, as
// sim/core's NormDatapath takes them.
#pragma once

#include <optional>

#include "sim/config/arch.hpp"
#include "sim/config/workload.hpp"
#include "sim/core/norm_datapath.hpp"

namespace normsim::config {

/// Whether the unit itself adds w's residual stream (a fused dataflow), or
/// a separate adder does (arch fuse.mode none; false too without a residual).
/// A backward adds only when it re-makes z (the forward did not keep it).
inline bool unit_adds_residual(const Workload& w, const Arch& a) {
  return w.residual && a.fuse.mode != FuseMode::none && (!w.is_backward() || w.backward_remakes_sum());
}

/// ConfigError naming the arch's fuse.mode when it cannot serve the
/// workload's residual stream (no residual to add; dropout without a mask generator).
void check_fusion(const Workload& w, const Arch& a);

/// `algorithm` overrides the arch's (a --algorithm flag). ConfigError naming
/// the arch file when the combination is invalid.
core::DatapathConfig datapath_config(const Workload& w, const Arch& a,
                                     std::optional<core::VarianceAlgorithm> algorithm = std::nullopt);

/// The backward datapath of w (pass backward) on arch a: the arch's lanes,
/// merge order and arithmetic, its backward_formats (ConfigError naming the
/// key when a fixed arch has none), the forward formats it reads x, gamma,
/// mean and rstd in, and the parameter-gradient order of `asic.backward`
/// (one accumulator summing rows in order; partials: every partial_rows
/// rows a new one, summed in order by the second pass).
core::BackwardConfig backward_config(const Workload& w, const Arch& a);
}  // namespace normsim::config
