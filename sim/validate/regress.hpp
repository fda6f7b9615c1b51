// `normsim regress`: every check of the models against the golden H200 data
// -- the SIMT model's traffic, duration and emulated outputs
// (simt_regress.hpp), the ASIC datapath as the GPU kernels bit for bit
// (asic_outputs.hpp), its input paths' DRAM bytes (asic_traffic.hpp) and
// time (asic_time.hpp), a 16-bit datapath's error on the same inputs
// (fixed_point.hpp) -- against the thresholds of thresholds.hpp.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/validate/asic_outputs.hpp"
#include "sim/validate/asic_time.hpp"
#include "sim/validate/asic_traffic.hpp"
#include "sim/validate/fixed_point.hpp"
#include "sim/validate/golden.hpp"
#include "sim/validate/simt_regress.hpp"
#include "sim/validate/thresholds.hpp"

namespace normsim::validate {

struct RegressResult : SimtRegression {
  std::vector<AsicCase> asic_cases;           ///< the ASIC datapath configured as each kernel, against its outputs
  std::vector<AsicTrafficCase> asic_traffic;  ///< the mapped paths' DRAM identities against ncu
  std::vector<FixedPointCase> fixed_point_cases;  ///< fixed16 on the golden inputs, against the GPU's outputs
  AsicTime asic_time;                         ///< the ASIC model as the GPU, in time
  Thresholds thresholds = kThresholds;
  std::vector<std::string> firm_read_misses;   ///< firm cases whose DRAM read is past the per-case threshold
  std::vector<std::string> read_outside_range;  ///< cases whose measured DRAM read is outside its range
  std::string baseline_file;                    ///< empty: no baseline was checked
  std::vector<BaselineMiss> baseline_misses;    ///< cases worse than their baseline by more than the slack
  std::vector<std::string> warp_state_misses;   ///< warp-state thresholds missed over all cases (the gating ones are failures too)
  std::vector<std::string> failures;            ///< one line per threshold missed
  bool pass_models = false;  ///< the SIMT model's thresholds, every output bit-exact, every ASIC case bit-exact
  bool pass = false;         ///< and the ASIC model's time within its threshold
};

/// `golden_dir` holds index.json's .npy outputs and the rsqrtf table
/// (rsqrt_delta.npy.gz); `baseline`, when given, the errors no case may
/// exceed by more than the slack.
RegressResult regress(const std::vector<GoldenCase>& cases, const simt::GpuArch& gpu, const std::string& golden_dir,
                      const RegressBaseline* baseline = nullptr, const std::string& baseline_file = "");

/// Every case's |relative error| per counter, as a baseline file's JSON.
nlohmann::json baseline_json(const SimtRegression& r, const std::string& gpu_name);

/// The report body (sim/report/regress_report.hpp prints it for a terminal).
nlohmann::json to_json(const RegressResult& r);

}  // namespace normsim::validate
