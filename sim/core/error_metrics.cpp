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

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void ErrorMetrics::add(std::span<const double> out, std::span<const double> ref, std::span<const double> inv_ulp) {
  // Four independent accumulators (lanes of a vector unit), combined at the
  // end of the row; then into the compensated running totals. Branch-free: a
  // non-finite output is counted and contributes no finite error.
  constexpr size_t K = 4;
  double err[K] = {}, refsq[K] = {}, mabs[K] = {}, mulp[K] = {};
  uint64_t bad[K] = {}, ok[K] = {};
  const size_t n = out.size(), nk = n - n % K;
  auto step = [&](size_t i, size_t k) {
    refsq[k] += ref[i] * ref[i];
    const bool finite = std::isfinite(out[i]);
    bad[k] += !finite;
    const double e = finite ? std::fabs(out[i] - ref[i]) : 0.0;
    err[k] += e * e;
    mabs[k] = e > mabs[k] ? e : mabs[k];
    const double u = e * inv_ulp[i];
    mulp[k] = u > mulp[k] ? u : mulp[k];
    ok[k] += finite && u <= 1.0;
  };
  for (size_t i = 0; i < nk; i += K)
    for (size_t k = 0; k < K; ++k) step(i + k, k);
  for (size_t i = nk; i < n; ++i) step(i, 0);
  double row_err = 0, row_ref = 0;
  for (size_t k = 0; k < K; ++k) {
    row_err += err[k];
    row_ref += refsq[k];
    max_abs_ = std::max(max_abs_, mabs[k]);
    max_ulp_ = std::max(max_ulp_, mulp[k]);
    nonfinite_ += bad[k];
    within_ += ok[k];
  }
  n_ += n;
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
