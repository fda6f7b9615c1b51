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
  bool pass_models = false;  ///< the SIMT model's thresholds, every output bit-exact, every ASIC case bit-exact
  bool pass = false;         ///< and the ASIC model's time within its threshold
};

/// `golden_dir` holds index.json's .npy outputs and the rsqrtf table (rsqrt_delta.npy.gz).
RegressResult regress(const std::vector<GoldenCase>& cases, const simt::GpuArch& gpu, const std::string& golden_dir);

nlohmann::json to_json(const RegressResult& r);
/// Per-kernel and per-counter tables, as printed and as docs/FIDELITY.md shows them.
std::string format_text(const RegressResult& r);

}  // namespace normsim::validate
