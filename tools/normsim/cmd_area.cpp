// `normsim area`: the datapath's area per unit from sim/area's analytic
// model and, with --synth, yosys's synthesis of the same units from
// rtl_models/ at the arch's widths.
#include <iostream>
#include <optional>

#include "command.hpp"
#include "progress.hpp"
#include "sim/report/report_stamp.hpp"
#include "sim/area/area_energy.hpp"
#include "sim/asic/asic_run.hpp"
#include "sim/asic/traffic_identity.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/report/area_report.hpp"
#include "sim/rtl/synthesis.hpp"

namespace normsim::cli {

namespace {

struct AreaArgs {
  InputArgs in;
  bool synth = false, json = false;
  std::string rtl_dir = data_path("rtl_models"), synth_dir, path, sram = "required";
};

int area_command(const AreaArgs& a) {
  const Inputs in = load_inputs(a.in);
  const core::DatapathConfig dp = config::datapath_config(in.workload, in.arch);
  // A backward workload's unit is the backward's (docs/ASIC.md, "Backward").
  const std::optional<core::BackwardConfig> backward =
      in.workload.is_backward() ? std::optional(config::backward_config(in.workload, in.arch)) : std::nullopt;
  const core::BackwardConfig* bw = backward ? &*backward : nullptr;
  const std::string node = in.arch.asic ? in.arch.asic->node : "7nm";
  // The SRAM `run` costs: what the input path needs (row buffers, re-read
  // FIFO, parameters); or, asked for, the capacity the arch configures.
  report::SramCost sram;
  int merge_level_cycles = config::ChanMergeTreeParams{}.level_cycles;
  if (in.arch.asic) {
    asic::AsicOptions o;
    o.path = parse_path_flag(a.path);
    const asic::AsicConfig cfg = asic::resolve_asic_config(in.workload, in.arch, o);
    merge_level_cycles = cfg.tree_level_cycles(in.workload.is_backward());
    sram.path = asic::to_string(cfg.path);
    sram.required_bytes = static_cast<double>(asic::traffic_identity(in.workload, in.arch, cfg).onchip_bytes());
    sram.configured_bytes = static_cast<double>(cfg.sram.capacity_bytes);
    sram.banks = cfg.sram.banks;
    sram.ports = cfg.sram.ports;
    sram.costing = a.sram == "configured" ? report::SramCosting::configured : report::SramCosting::required;
  } else if (!a.path.empty() || a.sram != "required") {
    throw config::ConfigError(in.arch.source + ": key 'asic': missing: --path and --sram need the timing model's SRAM");
  }
  const area::AreaReport ar = area::estimate_area(dp, {sram.costed_bytes(), sram.banks, sram.ports}, node, merge_level_cycles, bw);
  std::vector<rtl::DatapathUnitSynthesis> syn;
  if (a.synth) {
    ProgressLine::get().phase("synthesising the units with yosys");
    const auto yosys = rtl::find_yosys();
    if (!yosys) throw config::ConfigError("area: --synth needs yosys on PATH (tools/bootstrap.sh installs it)");
    syn = rtl::synthesize_datapath(in.arch, dp, a.rtl_dir, *yosys, a.synth_dir, bw);
  }
  const nlohmann::json report = report::area_report_json(in.arch.name, in.workload.name, ar, sram, syn);
  check_report(report, "area");
  if (a.json) std::cout << report::report_text(report, 2) << "\n";
  else
    std::cout << report::area_report_text(in.arch.name, in.workload.name, dp.hidden, ar, sram, syn, a.synth,
                                          a.synth || rtl::find_yosys().has_value());
  return kExitOk;
}

}  // namespace

Command add_area(CLI::App& app) {
  auto a = std::make_shared<AreaArgs>();
  auto* c = app.add_subcommand("area", "area of the datapath units: the analytic model and, with --synth, yosys");
  c->fallthrough();
  add_input_options(c, a->in, {"arch", "; its hidden size sizes the 1/n table", ": arch.formats.mean.bits=28", ""});
  c->add_flag("--synth", a->synth, "also synthesise each unit's RTL with yosys (a minute or two)");
  c->add_option("--synth-dir", a->synth_dir, "keep each unit's yosys script, ROM stubs and log in DIR/<unit>/");
  c->add_option("--rtl-dir", a->rtl_dir, "directory of the Verilog units (default: this checkout's rtl_models)");
  c->add_option("--path", a->path, "input path whose SRAM is costed: " + config::kInputPaths.joined() + " (default: the arch's)");
  c->add_option("--sram", a->sram, "SRAM costed: required (what the path needs, as `run` costs it) or configured (asic.sram.capacity_bytes)")
      ->check(CLI::IsMember({"required", "configured"}));
  c->add_flag("--json", a->json, "print the report as one JSON object on stdout");
  return {c, [a] { return area_command(*a); }};
}

}  // namespace normsim::cli
