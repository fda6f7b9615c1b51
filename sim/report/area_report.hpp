// The `area` report: each datapath unit's analytic area and, with
// synthesis, yosys's beside it; as JSON and as a table.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/area/area_energy.hpp"
#include "sim/rtl/synthesis.hpp"

namespace normsim::report {

/// Which SRAM an area costs: the capacity the input path needs (what run,
/// compare and sweep cost) or the one the arch configures.
enum class SramCosting { required, configured };

/// The SRAM behind an `area` report; no timing model: none.
struct SramCost {
  SramCosting costing = SramCosting::required;
  std::string path;             ///< the input path whose need is `required_bytes` ("" without an asic section)
  double required_bytes = 0;    ///< row buffers + re-read FIFO + parameters
  double configured_bytes = 0;  ///< asic.sram.capacity_bytes
  int banks = 1, ports = 1;     ///< asic.sram.banks and ports: the macros it is built from
  double costed_bytes() const { return costing == SramCosting::required ? required_bytes : configured_bytes; }
  const char* costed() const { return path.empty() ? "none" : costing == SramCosting::required ? "required" : "configured"; }
};

/// `syn`: the units' synthesis (empty without --synth).
nlohmann::json area_report_json(const std::string& arch_name, const std::string& workload_name, const area::AreaReport& ar,
                                const SramCost& sram, const std::vector<rtl::DatapathUnitSynthesis>& syn);
std::string area_report_text(const std::string& arch_name, const std::string& workload_name, int64_t hidden,
                             const area::AreaReport& ar, const SramCost& sram, const std::vector<rtl::DatapathUnitSynthesis>& syn,
                             bool synthesised, bool yosys_found);

}  // namespace normsim::report
