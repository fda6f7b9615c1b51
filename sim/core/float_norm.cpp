#include "sim/core/float_norm.hpp"

#include <cmath>

namespace normsim::core {

namespace {
// Neumaier-compensated sums: the reference must not itself lose bits to
// rounding (e.g. 65536 terms near 1e4), and double with compensation is as
// exact as needed at a fraction of long double's cost. Eight independent
// lanes (element i in lane i mod 8, a vector unit's width), combined in lane
// order with compensation: a fixed order, so the same bits every run.
constexpr size_t kLanes = 8;

struct CompensatedSum {
  double sum = 0, c = 0;
  void add(double v) {
    const double t = sum + v;
    c += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  double value() const { return sum + c; }
};

template <class Term>
double compensated_sum(size_t n, Term term) {
  double sum[kLanes] = {}, c[kLanes] = {};
  const size_t nk = n - n % kLanes;
  for (size_t i = 0; i < nk; i += kLanes)
    for (size_t k = 0; k < kLanes; ++k) {
      const double v = term(i + k);
      const double t = sum[k] + v;
      c[k] += std::fabs(sum[k]) >= std::fabs(v) ? (sum[k] - t) + v : (v - t) + sum[k];
      sum[k] = t;
    }
  CompensatedSum total;
  for (size_t k = 0; k < kLanes; ++k) {
    total.add(sum[k]);
    total.add(c[k]);
  }
  for (size_t i = nk; i < n; ++i) total.add(term(i));
  return total.value();
}
}  // namespace

RowStats reference_stats(std::span<const double> x, NormKind kind, double eps) {
  RowStats s;
  const double n = static_cast<double>(x.size());
  const double* p = x.data();
  if (kind == NormKind::layernorm) {
    const double mean = compensated_sum(x.size(), [p](size_t i) { return p[i]; }) / n;
    s.mean = mean;
    s.var = compensated_sum(x.size(), [p, mean](size_t i) { return (p[i] - mean) * (p[i] - mean); }) / n;
  } else {
    s.var = compensated_sum(x.size(), [p](size_t i) { return p[i] * p[i]; }) / n;
  }
  s.rstd = 1.0 / std::sqrt(s.var + eps);
  return s;
}

void reference_output(std::span<const double> x, const RowStats& s, std::span<const float> gamma,
                      std::span<const float> beta, std::span<double> y) {
  for (size_t i = 0; i < x.size(); ++i) {
    const double xhat = (x[i] - s.mean) * s.rstd;
    double v = xhat * gamma[i];
    if (!beta.empty()) v += beta[i];
    y[i] = v;
  }
}

void reference_stats_fp32(std::span<const float> x, int64_t rows, int64_t hidden, double eps, std::vector<float>& mean,
                          std::vector<float>& rstd) {
  mean.assign(static_cast<size_t>(rows), 0.0f);
  rstd.assign(static_cast<size_t>(rows), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x.data() + r * hidden;
    double m = 0, q = 0;
    for (int64_t c = 0; c < hidden; ++c) m += xr[c];
    m /= static_cast<double>(hidden);
    for (int64_t c = 0; c < hidden; ++c) q += (xr[c] - m) * (xr[c] - m);
    mean[static_cast<size_t>(r)] = static_cast<float>(m);
    rstd[static_cast<size_t>(r)] = static_cast<float>(1.0 / std::sqrt(q / static_cast<double>(hidden) + eps));
  }
}

}  // namespace normsim::core
