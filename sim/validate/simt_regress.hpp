// The SIMT model against the golden cases: each case's DRAM bytes, L2 bytes
// and duration against ncu, and its emulated fp32 outputs against the GPU's
// .npy files bit for bit; summarised per counter in Accel-Sim's style (mean
// absolute relative error, max error, correlation), per kernel, by the
// prediction's DRAM-read elasticity, and separately on the held-out cases
// that no parameter was ever fitted on.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/simt/emulate.hpp"
#include "sim/simt/simt_model.hpp"
#include "sim/validate/golden.hpp"
#include "sim/validate/ncu_profile.hpp"

namespace normsim::validate {

struct CaseResult {
  GoldenCase golden;
  simt::Prediction pred;
  bool held_out = false;
  double dram_read_err = 0, dram_write_err = 0, l2_err = 0, duration_err = 0;  ///< (predicted - measured) / measured
  /// The measured value inside the prediction's range (simt::PredictionRanges).
  bool dram_read_in_range = false, dram_write_in_range = false, l2_in_range = false, duration_in_range = false;
  // Outputs (cases with recorded .npy files): the emulation against the GPU's.
  bool outputs_compared = false;
  bool bit_exact = false;
  uint64_t elements_differing = 0;  ///< y, mean and rstd entries whose bits differ
  double max_ulp = 0;               ///< largest difference in fp32 (bf16: bf16) units in the last place
  /// Outputs summed by atomics (bwd_atomic's dgamma/dbeta): no fixed order
  /// to reproduce, so not part of bit_exact; the largest gap in fp32 ulps.
  double order_free_max_ulp = 0;
  std::string output_error;         ///< why the comparison could not run
  // Warp states (cases ncu_profile.json holds): the model's against ncu's.
  bool warps_compared = false;
  simt::WarpProfile ncu_warps;
  bool dominant_agrees = false;  ///< the same state has the largest share
  bool limiter_agrees = false;   ///< simt::limiter of both profiles is the same
};

/// The predicted warp profiles against ncu's over a set of cases.
struct WarpStateSummary {
  size_t n = 0, dominant_agree = 0, limiter_agree = 0;
  std::array<double, simt::kWarpStates> share_mad{};  ///< mean |predicted - measured| share, per state
  double occupancy_mad = 0, issue_active_mad = 0, dram_throughput_mad = 0;  ///< mean |difference| of the fractions
  double dominant_rate() const { return n ? static_cast<double>(dominant_agree) / static_cast<double>(n) : 1.0; }
  double limiter_rate() const { return n ? static_cast<double>(limiter_agree) / static_cast<double>(n) : 1.0; }
  /// The largest of share_mad, and its state.
  double worst_share_mad() const;
  simt::WarpState worst_share_state() const;
};

struct CounterSummary {
  size_t n = 0;
  double mae = 0;      ///< mean |relative error|
  double max_err = 0;  ///< max |relative error|
  double corr = 0;     ///< Pearson correlation of predicted and measured values
};

/// How often a counter's measured value lies inside its predicted range,
/// and how wide the ranges are relative to the prediction.
struct RangeSummary {
  size_t n = 0, inside = 0;
  double median_width = 0;  ///< median of (hi - lo) / predicted
  double coverage() const { return n ? static_cast<double>(inside) / static_cast<double>(n) : 1.0; }
};

struct Summary {
  size_t cases = 0;
  size_t outputs_compared = 0, bit_exact = 0;
  CounterSummary dram_read, dram_write, l2, duration;
  RangeSummary dram_read_range, dram_write_range, l2_range, duration_range;
  WarpStateSummary warps;
};

/// The DRAM-read elasticity bands the regression summarises separately
/// (simt_model.hpp, LaunchPrediction::dram_read_elasticity): below the first
/// edge x is read once or its re-reads sit on a flat part of the reuse
/// curves; past the second the rows in flight are on the L2's cliff.
struct ElasticityBand {
  std::string name;
  double lo = 0, hi = 0;  ///< lo <= elasticity < hi
  Summary summary;
  size_t dram_read_within_target = 0;  ///< cases whose DRAM read is within the firm cases' per-case threshold
};

/// A case whose error on a counter is more than the slack above its
/// committed baseline (RegressBaseline).
struct BaselineMiss {
  std::string id, counter;
  double baseline = 0, now = 0;  ///< |relative error|
};

struct SimtRegression {
  std::vector<CaseResult> cases;
  Summary all, training, held_out;
  std::vector<std::pair<std::string, Summary>> per_kernel;
  std::vector<ElasticityBand> by_elasticity;  ///< every case in exactly one band
};

/// Distance in fp32 units in the last place (NaN against NaN: 0; NaN against a number: infinity).
double ulp_distance(float a, float b);

/// (predicted - measured) / measured; 0 when both are 0, infinite when only the measurement is.
double rel_error(double predicted, double measured);

/// The held-out cases: the ceil(30%) of ids with the smallest FNV-1a hash
/// (fixed by the ids alone, so no one can choose them after seeing errors).
std::vector<bool> held_out_mask(const std::vector<GoldenCase>& cases);

/// The four counters (named once, kBaselineCounters) in reports, baselines
/// and JSON, with the error each case holds.
struct CounterField {
  const char* name;
  double CaseResult::*err;
};
inline constexpr CounterField kCounterFields[] = {{kBaselineCounters[0], &CaseResult::dram_read_err},
                                                  {kBaselineCounters[1], &CaseResult::dram_write_err},
                                                  {kBaselineCounters[2], &CaseResult::l2_err},
                                                  {kBaselineCounters[3], &CaseResult::duration_err}};
static_assert(std::size(kCounterFields) == kBaselineCounters.size());

/// Every case predicted on `gpu`; outputs compared where recorded (`golden_dir`
/// holds the .npy files), the kernels' rsqrtf replayed from `rsqrt`; warp
/// states against `ncu`'s profiles where it holds the case.
SimtRegression simt_regression(const std::vector<GoldenCase>& cases, const simt::GpuArch& gpu,
                               const std::string& golden_dir, const simt::HardwareRsqrt& rsqrt,
                               const NcuProfiles& ncu = {});

}  // namespace normsim::validate
