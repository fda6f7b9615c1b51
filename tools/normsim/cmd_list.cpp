// `normsim list [workloads|archs|gpus|studies|kernels|rsqrt-units]`: what
// can be named without a path. Every line comes from a registry: the shipped
// configs (sim/config/shipped_configs.hpp), the kernel table
// (sim/simt/kernels) and the RSQRT units (sim/core/rsqrt_kind.hpp).
#include <iostream>

#include "command.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/printable.hpp"
#include "sim/config/shipped_configs.hpp"
#include "sim/core/rsqrt_kind.hpp"
#include "sim/simt/kernels/kernel_registry.hpp"

namespace normsim::cli {

namespace {

constexpr config::ShippedKind kKinds[] = {config::ShippedKind::workload, config::ShippedKind::arch,
                                          config::ShippedKind::gpu, config::ShippedKind::study};

std::string what_allowed() {
  std::string s;
  for (auto k : kKinds) s += std::string(config::plural(k)) + ", ";
  return s + "kernels, rsqrt-units";
}

struct ListArgs {
  std::string what;
  bool json = false;
};

int list(const ListArgs& a) {
  nlohmann::json out = nlohmann::json::object();
  bool known = a.what.empty() || a.what == "kernels" || a.what == "rsqrt-units";
  for (auto k : kKinds) {
    if (!a.what.empty() && a.what != config::plural(k)) continue;
    known = true;
    auto& rows = out[config::plural(k)] = nlohmann::json::array();
    for (const auto& c : config::shipped_configs())
      if (c.kind == k) rows.push_back({{"name", c.name}, {"path", c.path}, {"summary", config::shipped_summary(c)}});
  }
  if (!known)
    throw config::ConfigError("list: unknown list '" + config::printable(a.what) + "' (allowed: " + what_allowed() + ")");
  if (a.what.empty() || a.what == "kernels") {
    auto& rows = out["kernels"] = nlohmann::json::array();
    for (const auto& k : simt::kernel_infos())
      rows.push_back({{"name", k.name}, {"summary", k.description}, {"layernorm", k.layernorm}, {"bf16", k.bf16}});
  }
  if (a.what.empty() || a.what == "rsqrt-units") {
    // The arch's rsqrt.unit values; calibrate_area.py reads each one's depth fit and points.
    auto& rows = out["rsqrt-units"] = nlohmann::json::array();
    for (const auto& k : core::rsqrt_kinds()) {
      nlohmann::json points = nlohmann::json::array();
      for (const auto& p : k.calibration)
        points.push_back({{"datapath_bits", p.datapath_bits}, {"table_bits", p.table_bits}, {"iterations", p.iterations}});
      rows.push_back({{"name", k.name}, {"summary", k.summary}, {"verilog_module", k.verilog_module},
                      {"depth_fit", k.depth_fit}, {"calibration", points}});
    }
  }
  if (a.json) {
    std::cout << out.dump() << "\n";
    return kExitOk;
  }
  for (const auto& [section, rows] : out.items()) {
    if (a.what.empty()) std::cout << section << ":\n";
    size_t width = 0;
    for (const auto& r : rows) width = std::max(width, r["name"].get<std::string>().size());
    for (const auto& r : rows) {
      const std::string name = r["name"];
      std::cout << (a.what.empty() ? "  " : "") << name << std::string(width + 2 - name.size(), ' ')
                << r["summary"].get<std::string>() << "\n";
    }
  }
  return kExitOk;
}

}  // namespace

Command add_list(CLI::App& app) {
  auto a = std::make_shared<ListArgs>();
  auto* c = app.add_subcommand("list", "list what can be named without a path: shipped workloads, archs, GPUs, studies, "
                                       "the GPU kernels and the RSQRT units");
  c->add_option("what", a->what, what_allowed() + " (default: all)");
  c->add_flag("--json", a->json, "print {\"workloads\": [{name, path, summary}], ..., \"kernels\": [...], \"rsqrt-units\": [...]} on stdout");
  return {c, [a] { return list(*a); }};
}

}  // namespace normsim::cli
