// Floating-point building blocks: Welford's update and Chan's merge (for any
// float type, each rounding written out; built with -ffp-contract=off) and the
// fp64 reference every datapath is measured against. The fp32 datapath that
// uses them is NormDatapath (norm_datapath.hpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/norm_types.hpp"

namespace normsim::core {

/// Welford state (Welford 1962): count, running mean, sum of squared deviations.
template <typename T>
struct WelfordState {
  int64_t count = 0;
  T mean = 0;
  T m2 = 0;
};

/// One Welford update: n' = n+1, d = x - mu, mu' = mu + d/n', M2' = M2 + d (x - mu').
/// kFma: M2' = fma(d, x - mu', M2), one rounding, as a GPU compiler fuses it.
template <bool kFma, typename T>
WelfordState<T> welford_update_as(WelfordState<T> s, T x) {
  s.count += 1;
  const T delta = x - s.mean;
  s.mean = s.mean + delta / static_cast<T>(s.count);
  const T delta2 = x - s.mean;
  if constexpr (kFma) s.m2 = std::fma(delta, delta2, s.m2);
  else s.m2 = s.m2 + delta * delta2;
  return s;
}

/// Chan's merge (Chan, Golub & LeVeque 1979):
/// d = mu_b - mu_a, mu = mu_a + d n_b/n, M2 = M2_a + M2_b + d^2 n_a n_b / n.
/// kFma: mu = fma(d, n_b/n, mu_a), M2 = fma(d d, n_a n_b/n, M2_a + M2_b) (the
/// SASS of gpu_ref's Welford kernels).
template <bool kFma, typename T>
WelfordState<T> chan_merge_as(const WelfordState<T>& a, const WelfordState<T>& b) {
  if (a.count == 0) return b;
  if (b.count == 0) return a;
  WelfordState<T> r;
  r.count = a.count + b.count;
  const T n = static_cast<T>(r.count);
  const T delta = b.mean - a.mean;
  const T wb = static_cast<T>(b.count) / n, wab = static_cast<T>(a.count) * static_cast<T>(b.count) / n;
  if constexpr (kFma) {
    r.mean = std::fma(delta, wb, a.mean);
    r.m2 = std::fma(delta * delta, wab, a.m2 + b.m2);
  } else {
    r.mean = a.mean + delta * wb;
    r.m2 = a.m2 + b.m2 + delta * delta * wab;
  }
  return r;
}

template <typename T>
WelfordState<T> welford_update(WelfordState<T> s, T x) { return welford_update_as<false>(s, x); }
template <typename T>
WelfordState<T> welford_update_fma(WelfordState<T> s, T x) { return welford_update_as<true>(s, x); }
template <typename T>
WelfordState<T> chan_merge(const WelfordState<T>& a, const WelfordState<T>& b) { return chan_merge_as<false>(a, b); }
template <typename T>
WelfordState<T> chan_merge_fma(const WelfordState<T>& a, const WelfordState<T>& b) { return chan_merge_as<true>(a, b); }

/// Lane-parallel Welford: element i goes to lane i mod L, then a binary tree
/// merges lanes (2k, 2k+1), then (4k, 4k+2), ... (L a power of two).
template <typename T, typename X>
WelfordState<T> welford_lanes(std::span<const X> x, int lanes) {
  std::vector<WelfordState<T>> lane(static_cast<size_t>(lanes));
  for (size_t i = 0; i < x.size(); ++i) lane[i % lanes] = welford_update(lane[i % lanes], static_cast<T>(x[i]));
  for (int stride = 1; stride < lanes; stride *= 2)
    for (int k = 0; k + stride < lanes; k += 2 * stride) lane[k] = chan_merge(lane[k], lane[k + stride]);
  return lane[0];
}

/// fp64 reference statistics (two-pass in double) of the stored input values.
RowStats reference_stats(std::span<const double> x, NormKind kind, double eps);
/// fp64 reference output y_i = gamma_i (x_i - mu) rstd + beta_i (beta empty: none).
void reference_output(std::span<const double> x, const RowStats& s, std::span<const float> gamma,
                      std::span<const float> beta, std::span<double> y);

/// Per-row LayerNorm statistics of fp32 rows as a backward pass reads them:
/// mean and 1/sqrt(var + eps), each a plain (uncompensated) fp64 two-pass
/// sum, rounded to fp32. gpu_ref's harness hands these to its backward
/// kernels and the SIMT emulation replays them, so both call this one.
void reference_stats_fp32(std::span<const float> x, int64_t rows, int64_t hidden, double eps, std::vector<float>& mean,
                          std::vector<float>& rstd);

}  // namespace normsim::core
