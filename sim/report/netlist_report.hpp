// `normsim netlist`: the design a run would build -- its units and the
// channels between their ports (sim/asic/netlist.hpp) -- as JSON, as text
// and as a Graphviz graph.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "sim/asic/netlist.hpp"
#include "sim/config/arch.hpp"
#include "sim/config/asic_params.hpp"

namespace normsim::report {

/// The report body: workload, arch, path, pass, units (name, phase,
/// summary, its parameter section asic.<name> with units, the arch section
/// of its arithmetic if it has one, ports) and channels (name, kind, token,
/// depth_entries, writer, readers).
nlohmann::json netlist_report_json(const std::string& workload, const config::Arch& arch, const std::string& path,
                                   const asic::Netlist& n, const config::AsicConfig& cfg);
/// The same for a terminal: the units, then one line a channel.
std::string netlist_report_text(const nlohmann::json& report);
/// A Graphviz digraph: a node a unit, an edge a channel (writer -> reader).
std::string netlist_report_dot(const nlohmann::json& report);

}  // namespace normsim::report
