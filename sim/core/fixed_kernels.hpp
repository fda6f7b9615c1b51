// The per-element loops of the fixed-point datapath on machine integers:
// raw values in int64_t arrays, the exact intermediate in I (int64_t or
// __int128, as wide_fits chose), every shift and quantiser computed once per
// loop. Each loop is the Exact-path expression of fixed_units.hpp written
// out with its alignment shifts (add() aligns to the larger fraction count,
// mul() adds fraction counts), so results and overflow counts are the same
// bits; tests run both paths on every shipped datapath and on random formats.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "sim/core/fixed_wide.hpp"

namespace normsim::core::kernels {

/// a * b; for __int128 a 64 x 64 -> 128 multiply (wide_fits bounds both
/// factors to 62 bits).
template <class I>
inline I wmul(I a, I b) {
  if constexpr (sizeof(I) > 8) return static_cast<I>(static_cast<int64_t>(a)) * static_cast<int64_t>(b);
  else return a * b;
}

/// acc[i mod L] = q_acc(acc[i mod L] + term(i)) for i < C; term(i) has
/// `term_frac` fraction bits. Returns the overflow count.
template <class I, class Term>
uint64_t accumulate_lanes(int64_t C, int L, std::span<int64_t> acc, const FixedFormat& fa, int term_frac, Term term) {
  const int F = std::max(fa.frac_bits, term_frac);
  const int sa = F - fa.frac_bits, st = F - term_frac;
  const Requant<I> rq(F, fa);
  const int64_t mask = L - 1;  // L is a power of two
  uint64_t overflows = 0;
  QuantFlags fl;
  for (int64_t i = 0; i < C; ++i) {
    int64_t& a = acc[static_cast<size_t>(i & mask)];
    a = static_cast<int64_t>(rq((static_cast<I>(a) << sa) + (term(i) << st), fl));
    overflows += fl.overflow;
  }
  return overflows;
}

/// Welford lanes: per lane (count, mean, M2) with the count-indexed
/// reciprocal table (welford_update). Overflows per stage into ovf_mean/m2.
template <class I>
void welford_lanes(std::span<const int64_t> x, const FixedFormat& fx, int L, std::span<const int64_t> recip_raw,
                   const FixedFormat& frecip, const FixedFormat& fmean, const FixedFormat& fm2,
                   std::span<int64_t> count, std::span<int64_t> mean, std::span<int64_t> m2, uint64_t& ovf_mean,
                   uint64_t& ovf_m2) {
  const int F1 = std::max(fx.frac_bits, fmean.frac_bits);  // delta = x - mean
  const int ax = F1 - fx.frac_bits, am = F1 - fmean.frac_bits;
  const int Fp = F1 + frecip.frac_bits;  // delta * r
  const int F2 = std::max(fmean.frac_bits, Fp);
  const int F3 = std::max(fm2.frac_bits, 2 * F1);  // M2 + delta * delta2
  const Requant<I> rq_mean(F2, fmean), rq_m2(F3, fm2);
  const int64_t mask = L - 1;
  QuantFlags fl;
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t l = static_cast<size_t>(static_cast<int64_t>(i) & mask);
    const int64_t n = ++count[l];
    // delta and delta2 are factors of 64 x 64 multiplies: 62 bits at most.
    const int64_t xa = x[i] << ax;
    const int64_t delta = xa - (mean[l] << am);
    const I mu = (static_cast<I>(mean[l]) << (F2 - fmean.frac_bits)) +
                 (wmul(static_cast<I>(delta), static_cast<I>(recip_raw[static_cast<size_t>(n)])) << (F2 - Fp));
    mean[l] = static_cast<int64_t>(rq_mean(mu, fl));
    ovf_mean += fl.overflow;
    const int64_t delta2 = xa - (mean[l] << am);
    const I acc = (static_cast<I>(m2[l]) << (F3 - fm2.frac_bits)) +
                  (wmul(static_cast<I>(delta), static_cast<I>(delta2)) << (F3 - 2 * F1));
    m2[l] = static_cast<int64_t>(rq_m2(acc, fl));
    ovf_m2 += fl.overflow;
  }
}

/// The normalise/affine unit over a row (normalize_affine):
/// x_hat = q_xhat((x - mean) rstd) in Ix, y = q_out(x_hat gamma + beta) in Iy.
/// `out` receives the output register's raw values. `no_mean` (RMSNorm, mean
/// 0): x rstd at x's own fraction bits -- the same exact product, so the same
/// rounding, in fewer bits (wide_fits bounds it so).
template <class Ix, class Iy>
void normalize_row(std::span<const int64_t> x, const FixedFormat& fx, Fx mean, Fx rstd,
                   std::span<const int64_t> gamma, const FixedFormat& fg, std::span<const int64_t> beta,
                   const FixedFormat& fb, const FixedFormat& fxhat, const FixedFormat& fout, std::span<int64_t> out,
                   uint64_t& ovf_xhat, uint64_t& ovf_out, bool no_mean = false) {
  if (no_mean) mean = Fx{0, fx.frac_bits};
  const int F1 = std::max(fx.frac_bits, mean.frac);
  const int ax = F1 - fx.frac_bits;
  // x - mean is a factor of a 64 x 64 multiply: 62 bits at most (wide_fits).
  const int64_t mean_aligned = static_cast<int64_t>(mean.raw) << (F1 - mean.frac);
  const Ix r = static_cast<Ix>(static_cast<int64_t>(rstd.raw));
  const Requant<Ix> rq_xhat(F1 + rstd.frac, fxhat);
  const int Fp = fxhat.frac_bits + fg.frac_bits;
  const int F2 = std::max(Fp, fb.frac_bits);
  const int sp = F2 - Fp, sb = F2 - fb.frac_bits;
  const Requant<Iy> rq_out(F2, fout);
  // Counters in locals: a store to `out` may alias a uint64_t& (same type but sign).
  uint64_t n_xhat = 0, n_out = 0;
  QuantFlags fl;
  const int64_t* xp = x.data();
  const int64_t* gp = gamma.data();
  const int64_t* bp = beta.empty() ? nullptr : beta.data();
  int64_t* op = out.data();
  for (size_t i = 0, n = x.size(); i < n; ++i) {
    const int64_t d = (xp[i] << ax) - mean_aligned;
    const Iy xh = static_cast<Iy>(rq_xhat(wmul(static_cast<Ix>(d), r), fl));
    n_xhat += fl.overflow;
    const Iy b = bp ? static_cast<Iy>(bp[i]) : Iy(0);
    op[i] = static_cast<int64_t>(rq_out((wmul(xh, static_cast<Iy>(gp[i])) << sp) + (b << sb), fl));
    n_out += fl.overflow;
  }
  ovf_xhat += n_xhat;
  ovf_out += n_out;
}

/// Requant<int64_t> as plain words for a vector unit: shifts both ways by
/// loop-invariant counts, the mode and the overflow handling as masks, no
/// branch anywhere (the same results: test_fixed_wide).
struct Requant64 {
  int64_t up = 0, down = 0;  ///< v << up >> down
  int64_t mask = 0, half = 1;
  int64_t round = 0, tie_even = 0, wrap = 0;
  int64_t lo = 0, hi = 0;
  int64_t bits_mask = 0, sign_bit = 0;  ///< wrap: the low total_bits, and their sign bit (0 when unsigned)
  Requant64(int from_frac, const FixedFormat& f) {
    const int shift = from_frac - f.frac_bits;
    if (shift > 0) {
      down = shift;
      mask = (int64_t(1) << shift) - 1;
      half = int64_t(1) << (shift - 1);
    } else {
      up = -shift;
    }
    round = f.rounding != Rounding::truncate;
    tie_even = f.rounding == Rounding::half_even;
    wrap = f.overflow == Overflow::wrap;
    lo = static_cast<int64_t>(f.min_raw());
    hi = static_cast<int64_t>(f.max_raw());
    bits_mask = static_cast<int64_t>((uint64_t(1) << f.total_bits) - 1);  // total_bits <= 62 here (wide_fits)
    sign_bit = f.is_signed ? int64_t(1) << (f.total_bits - 1) : 0;
  }
  /// The quantised value; `over` is 1 when it saturated or wrapped.
  NORMSIM_INLINE int64_t operator()(int64_t v, int64_t& over) const {
    const int64_t rem = v & mask;
    int64_t q = (v << up) >> down;
    const int64_t tie_up = (tie_even & q & 1) | ((1 - tie_even) & static_cast<int64_t>(v >= 0));
    q += round & (static_cast<int64_t>(rem > half) | (static_cast<int64_t>(rem == half) & tie_up));
    over = static_cast<int64_t>(q < lo) | static_cast<int64_t>(q > hi);
    const int64_t bits = q & bits_mask;
    const int64_t wrapped = (bits ^ sign_bit) - sign_bit;
    int64_t sat = q < lo ? lo : q;
    sat = sat > hi ? hi : sat;
    return over ? (wrap ? wrapped : sat) : q;
  }
};

/// normalize_row for Ix = Iy = int64_t without a branch in the loop.
template <bool HasBeta>
NORMSIM_INLINE void normalize_row_64(const int64_t* x, size_t n, int ax, int64_t mean_aligned, int64_t r, const Requant64& rq_xhat,
                      const int64_t* gamma, const int64_t* beta, int sp, int sb, const Requant64& rq_out, int64_t* out,
                      uint64_t& ovf_xhat, uint64_t& ovf_out) {
  const Requant64 qx = rq_xhat, qo = rq_out;  // locals: `out` cannot alias them
  uint64_t n_xhat = 0, n_out = 0;
  for (size_t i = 0; i < n; ++i) {
    int64_t o1, o2;
    const int64_t d = (x[i] << ax) - mean_aligned;
    const int64_t xh = qx(d * r, o1);
    const int64_t b = HasBeta ? beta[i] : 0;
    out[i] = qo((xh * gamma[i] << sp) + (b << sb), o2);
    n_xhat += static_cast<uint64_t>(o1);
    n_out += static_cast<uint64_t>(o2);
  }
  ovf_xhat += n_xhat;
  ovf_out += n_out;
}

}  // namespace normsim::core::kernels
