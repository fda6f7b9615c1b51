#include "sim/core/rsqrt_lut_step.hpp"

#include <cmath>

namespace normsim::core {

std::vector<Fx> make_rsqrt_lut(const RsqrtLutStep& u) {
  const int per_half = 1 << (u.table_bits - 1);
  std::vector<Fx> t(static_cast<size_t>(2 * per_half));
  for (int p = 0; p < 2; ++p)
    for (int j = 0; j < per_half; ++j) {
      const double scale = p ? 2.0 : 1.0;
      const double a = (1.0 + static_cast<double>(j) / per_half) * scale, b = a + scale / per_half;
      t[static_cast<size_t>(p * per_half + j)] = quantize(2.0 / (std::sqrt(a) + std::sqrt(b)), u.seed_format());
    }
  return t;
}

Fx rsqrt_lut_step(Fx v, const RsqrtLutStep& u, const std::vector<Fx>& lut, const FixedFormat& out, QuantFlags* flags) {
  if (v.raw <= 0) {
    if (flags) *flags = QuantFlags{true, true};
    return Fx{out.max_raw(), out.frac_bits};
  }
  const RsqrtOperand op = rsqrt_operand(v, u.table_bits);
  const Exact y0 = exact(lut[op.index]);
  const Fx e = quantize(sub(exact_from_int(1), mul(op.m, mul(y0, y0))), u.error_format());
  const Fx y1 = quantize(add(y0, shift(mul(y0, exact(e)), -1)), u.iterate_format());
  return quantize(shift(exact(y1), -op.k / 2), out, flags);
}

}  // namespace normsim::core
