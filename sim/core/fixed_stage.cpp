#include "sim/core/fixed_stage.hpp"

namespace normsim::core {

std::string_view to_string(Stage s) { return kStages.name(s); }

std::optional<Stage> parse_stage(std::string_view s) { return kStages.parse(s); }

void StageCounters::add(const StageCounters& o) {
  for (int i = 0; i < kStageCount; ++i) {
    quantizations[i] += o.quantizations[i];
    overflows[i] += o.overflows[i];
  }
  negative_variance_clamps += o.negative_variance_clamps;
}

}  // namespace normsim::core
