// The lut_step RSQRT unit's arithmetic: a table of narrow seeds and one
// Newton-Raphson step in error form (the organisation of Schulte & Wires,
// "High-Speed Inverse Square Roots", ARITH 1999: a table lookup, a squaring
// unit and a multiply-accumulate), bit for bit rtl_models/rsqrt_lut_step.v.
//
// With y0 = r (1 + d) for r = 1/sqrt(m), e = 1 - m y0^2 = -2d - d^2 and
// y1 = y0 + y0 e / 2 = r (1 - 3/2 d^2 - 1/2 d^3): one step squares the
// seed's relative error. The seed of an interval [a, b) is 2 / (sqrt a +
// sqrt b), whose relative error is equal and opposite at the two ends (the
// smallest worst |d|, so the smallest error after the step); a table of
// 2^table_bits seeds then leaves |d| <= 2^-(table_bits+1) before the seed's
// rounding, and the step about 2^-(2 table_bits) relative. Because |e| is
// that small, e and the correction y0 e are narrow words: the multipliers
// are table_bits-wide, not iterate-wide as a full Newton step's are.
#pragma once

#include <vector>

#include "sim/core/fixed_units.hpp"
#include "sim/core/rsqrt_kind.hpp"

namespace normsim::core {

struct RsqrtLutStep {
  int table_bits = 10;  ///< index: 1 exponent-parity bit + table_bits-1 mantissa bits
  int frac_bits = 26;   ///< fraction bits of e and of the refined y1
  static RsqrtLutStep of(const RsqrtConfig& c) { return {c.table_bits, c.nr_frac_bits}; }
  /// A seed: u1.(table_bits + 2), in (1/2, 1].
  FixedFormat seed_format() const { return {table_bits + 3, table_bits + 2, false}; }
  /// e = 1 - m y0^2, |e| < 2^(2 - table_bits): s.frac_bits, 3 - table_bits integer bits (sign included).
  FixedFormat error_format() const { return {frac_bits - table_bits + 4, frac_bits, true}; }
  /// y1: the newton unit's iterate register, s2.frac_bits (the output stage is the same).
  FixedFormat iterate_format() const { return {frac_bits + 3, frac_bits, true}; }
};

/// The seed ROM: entry (p, j) = 2 / (sqrt a + sqrt b) for the interval
/// [a, b) = [1 + j/2^(t-1), 1 + (j+1)/2^(t-1)) * 2^p, rounded into seed_format.
std::vector<Fx> make_rsqrt_lut(const RsqrtLutStep& u);

/// 1/sqrt(v): normalise v = m 2^k (rsqrt_operand), y0 from the ROM,
/// e = q_error(1 - m y0^2) (the products exact), y1 = q_iterate(y0 + y0 e / 2),
/// then 2^(-k/2) and one rounding into `out`. v <= 0 saturates `out`
/// (flagged as overflow).
Fx rsqrt_lut_step(Fx v, const RsqrtLutStep& u, const std::vector<Fx>& lut, const FixedFormat& out,
                  QuantFlags* flags = nullptr);

/// The unit as the RSQRT table declares it (rsqrt.unit: lut_step): four
/// stages (normalise and seed, e, y1, round); iterations 1, seed table,
/// table_bits 4..16 and nr_frac_bits above table_bits + 2, or refused.
RsqrtKind rsqrt_lut_step_kind();

}  // namespace normsim::core
