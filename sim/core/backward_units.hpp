// The fixed-point backward's units, one element or one node at a time: the
// pure functions that NormBackward composes into a row and that the RTL of
// rtl_models/ (backward_operands.v, row_sum_lane.v, dx_unit.v,
// param_grad_acc.v, row_mean.v, row_sum_node.v) reproduces bit for bit.
// Every rounding goes through quantize_backward, which counts it (and its
// overflow) against its stage.
#pragma once

#include <cstdint>

#include "sim/core/fixed_point.hpp"
#include "sim/core/backward_stage.hpp"

namespace normsim::core {

/// q_s(v): v rounded into stage s's format, counted (with its overflow).
Fx quantize_backward(const Exact& v, BackwardStage s, const BackwardFormats& f, BackwardCounters& c);

/// One element's x_hat and g, the operands both passes take (the dx pass
/// recomputes them from the replayed x and dy rather than keeping a row):
/// x_hat = q_xhat((x - mean) rstd) (RMSNorm: q_xhat(x rstd)) and
/// g = q_g(dy gamma). `xhat_stored`: x is x_hat as the forward wrote it, in
/// the xhat format, and passes through. x in the forward's input format,
/// mean and rstd in its mean and rsqrt_out formats, gamma in its gamma
/// format, dy in the backward's dy format.
struct BackwardOperands {
  Fx xhat, g;
};
BackwardOperands backward_operands(NormKind kind, bool xhat_stored, Fx x, Fx mean, Fx rstd, Fx dy, Fx gamma,
                                   const BackwardFormats& f, BackwardCounters& c);

/// A row-sum lane's accumulators: S1 (sum g; LayerNorm only) and S2 (sum g x_hat).
struct RowSums {
  Fx s1, s2;
};
/// One element into a lane: s1' = q_sum_g(s1 + g), s2' = q_sum_gxhat(s2 + g x_hat).
RowSums row_sum_update(NormKind kind, const RowSums& acc, const BackwardOperands& o, const BackwardFormats& f,
                       BackwardCounters& c);

/// A node of the lanes' adder tree, or of the parameter gradients' column
/// sum: q_s(a + b) in the format of `s` (sum_g, sum_gxhat, dgamma or dbeta).
Fx backward_add(Fx a, Fx b, BackwardStage s, const BackwardFormats& f, BackwardCounters& c);

/// A row sum over C elements as a row mean: q_row_mean(S / C), S / C a shift
/// where C is a power of two, else S times 1/C in the forward's recip format.
Fx row_mean(Fx sum, int64_t hidden, Fx recip_hidden, const BackwardFormats& f, BackwardCounters& c);

/// One dx: q_dx(rstd (g - S1/C - x_hat S2/C)), the bracket exact (RMSNorm:
/// no S1/C term; m1 unused).
Fx dx_value(NormKind kind, const BackwardOperands& o, Fx rstd, Fx m1, Fx m2, const BackwardFormats& f,
            BackwardCounters& c);

/// A column's parameter-gradient accumulators and one row's update:
/// dgamma' = q_dgamma(dgamma + dy x_hat), dbeta' = q_dbeta(dbeta + dy)
/// (RMSNorm: no dbeta).
struct ParamGrads {
  Fx dgamma, dbeta;
};
ParamGrads param_grad_update(NormKind kind, const ParamGrads& acc, Fx dy, Fx xhat, const BackwardFormats& f,
                             BackwardCounters& c);

}  // namespace normsim::core
