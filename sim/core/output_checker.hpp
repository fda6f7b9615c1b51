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
  std::vector<std::string> warnings;  ///< from DatapathConfig::warnings()
};

/// The outputs a run keeps for .npy (empty unless asked): y as stored in the
/// output tensor's type, and the per-row statistics.
struct KeptOutputs {
  std::vector<double> y, mean, rstd;
};

/// Names the variance algorithm the datapath runs and carries its config warnings.
void init_numerics(NumericsResult& num, const NormProblem& p, const DatapathConfig& cfg);

class OutputChecker {
 public:
  /// `output_lsb` is the datapath's output resolution (0 for fp32), `output`
  /// its output stage's format (named in the ULP unit of a fixed datapath).
  OutputChecker(const NormProblem& p, const FixedFormat& output, double output_lsb, std::vector<float> gamma,
                std::vector<float> beta, bool keep_outputs, NumericsResult& num);

  /// `y` holds the datapath's values; it is rounded in place to the output type.
  void check_row(std::span<const double> x, std::span<double> y, const RowStats& s);

  KeptOutputs kept;  ///< kept outputs

 private:
  const NormProblem& p_;
  double out_lsb_;
  std::vector<float> gamma_, beta_;
  bool keep_;
  NumericsResult& num_;
  std::vector<double> ref_, inv_ulp_;  ///< per row: fp64 reference, 1 / ULP
};

}  // namespace normsim::core
