#include "sim/core/fixed_units.hpp"

#include "sim/core/rsqrt_kind.hpp"

#include <bit>
#include <cmath>

namespace normsim::core {

namespace {
int log2_exact(int64_t n) { return std::countr_zero(static_cast<uint64_t>(n)); }
}  // namespace

std::vector<Fx> make_recip_table(int64_t max_n, const FixedFormat& recip) {
  std::vector<Fx> t(static_cast<size_t>(max_n) + 1);
  for (int64_t n = 1; n <= max_n; ++n) {
    // 1/n to 2*frac+8 bits below the point, then one rounding in the table format.
    const int k = recip.frac_bits + 70;
    const u128 one = u128(1) << (k > 120 ? 120 : k);
    Exact e{false, one / static_cast<u128>(n), k > 120 ? 120 : k};
    const u128 rem = one % static_cast<u128>(n);
    if (rem != 0) e.mag |= 1;  // sticky: 1/n is never a tie at this precision
    t[static_cast<size_t>(n)] = quantize(e, recip);
  }
  return t;
}

Exact times_recip(const Exact& v, int64_t n, Fx recip_n) {
  if (is_pow2(n)) return shift(v, -log2_exact(n));
  return mul(v, exact(recip_n));
}

Fx merge_coefficient(int64_t n_a, int64_t n_b, const FixedFormat& recip) {
  const u128 num = (u128(1) << 96) * static_cast<u128>(n_b);  // counts < 2^31
  const u128 den = static_cast<u128>(n_a + n_b);
  const u128 sticky = (num % den) != 0 ? 1 : 0;  // never a false tie
  return quantize(Exact{false, (num / den) | sticky, 96}, recip);
}

FxWelford chan_merge(const FxWelford& a, const FxWelford& b, const StageFormats& f, StageCounters& c) {
  if (a.count == 0) return b;
  if (b.count == 0) return a;
  FxWelford r;
  r.count = a.count + b.count;
  const Exact delta = sub(exact(b.mean), exact(a.mean));
  const Exact d2 = mul(delta, delta);
  Exact mean, cross;
  if (a.count == b.count) {
    mean = shift(add(exact(a.mean), exact(b.mean)), -1);
    cross = shift(mul(d2, exact_from_int(a.count)), -1);
  } else {
    const Exact coef = exact(merge_coefficient(a.count, b.count, fmt(f, Stage::recip)));
    mean = add(exact(a.mean), mul(delta, coef));
    cross = mul(mul(d2, exact_from_int(a.count)), coef);
  }
  r.mean = quantize_stage(mean, Stage::mean, f, c);
  r.m2 = quantize_stage(add(add(exact(a.m2), exact(b.m2)), cross), Stage::m2, f, c);
  return r;
}

FxWelford welford_update(const FxWelford& s, Fx x, Fx recip_next, const StageFormats& f, StageCounters& c) {
  FxWelford r;
  r.count = s.count + 1;
  const Exact xe = exact(x);
  const Exact delta = sub(xe, exact(s.mean));
  r.mean = quantize_stage(add(exact(s.mean), mul(delta, exact(recip_next))), Stage::mean, f, c);
  const Exact delta2 = sub(xe, exact(r.mean));
  r.m2 = quantize_stage(add(exact(s.m2), mul(delta, delta2)), Stage::m2, f, c);
  return r;
}

std::string RsqrtConfig::validate() const {
  if (unit < 0 || unit >= static_cast<int>(rsqrt_kinds().size())) return "unit " + std::to_string(unit) + " is not an RSQRT unit";
  if (auto r = refusal()) return r->key + " " + r->value + ": " + r->why + " (allowed: " + r->allowed + ")";
  if (seed == RsqrtSeed::linear && table_bits < 2)
    return "table_bits " + std::to_string(table_bits) + " below 2 for the linear seed (it interpolates within a mantissa interval)";
  if (table_bits < 1 || table_bits > 16) return "table_bits " + std::to_string(table_bits) + " outside 1..16";
  if (iterations < 0 || iterations > 4) return "iterations " + std::to_string(iterations) + " outside 0..4";
  if (nr_frac_bits < 4 || nr_frac_bits > 60) return "nr_frac_bits " + std::to_string(nr_frac_bits) + " outside 4..60";
  return {};
}

namespace {
FixedFormat nr_format(const RsqrtConfig& cfg) {
  // Iterates live in (0, 2): 2 integer bits plus sign cover every transient.
  return FixedFormat{cfg.nr_frac_bits + 3, cfg.nr_frac_bits, true, Rounding::half_even, Overflow::saturate};
}
}  // namespace

std::vector<Fx> make_rsqrt_table(const RsqrtConfig& cfg) {
  const int mbits = cfg.table_bits - 1;
  const int per_half = 1 << mbits;
  std::vector<Fx> t(static_cast<size_t>(2 * per_half));
  const FixedFormat nf = nr_format(cfg);
  if (cfg.seed == RsqrtSeed::linear) t.resize(t.size() * 2);
  for (int p = 0; p < 2; ++p)
    for (int j = 0; j < per_half; ++j) {
      const double scale = p ? 2.0 : 1.0;
      const size_t at = static_cast<size_t>(p * per_half + j);
      if (cfg.seed == RsqrtSeed::table) {
        t[at] = quantize(1.0 / std::sqrt((1.0 + (j + 0.5) / per_half) * scale), nf);
        continue;
      }
      // 1/sqrt is convex: the chord lies above it, farthest where the
      // curve's slope equals the chord's; lowered by half that distance it
      // is the interval's minimax line (Chebyshev equioscillation).
      const double a = (1.0 + static_cast<double>(j) / per_half) * scale, h = scale / per_half;
      const double fa = 1.0 / std::sqrt(a), fb = 1.0 / std::sqrt(a + h), slope = fb - fa;  // per unit t
      const double at_tangent = std::pow(-2.0 * slope / h, -2.0 / 3.0);  // f'(m) = slope / h
      const double gap = fa + slope * (at_tangent - a) / h - 1.0 / std::sqrt(at_tangent);
      t[2 * at] = quantize(fa - gap / 2, nf);
      t[2 * at + 1] = quantize(slope, nf);
    }
  return t;
}

RsqrtOperand rsqrt_operand(Fx v, int table_bits) {
  // Leading-zero normalise: raw has its top one at bit p; value = raw 2^-F.
  const u128 raw = static_cast<u128>(v.raw);
  const uint64_t hi = static_cast<uint64_t>(raw >> 64);
  const int p = hi ? 127 - std::countl_zero(hi) : 63 - std::countl_zero(static_cast<uint64_t>(raw));
  const int e = p - v.frac;                // value in [2^e, 2^(e+1))
  const int k = (e % 2 == 0) ? e : e - 1;  // even: m = value 2^-k in [1, 4)
  // Table index: parity (m >= 2) and the next table_bits-1 bits below the leading one.
  const int mbits = table_bits - 1;
  const int parity = (e != k) ? 1 : 0;
  const int below = p - mbits;
  const uint64_t frac_idx =
      below >= 0 ? static_cast<uint64_t>((raw >> below) & ((u128(1) << mbits) - 1))
                 : static_cast<uint64_t>((raw << -below) & ((u128(1) << mbits) - 1));
  return {Exact{false, raw, v.frac + k}, k, static_cast<size_t>((parity << mbits) | static_cast<int>(frac_idx)), below};
}

Fx rsqrt_nr(Fx v, const RsqrtConfig& cfg, const std::vector<Fx>& table, const FixedFormat& out, QuantFlags* flags) {
  if (v.raw <= 0) {
    if (flags) *flags = QuantFlags{true, true};
    return Fx{out.max_raw(), out.frac_bits};
  }
  const auto [m, k, index, below] = rsqrt_operand(v, cfg.table_bits);
  const u128 raw = static_cast<u128>(v.raw);
  const FixedFormat nf = nr_format(cfg);
  Fx y = cfg.seed == RsqrtSeed::table ? table[index] : Fx{};
  if (cfg.seed == RsqrtSeed::linear) {
    // t: the nr_frac_bits bits below the index bits (the rest dropped, or
    // zeros appended), a fraction of the interval; y = c0 + c1 t, rounded once.
    const int t_bits = cfg.nr_frac_bits;
    const int low = below - t_bits;  // bit position of t's lowest bit
    const u128 t_mask = (u128(1) << t_bits) - 1;
    const u128 t_raw = (below <= 0 ? u128(0) : low >= 0 ? (raw >> low) : (raw << -low)) & t_mask;
    const Exact te{false, t_raw, t_bits};
    y = quantize(add(exact(table[2 * index]), mul(exact(table[2 * index + 1]), te)), nf);
  }
  const Exact three = exact_from_int(3);
  for (int i = 0; i < cfg.iterations; ++i) {
    const Fx y2 = quantize(mul(exact(y), exact(y)), nf);
    const Fx my2 = quantize(mul(m, exact(y2)), nf);
    y = quantize(shift(mul(exact(y), sub(three, exact(my2))), -1), nf);
  }
  // rsqrt(value) = rsqrt(m) 2^(-k/2)
  return quantize(shift(exact(y), -k / 2), out, flags);
}

Fx normalize_affine(Fx x, Fx mean, Fx rstd, Fx gamma, Fx beta, const StageFormats& f, StageCounters& c) {
  const Fx xhat = quantize_stage(mul(sub(exact(x), exact(mean)), exact(rstd)), Stage::xhat, f, c);
  return quantize_stage(add(mul(exact(xhat), exact(gamma)), exact(beta)), Stage::output, f, c);
}

}  // namespace normsim::core
