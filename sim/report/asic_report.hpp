// Reports of the ASIC model: the `run` JSON (timing, traffic, area, energy,
// and numerics unless timing-only), its console summary, and the `compare`
// table across input paths.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/asic/asic_run.hpp"
#include "sim/report/area_report.hpp"

namespace normsim::report {

nlohmann::json asic_report_json(const asic::AsicResult& r);
std::string asic_summary_table(const asic::AsicResult& r, const nlohmann::json& report);
/// One row per path from `compare`'s JSON ({"mode", "paths": [report or
/// {"path", "infeasible"}]}): a path that cannot be built gives its reason.
std::string compare_table(const nlohmann::json& comparison);

}  // namespace normsim::report
