// Output error against the fp64 reference, accumulated row by row in O(1)
// memory: max abs, RMS, relative L2, max ULP and the fraction within 1 ULP.
#pragma once

#include <cstdint>
#include <span>

namespace normsim::core {

class ErrorMetrics {
 public:
  /// `inv_ulp[i]` is 1 / (the output format's spacing at the reference value):
  /// a power of two for every float and fixed format, so |err| * inv_ulp is
  /// the exact error in ULPs (and a multiply, not a divide, per element).
  void add(std::span<const double> out, std::span<const double> ref, std::span<const double> inv_ulp);
  void merge(const ErrorMetrics& o);

  uint64_t elements() const { return n_; }
  uint64_t nonfinite() const { return nonfinite_; }  ///< NaN/Inf outputs (their error is infinite)
  double max_abs() const;      ///< +inf when any output is non-finite
  double rms() const;          ///< sqrt(mean (out - ref)^2), +inf when non-finite
  double rel_l2() const;       ///< ||out - ref||_2 / ||ref||_2
  double max_ulp() const;      ///< max |out - ref| / ulp
  double frac_within_1ulp() const;

 private:
  uint64_t n_ = 0, nonfinite_ = 0, within_ = 0;
  double sq_err_ = 0, sq_ref_ = 0;      // per-row partial sums are added in at row end
  double sq_err_c_ = 0, sq_ref_c_ = 0;  // Kahan compensation of the running totals
  double max_abs_ = 0, max_ulp_ = 0;
};

}  // namespace normsim::core
