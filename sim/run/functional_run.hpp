// Streams a workload through the configured datapath row by row (memory is a
// few rows, unless outputs are kept), comparing every output with the fp64
// reference of the same stored inputs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/config/arch.hpp"
#include "sim/config/workload.hpp"
#include "sim/core/error_metrics.hpp"
#include "sim/core/fixed_stage.hpp"
#include "sim/run/output_checker.hpp"

namespace normsim::run {

struct RunOptions {
  std::optional<core::VarianceAlgorithm> algorithm;  ///< overrides the arch's
  bool keep_outputs = false;                         ///< keep y, mean, rstd for .npy
};

struct RunResult {
  config::Workload workload;
  config::Arch arch;
  NumericsResult numerics;
  // Outputs (when kept): y as stored in the output tensor's type, per-row stats.
  std::vector<double> y, mean, rstd;
};

/// The datapath configuration a workload + arch (+ options) describe.
/// Throws config::ConfigError naming the arch file when the combination is invalid.
core::DatapathConfig make_datapath_config(const config::Workload& w, const config::Arch& a,
                                          const RunOptions& opt);

/// Materialises row `r` of the input as stored (rounded to its element type).
void generate_input_row(const config::Workload& w, int64_t r, std::vector<double>& x, uint64_t* saturations);
/// gamma/beta as stored (fp32); beta empty when the workload has none.
void generate_params(const config::Workload& w, std::vector<float>& gamma, std::vector<float>& beta);

RunResult run_functional(const config::Workload& w, const config::Arch& a, const RunOptions& opt);

}  // namespace normsim::run
