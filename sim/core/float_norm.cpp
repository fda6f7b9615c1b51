#include "sim/core/float_norm.hpp"

#include <cmath>

namespace normsim::core {

namespace {
// Neumaier-compensated sum: the reference must not itself lose bits to
// rounding (e.g. 65536 terms near 1e4), and double with compensation is
// as exact as needed at a fraction of long double's cost.
struct CompensatedSum {
  double sum = 0, c = 0;
  void add(double v) {
    const double t = sum + v;
    c += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  double value() const { return sum + c; }
};
}  // namespace

RowStats reference_stats(std::span<const double> x, NormKind kind, double eps) {
  RowStats s;
  const double n = static_cast<double>(x.size());
  if (kind == NormKind::layernorm) {
    CompensatedSum sum;
    for (double v : x) sum.add(v);
    const double mean = sum.value() / n;
    CompensatedSum m2;
    for (double v : x) m2.add((v - mean) * (v - mean));
    s.mean = mean;
    s.var = m2.value() / n;
  } else {
    CompensatedSum ss;
    for (double v : x) ss.add(v * v);
    s.var = ss.value() / n;
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
