// `normsim regress` for a terminal: the per-kernel and per-counter tables,
// the ranges, the warp states, the outputs, the ASIC cases and the
// thresholds, from the report body sim/validate's `to_json(RegressResult)`
// makes (as docs/FIDELITY.md shows them).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace normsim::report {

std::string regress_report_text(const nlohmann::json& regress);

}  // namespace normsim::report
