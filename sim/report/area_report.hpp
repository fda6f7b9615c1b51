// The `area` report: each datapath unit's analytic area and, with
// synthesis, yosys's beside it; as JSON and as a table.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/area/area_energy.hpp"
#include "sim/rtl/synthesis.hpp"

namespace normsim::report {

/// `syn`: the units' synthesis (empty without --synth).
nlohmann::json area_report_json(const std::string& arch_name, const std::string& workload_name, const area::AreaReport& ar,
                                const std::vector<rtl::DatapathUnitSynthesis>& syn);
std::string area_report_text(const std::string& arch_name, const std::string& workload_name, int64_t hidden,
                             const area::AreaReport& ar, const std::vector<rtl::DatapathUnitSynthesis>& syn,
                             bool synthesised, bool yosys_found);

}  // namespace normsim::report
