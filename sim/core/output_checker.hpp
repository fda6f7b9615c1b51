// What happens to a row once the datapath has produced it: rounding into the
// output tensor's element type, comparison with the fp64 reference of the same
// stored inputs, and (optionally) keeping it for .npy. Shared by the
// functional run and the SystemC model so both report the same numerics.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sim/core/error_metrics.hpp"
#include "sim/core/fixed_stage.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/core/norm_problem.hpp"

namespace normsim::core {

struct NumericsResult {
  VarianceAlgorithm algorithm{};
  std::string algorithm_name;  ///< "welford" ..., or "sum-of-squares" for RMSNorm
  ErrorMetrics output_error;
  std::string ulp_unit;        ///< what one ULP is (e.g. "bf16 ulp at |ref|", "lsb of s16.11")
  double mean_max_abs_error = 0;
  double rstd_max_rel_error = 0;
  StageCounters counters;
  uint64_t input_saturations = 0;     ///< int8 input codes clipped while generating
  ResidualAddCounters residual_add;   ///< a residual workload's adder (residual_add.hpp)
  std::vector<std::string> warnings;  ///< from DatapathConfig::warnings()
};

/// Adds a part's counts and errors into `into` (rows checked elsewhere, e.g.
/// on another thread): sums, maxima, non-finite errors kept.
void merge_numerics(NumericsResult& into, const NumericsResult& part);

/// The outputs a run keeps for .npy (empty unless asked): y as stored in the
/// output tensor's type, the per-row statistics, and (when asked) the stored
/// inputs and the fp64 reference, all row-major.
struct KeptOutputs {
  std::vector<double> y, mean, rstd;
  std::vector<double> x, y_ref;  ///< only with inputs kept
  /// Sizes every array for rows x hidden (x and y_ref too when `inputs`).
  void allocate(int64_t rows, int64_t hidden, bool inputs);
  bool empty() const { return y.empty(); }
};

/// Names the variance algorithm the datapath runs and what one ULP of its
/// error is, and carries its config warnings.
void init_numerics(NumericsResult& num, const NormProblem& p, const DatapathConfig& cfg);

class OutputChecker {
 public:
  /// `keep`, if given, is allocated (KeptOutputs::allocate) and receives each
  /// checked row at its place. One checker per thread; rows in any order.
  OutputChecker(const NormProblem& p, double output_lsb, std::vector<float> gamma, std::vector<float> beta,
                KeptOutputs* keep = nullptr);

  /// `y` holds the datapath's values; it is rounded in place to the output
  /// type, compared with the fp64 reference and counted into `num`.
  void check_row(int64_t row, std::span<const double> x, std::span<double> y, const RowStats& s, NumericsResult& num);

 private:
  const NormProblem& p_;
  double out_lsb_;
  std::vector<float> gamma_, beta_;
  KeptOutputs* keep_;
  std::vector<double> ref_, inv_ulp_;  ///< per row: fp64 reference, 1 / ULP
};

}  // namespace normsim::core
