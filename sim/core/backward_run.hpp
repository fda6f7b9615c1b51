// The backward's numerics over a whole workload, without time: each row's x
// and dy are generated as stored, normsim's own forward (the arch's
// NormDatapath) gives the mean and rstd it would have saved, the backward
// datapath (NormBackward) computes dx and accumulates dgamma/dbeta, and all
// three are checked against the fp64 reference (exact statistics, exact
// sums). A Post-Norm workload's x is the forward's sum z = dropout(x) + r;
// with dropout the branch's gradient dz mask / (1 - p) is made beside dz
// (branch_grad.hpp). Rows run in order on one thread: the parameter gradients' order of
// summation is the datapath's, and it is part of what is measured.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/error_metrics.hpp"
#include "sim/core/norm_backward.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/core/norm_problem.hpp"
#include "sim/core/residual_add.hpp"

namespace normsim::core {

struct BackwardNumerics {
  ErrorMetrics dx_error;      ///< dx as stored (the output's type) against fp64, in ulps of the stored type at |ref| (floored at the dx stage's lsb)
  ErrorMetrics dgamma_error;  ///< dgamma (fp32) against fp64, in fp32 ulps (floored at the dgamma stage's lsb)
  ErrorMetrics dbeta_error;   ///< dbeta (LayerNorm), likewise
  ErrorMetrics dbranch_error; ///< a fused Post-Norm backward with dropout: the branch's gradient, as dx
  ResidualAddCounters branch_counters;  ///< ... its elements, dropped elements, quantisations and overflows
  std::string dx_ulp_unit, param_ulp_unit;
  BackwardCounters counters;  ///< quantisations and overflows per backward stage
  StageCounters forward_counters;  ///< the forward's own (its mean and rstd)
};

struct BackwardOutputs {
  std::vector<double> dx, dgamma, dbeta;  ///< as stored: dx in the output's type, the gradients in fp32
  std::vector<double> dbranch;            ///< the branch's gradient (dropout), in the output's type; else empty
};

/// The resolutions the errors' ulps are floored at: each ulp is at least
/// this (0: none). Negative: the stage's own lsb (fixed point; none for fp32).
struct BackwardUlpFloors {
  double dx = -1, dgamma = -1, dbeta = -1;
};

/// `fwd`: the arch's forward datapath; `bwd`: its backward datapath (hidden,
/// lanes, formats; its param_grad order as the unit sums). `keep`: the
/// outputs. `floors`: null for the stages' own.
BackwardNumerics run_backward_functional(const NormProblem& p, const DatapathConfig& fwd, const BackwardConfig& bwd,
                                         BackwardOutputs* keep = nullptr, const BackwardUlpFloors* floors = nullptr);

}  // namespace normsim::core
