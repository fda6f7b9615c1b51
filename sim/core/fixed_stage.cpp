#include "sim/core/fixed_stage.hpp"

namespace normsim::core {

namespace {
constexpr std::array<std::string_view, kStageCount> kNames = {
    "input", "sum", "sumsq", "mean", "m2", "recip", "variance", "rsqrt_in", "rsqrt_out", "xhat", "gamma", "beta",
    "output"};
}

std::string_view to_string(Stage s) { return kNames[static_cast<int>(s)]; }

std::optional<Stage> parse_stage(std::string_view s) {
  for (int i = 0; i < kStageCount; ++i)
    if (kNames[i] == s) return static_cast<Stage>(i);
  return std::nullopt;
}

void StageCounters::add(const StageCounters& o) {
  for (int i = 0; i < kStageCount; ++i) {
    quantizations[i] += o.quantizations[i];
    overflows[i] += o.overflows[i];
  }
  negative_variance_clamps += o.negative_variance_clamps;
}

}  // namespace normsim::core
