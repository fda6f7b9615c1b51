#include "sim/core/error_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace normsim::core {

void ErrorMetrics::add(std::span<const double> out, std::span<const double> ref, std::span<const double> ulp) {
  for (size_t i = 0; i < out.size(); ++i) {
    ++n_;
    sq_ref_ += static_cast<long double>(ref[i]) * ref[i];
    if (!std::isfinite(out[i])) {
      ++nonfinite_;
      continue;
    }
    const double e = std::fabs(out[i] - ref[i]);
    sq_err_ += static_cast<long double>(e) * e;
    max_abs_ = std::max(max_abs_, e);
    const double u = e / ulp[i];
    max_ulp_ = std::max(max_ulp_, u);
    if (u <= 1.0) ++within_;
  }
}

void ErrorMetrics::merge(const ErrorMetrics& o) {
  n_ += o.n_;
  nonfinite_ += o.nonfinite_;
  within_ += o.within_;
  sq_err_ += o.sq_err_;
  sq_ref_ += o.sq_ref_;
  max_abs_ = std::max(max_abs_, o.max_abs_);
  max_ulp_ = std::max(max_ulp_, o.max_ulp_);
}

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

double ErrorMetrics::max_abs() const { return nonfinite_ ? kInf : max_abs_; }
double ErrorMetrics::rms() const {
  if (nonfinite_) return kInf;
  return n_ ? static_cast<double>(std::sqrt(sq_err_ / n_)) : 0.0;
}
double ErrorMetrics::rel_l2() const {
  if (nonfinite_) return kInf;
  return sq_ref_ > 0 ? static_cast<double>(std::sqrt(sq_err_ / sq_ref_)) : static_cast<double>(std::sqrt(sq_err_));
}
double ErrorMetrics::max_ulp() const { return nonfinite_ ? kInf : max_ulp_; }
double ErrorMetrics::frac_within_1ulp() const { return n_ ? static_cast<double>(within_) / n_ : 1.0; }

}  // namespace normsim::core
