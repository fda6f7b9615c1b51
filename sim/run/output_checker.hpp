// What happens to a row once the datapath has produced it: rounding into the
// output tensor's element type, comparison with the fp64 reference of the same
// stored inputs, and (optionally) keeping it for .npy. Shared by the
// functional run and the SystemC model so both report the same numerics.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sim/config/arch.hpp"
#include "sim/config/workload.hpp"
#include "sim/core/error_metrics.hpp"
#include "sim/core/fixed_stage.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/core/norm_types.hpp"

namespace normsim::run {

struct NumericsResult {
  core::VarianceAlgorithm algorithm{};
  std::string algorithm_name;  ///< "welford" ..., or "sum-of-squares" for RMSNorm
  core::ErrorMetrics output_error;
  std::string ulp_unit;        ///< what one ULP is (e.g. "bf16 ulp at |ref|", "lsb of s16.11")
  double mean_max_abs_error = 0;
  double rstd_max_rel_error = 0;
  core::StageCounters counters;
  uint64_t input_saturations = 0;     ///< int8 input codes clipped while generating
  std::vector<std::string> warnings;  ///< from DatapathConfig::warnings()
};

/// Names the variance algorithm the datapath runs and carries its config warnings.
void init_numerics(NumericsResult& num, const config::Workload& w, const core::DatapathConfig& cfg);

class OutputChecker {
 public:
  /// `output_lsb` is the datapath's output resolution (0 for fp32).
  OutputChecker(const config::Workload& w, const config::Arch& a, double output_lsb, std::vector<float> gamma,
                std::vector<float> beta, bool keep_outputs, NumericsResult& num);

  /// `y` holds the datapath's values; it is rounded in place to the output type.
  void check_row(std::span<const double> x, std::span<double> y, const core::RowStats& s);

  std::vector<double> y, mean, rstd;  ///< kept outputs

 private:
  const config::Workload& w_;
  double out_lsb_;
  std::vector<float> gamma_, beta_;
  bool keep_;
  NumericsResult& num_;
  std::vector<double> ref_, inv_ulp_;  ///< per row: fp64 reference, 1 / ULP
};

}  // namespace normsim::run
