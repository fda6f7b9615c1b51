#include "sim/core/error_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace normsim::core {

namespace {
void kahan_add(double& sum, double& c, double v) {
  const double y = v - c;
  const double t = sum + y;
  c = (t - sum) - y;
  sum = t;
}
}  // namespace

void ErrorMetrics::add(std::span<const double> out, std::span<const double> ref, std::span<const double> inv_ulp) {
  // A row's sums in plain double (at most 2^24 terms), then into the
  // compensated running totals: accurate over billions of elements.
  double row_err = 0, row_ref = 0;
  uint64_t nonfinite = 0, within = 0;
  double max_abs = max_abs_, max_ulp = max_ulp_;
  // Branch-free so the compiler can vectorise it: a non-finite output is
  // counted and contributes no finite error.
  for (size_t i = 0; i < out.size(); ++i) {
    row_ref += ref[i] * ref[i];
    const bool finite = std::isfinite(out[i]);
    nonfinite += !finite;
    const double e = finite ? std::fabs(out[i] - ref[i]) : 0.0;
    row_err += e * e;
    max_abs = std::max(max_abs, e);
    const double u = e * inv_ulp[i];
    max_ulp = std::max(max_ulp, u);
    within += finite && u <= 1.0;
  }
  n_ += out.size();
  nonfinite_ += nonfinite;
  within_ += within;
  max_abs_ = max_abs;
  max_ulp_ = max_ulp;
  kahan_add(sq_err_, sq_err_c_, row_err);
  kahan_add(sq_ref_, sq_ref_c_, row_ref);
}

void ErrorMetrics::merge(const ErrorMetrics& o) {
  n_ += o.n_;
  nonfinite_ += o.nonfinite_;
  within_ += o.within_;
  kahan_add(sq_err_, sq_err_c_, o.sq_err_);
  kahan_add(sq_ref_, sq_ref_c_, o.sq_ref_);
  max_abs_ = std::max(max_abs_, o.max_abs_);
  max_ulp_ = std::max(max_ulp_, o.max_ulp_);
}

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

double ErrorMetrics::max_abs() const { return nonfinite_ ? kInf : max_abs_; }
double ErrorMetrics::rms() const {
  if (nonfinite_) return kInf;
  return n_ ? std::sqrt(sq_err_ / static_cast<double>(n_)) : 0.0;
}
double ErrorMetrics::rel_l2() const {
  if (nonfinite_) return kInf;
  return sq_ref_ > 0 ? std::sqrt(sq_err_ / sq_ref_) : std::sqrt(sq_err_);
}
double ErrorMetrics::max_ulp() const { return nonfinite_ ? kInf : max_ulp_; }
double ErrorMetrics::frac_within_1ulp() const { return n_ ? static_cast<double>(within_) / n_ : 1.0; }

}  // namespace normsim::core
