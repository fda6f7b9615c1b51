// `normsim regress`: the SIMT model's predictions against the golden cases,
// per case and summarised per counter in Accel-Sim's style (mean absolute
// relative error, max error, correlation), per kernel, and separately on the
// held-out cases that no parameter was ever fitted on.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/simt/asic_crosscheck.hpp"
#include "sim/simt/golden.hpp"
#include "sim/simt/simt_model.hpp"

namespace normsim::simt {

struct CaseResult {
  GoldenCase golden;
  Prediction pred;
  bool held_out = false;
  double dram_read_err = 0, dram_write_err = 0, l2_err = 0, duration_err = 0;  ///< (predicted - measured) / measured
  // Outputs (cases with recorded .npy files): the emulation against the GPU's.
  bool outputs_compared = false;
  bool bit_exact = false;
  uint64_t elements_differing = 0;  ///< y, mean and rstd entries whose bits differ
  double max_ulp = 0;               ///< largest difference in fp32 (bf16: bf16) units in the last place
  /// Outputs summed by atomics (bwd_atomic's dgamma/dbeta): no fixed order
  /// to reproduce, so not part of bit_exact; the largest gap in fp32 ulps.
  double order_free_max_ulp = 0;
  std::string output_error;         ///< why the comparison could not run
};

struct CounterSummary {
  size_t n = 0;
  double mae = 0;      ///< mean |relative error|
  double max_err = 0;  ///< max |relative error|
  double corr = 0;     ///< Pearson correlation of predicted and measured values
};

struct Summary {
  size_t cases = 0;
  size_t outputs_compared = 0, bit_exact = 0;
  CounterSummary dram_read, dram_write, l2, duration;
};

struct Thresholds {
  double dram_read_max_rel_error = 0.05;
  double duration_mae = 0.10;
  double duration_corr = 0.98;
};

/// The DRAM-read elasticity bands regress summarises separately
/// (simt_model.hpp, LaunchPrediction::dram_read_elasticity): below the first
/// edge x is read once or its re-reads sit on a flat part of the reuse
/// curves; past the second the rows in flight are on the L2's cliff.
struct ElasticityBand {
  std::string name;
  double lo = 0, hi = 0;  ///< lo <= elasticity < hi
  Summary summary;
  size_t dram_read_within_target = 0;  ///< cases whose DRAM read is within the per-case threshold
};

struct RegressResult {
  std::vector<CaseResult> cases;
  Summary all, training, held_out;
  std::vector<std::pair<std::string, Summary>> per_kernel;
  std::vector<ElasticityBand> by_elasticity;  ///< every case in exactly one band
  /// The ASIC datapath configured as the GPU kernels (asic_crosscheck.hpp).
  std::vector<AsicCase> asic_cases;
  std::vector<AsicTrafficCase> asic_traffic;  ///< the mapped paths' DRAM identities against ncu
  std::vector<FixedPointCase> fixed_point_cases;  ///< fixed16 on the golden inputs, against the GPU's outputs
  Thresholds thresholds;
  bool pass = false;
};

/// Distance in fp32 units in the last place (NaN against NaN: 0; NaN against a number: infinity).
double ulp_distance(float a, float b);

/// The held-out cases: the ceil(30%) of ids with the smallest FNV-1a hash
/// (fixed by the ids alone, so no one can choose them after seeing errors).
std::vector<bool> held_out_mask(const std::vector<GoldenCase>& cases);

/// `golden_dir` holds the .npy outputs and the rsqrtf table (rsqrt_delta.npy.gz).
RegressResult regress(const std::vector<GoldenCase>& cases, const GpuArch& gpu, const std::string& golden_dir);

/// Fits the arch parameters marked "fit" in the arch file on the training
/// cases only (coordinate descent over each parameter on a log grid),
/// minimising duration MAE + DRAM read MAE + DRAM write MAE. Returns the
/// fitted arch; `log` receives one line per accepted step.
GpuArch fit_arch(const std::vector<GoldenCase>& cases, const GpuArch& start, std::string* log = nullptr);

/// The fitted parameters' values, one "  key: value" line each (arch-file names).
std::string fitted_parameters(const GpuArch& g);

nlohmann::json to_json(const RegressResult& r);
/// Per-kernel and per-counter tables, as printed and as docs/FIDELITY.md shows them.
std::string format_text(const RegressResult& r);

}  // namespace normsim::simt
