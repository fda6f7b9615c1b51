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

RowStats fp32_stats(std::span<const float> x, const Fp32Options& o, bool* clamped) {
  RowStats r;
  if (clamped) *clamped = false;
  const float n = static_cast<float>(x.size());
  float mean = 0.0f, var = 0.0f;
  if (o.kind == NormKind::rmsnorm) {
    float ss = 0.0f;
    for (float v : x) ss = ss + v * v;
    var = ss / n;
  } else {
    switch (o.algorithm) {
      case VarianceAlgorithm::two_pass: {
        float sum = 0.0f;
        for (float v : x) sum = sum + v;
        mean = sum / n;
        float m2 = 0.0f;
        for (float v : x) {
          const float d = v - mean;
          m2 = m2 + d * d;
        }
        var = m2 / n;
        break;
      }
      case VarianceAlgorithm::single_pass: {
        float sum = 0.0f, sum2 = 0.0f;
        for (float v : x) {
          sum = sum + v;
          sum2 = sum2 + v * v;
        }
        mean = sum / n;
        var = sum2 / n - mean * mean;
        if (o.variance_clamp && var < 0.0f) {
          var = 0.0f;
          if (clamped) *clamped = true;
        }
        break;
      }
      case VarianceAlgorithm::welford: {
        const auto s = welford_lanes<float>(x, o.lanes);
        mean = s.mean;
        var = s.m2 / n;
        break;
      }
    }
  }
  r.mean = mean;
  r.var = var;
  r.rstd = 1.0f / std::sqrt(var + o.eps);  // IEEE sqrt and division, as the golden kernels
  return r;
}

void fp32_normalize(std::span<const float> x, float mean, float rstd, std::span<const float> gamma,
                    std::span<const float> beta, std::span<float> y) {
  for (size_t i = 0; i < x.size(); ++i) {
    const float xhat = (x[i] - mean) * rstd;
    float v = xhat * gamma[i];
    if (!beta.empty()) v = v + beta[i];
    y[i] = v;
  }
}

}  // namespace normsim::core
