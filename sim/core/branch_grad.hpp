// The branch's gradient in a fused Post-Norm backward: z = dropout(x) + r
// in the forward, so dL/dr = dz and dL/dx = dz * mask / (1 - p) (inverted
// dropout, Srivastava et al., JMLR 15, 2014). The mask is regenerated from
// (seed, element index) exactly as the forward drew it (dropout_mask.hpp):
// nothing is stored. Pure: no time.
//
// The unit is the forward's residual adder lane with r tied to zero: the same
// arithmetic (ResidualAddConfig), so rtl_models/residual_add.v computes it
// bit for bit. fp32: the kept dz times the fp32 scale, rounded once. Fixed
// point: dz and the scale quantised into the adder's format, the product
// rounded once into it (overflows counted).
#pragma once

#include <cstdint>
#include <span>

#include "sim/core/norm_problem.hpp"
#include "sim/core/residual_add.hpp"

namespace normsim::core {

/// Row `row` of the branch's gradient before it is stored: `dz` the norm's
/// dx as its datapath made it (before rounding to the output's type),
/// `out` dz * mask * scale in the adder's arithmetic. `tensor_row` is the
/// row's index in the whole tensor (the mask's counter). Counts elements,
/// dropped elements, quantisations and overflows.
void branch_grad_row(const ResidualSpec& spec, const ResidualAddConfig& cfg, uint64_t seed, int64_t tensor_row,
                     std::span<const double> dz, std::span<double> out, ResidualAddCounters& c);

/// Whether element `column` of row `tensor_row` was kept by the forward's
/// dropout (always, with p = 0): the fp64 reference's mask.
bool branch_kept(const ResidualSpec& spec, uint64_t seed, int64_t tensor_row, int64_t hidden, int64_t column);

}  // namespace normsim::core
