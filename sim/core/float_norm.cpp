#include "sim/core/float_norm.hpp"

#include <cmath>

namespace normsim::core {

RowStats reference_stats(std::span<const double> x, NormKind kind, double eps) {
  RowStats s;
  const double n = static_cast<double>(x.size());
  if (kind == NormKind::layernorm) {
    // Two passes in long double: the reference must not itself cancel.
    long double sum = 0;
    for (double v : x) sum += v;
    const long double mean = sum / n;
    long double m2 = 0;
    for (double v : x) m2 += (v - mean) * (v - mean);
    s.mean = static_cast<double>(mean);
    s.var = static_cast<double>(m2 / n);
    s.rstd = static_cast<double>(1.0L / std::sqrt(m2 / n + eps));
  } else {
    long double ss = 0;
    for (double v : x) ss += static_cast<long double>(v) * v;
    s.var = static_cast<double>(ss / n);
    s.rstd = static_cast<double>(1.0L / std::sqrt(ss / n + eps));
  }
  return s;
}

void reference_output(std::span<const double> x, const RowStats& s, std::span<const float> gamma,
                      std::span<const float> beta, std::span<double> y) {
  for (size_t i = 0; i < x.size(); ++i) {
    const long double xhat = (static_cast<long double>(x[i]) - s.mean) * s.rstd;
    long double v = xhat * gamma[i];
    if (!beta.empty()) v += beta[i];
    y[i] = static_cast<double>(v);
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
