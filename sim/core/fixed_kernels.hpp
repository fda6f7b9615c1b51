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
/// `out` receives the output register's raw values.
template <class Ix, class Iy>
void normalize_row(std::span<const int64_t> x, const FixedFormat& fx, Fx mean, Fx rstd,
                   std::span<const int64_t> gamma, const FixedFormat& fg, std::span<const int64_t> beta,
                   const FixedFormat& fb, const FixedFormat& fxhat, const FixedFormat& fout, std::span<int64_t> out,
                   uint64_t& ovf_xhat, uint64_t& ovf_out) {
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
  QuantFlags fl;
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t d = (x[i] << ax) - mean_aligned;
    const Iy xh = static_cast<Iy>(rq_xhat(wmul(static_cast<Ix>(d), r), fl));
    ovf_xhat += fl.overflow;
    const Iy b = beta.empty() ? Iy(0) : static_cast<Iy>(beta[i]);
    out[i] = static_cast<int64_t>(rq_out((wmul(xh, static_cast<Iy>(gamma[i])) << sp) + (b << sb), fl));
    ovf_out += fl.overflow;
  }
}

}  // namespace normsim::core::kernels
