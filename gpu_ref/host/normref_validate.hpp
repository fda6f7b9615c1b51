// Validation of a kernel's outputs against the fp64 reference of sim/core
// (the same reference the simulator uses), and the harness's JSON writer.
//
// Tolerance per output element (documented in gpu_ref/README.md), u = 2^-24:
//   |y - ref| <= K u (|gamma| (|x| + |mean| + sqrt(C) mean|x|) rstd + |beta|) + out_ulp(ref)
// K = 64; sqrt(C) mean|x| bounds the typical rounding error of a row sum of C
// terms in any order (a one-thread sequential sum of 4096 terms reaches it);
// out_ulp is 0 for fp32 output and one bf16 ULP at |ref| for bf16 output. The
// |mean| rstd term is the conditioning of x - mean: a correct fp32 kernel on
// the cancellation distribution (mean 1e4, sigma 1) passes, a single-pass one
// does not. Statistics: |mean - ref| <= K u (1 + sqrt(C)) mean|x|, and
//   |rstd - ref| / ref <= K u (1 + sqrt(C)) + (K u |mean| ref_rstd)^2  (two-pass
// and Welford variances are second-order in the mean's error).
// These catch wrong kernels (errors of order 1) and cancellation; bit-exact
// agreement is the SIMT emulation's job, not the validator's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "host/normref_args.hpp"

namespace normref {

struct ValidationResult {
  bool valid = false;
  int64_t nonfinite = 0;         ///< NaN/Inf outputs: unwritten (poisoned) or broken
  double max_abs_error = 0;
  double rel_l2_error = 0;
  double max_tolerance_ratio = 0;  ///< max |err| / tol over y (<= 1 passes)
  double mean_max_abs_error = 0;
  double rstd_max_rel_error = 0;
  int64_t worst_row = -1, worst_col = -1;
  double param_grad_max_tolerance_ratio = 0;  ///< backward: max |err| / tol over dgamma, dbeta
  std::string reason;            ///< first failed criterion, empty when valid
};

inline constexpr double kTolK = 64.0;

/// x, y are the stored values as float (bf16 widened); gamma/beta fp32;
/// mean/rstd per row (mean ignored for RMSNorm).
ValidationResult validate(const KernelInfo& k, DType dtype, int64_t rows, int64_t hidden, double eps,
                          const std::vector<float>& x, const std::vector<float>& gamma,
                          const std::vector<float>& beta, const std::vector<float>& y,
                          const std::vector<float>& mean, const std::vector<float>& rstd, int threads);

/// The statistics a backward kernel reads: fp64 mean and 1/sqrt(var + eps)
/// of each row of x (two-pass), rounded to fp32 (sim/core's, which the SIMT
/// emulation replays).
void backward_statistics(const std::vector<float>& x, int64_t rows, int64_t hidden, double eps,
                         std::vector<float>& mean, std::vector<float>& rstd);

/// LayerNorm backward against fp64 with the kernel's
/// own fp32 mean/rstd: x_hat = (x - mu) rstd, g = dy gamma,
///   dx = rstd / C (C g - S1 - x_hat S2), S1 = sum g, S2 = sum g x_hat;
///   dgamma = sum_rows dy x_hat, dbeta = sum_rows dy.
/// Tolerances (u = 2^-24, K = kTolK) bound each sum by its absolute terms:
///   |dx - ref| <= K u rstd / C (C |g| + (1 + sqrt C)(sum|g| + |x_hat| sum|g x_hat|)) + out_ulp(ref),
///   |dgamma - ref| <= K u (1 + sqrt rows) sum_rows |dy x_hat| (dbeta: sum |dy|).
ValidationResult validate_backward(DType dtype, int64_t rows, int64_t hidden, const std::vector<float>& x,
                                   const std::vector<float>& dy, const std::vector<float>& gamma,
                                   const std::vector<float>& mean, const std::vector<float>& rstd,
                                   const std::vector<float>& dx, const std::vector<float>& dgamma,
                                   const std::vector<float>& dbeta, int threads);

/// Minimal JSON object writer (no dependencies: the GPU machine has none).
class JsonObject {
 public:
  JsonObject& num(const std::string& k, double v);
  JsonObject& integer(const std::string& k, int64_t v);
  JsonObject& str(const std::string& k, const std::string& v);
  JsonObject& boolean(const std::string& k, bool v);
  JsonObject& raw(const std::string& k, const std::string& json);
  std::string dump() const;

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};
std::string json_escape(const std::string& s);

double median(std::vector<double> v);

}  // namespace normref
