// The residual adder in front of the lanes of a fused norm unit: z =
// dropout_p(x) + r, rounded to the stored sum's type (the input's), which is
// what the lanes normalise -- the same bits whether the unit adds (a fused
// dataflow) or a separate adder wrote z to DRAM first. Pure: no time.
//
// Two arithmetics. IEEE fp32, as the GPU kernels do it: the kept branch
// value times the fp32 scale 1/(1-p), rounded, plus r, rounded (no fused
// multiply-add), then rounded to the stored type. Or a fixed-point format F:
// x, r and the scale quantised into F, x s + r computed exactly and rounded
// once into F (overflows counted), then converted to the stored type.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "sim/core/fixed_point.hpp"
#include "sim/core/norm_problem.hpp"

namespace normsim::core {

/// The adder's arithmetic.
struct ResidualAddConfig {
  bool fixed = false;    ///< false: IEEE fp32
  FixedFormat format{};  ///< fixed only
  bool operator==(const ResidualAddConfig&) const = default;
  std::string describe() const;  ///< "fp32" or the format, e.g. "s24.14 half-even saturate"
};

/// What the adder met, summed over rows.
struct ResidualAddCounters {
  uint64_t elements = 0;       ///< sums computed
  uint64_t dropped = 0;        ///< branch elements the mask dropped
  uint64_t quantizations = 0;  ///< fixed point: values rounded into the adder's format
  uint64_t overflows = 0;      ///< ... of which out of its range (saturated or wrapped)
  void add(const ResidualAddCounters& o);
};

/// The fixed-point adder on one element, its operands already in format f:
/// q((keep ? x s : 0) + r), exact before the one rounding; `scale` null (no
/// dropout: no multiplier) q(x + r). rtl_models/residual_add.v, bit for bit.
Fx residual_add_fixed(Fx x, Fx r, const Fx* scale, bool keep, const FixedFormat& f, QuantFlags* flags);

/// v rounded into the adder's format f, counted (a quantisation, an overflow if out of range).
Fx quantize_counted(double v, const FixedFormat& f, ResidualAddCounters& c);

/// Row `row` of the sum: x (the branch, as stored) is replaced by z, the
/// sum as stored in `z_type`; r is the residual row as stored. `tensor_row`
/// is the row's index in the whole tensor (the mask's counter).
void residual_add_row(const ResidualSpec& spec, const ResidualAddConfig& cfg, uint64_t seed, int64_t tensor_row,
                      std::span<double> x, std::span<const double> r, ElemType z_type, ResidualAddCounters& c);

}  // namespace normsim::core
