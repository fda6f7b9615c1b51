// Reports of the ASIC model: the `run` JSON (timing, traffic, area, energy,
// and numerics unless timing-only), its console summary, and the `compare`
// table across input paths.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/asic/asic_run.hpp"

namespace normsim::report {

nlohmann::json asic_report_json(const asic::AsicResult& r);
std::string asic_summary_table(const asic::AsicResult& r, const nlohmann::json& report);
/// One row per path from `compare`'s per-path reports.
std::string compare_table(const std::vector<nlohmann::json>& reports);

}  // namespace normsim::report
