// `normsim netlist`: the units and channels of the ASIC design a `run` of
// the same workload, arch and path would build (sim/asic/netlist.hpp), as
// text, JSON, or a Graphviz graph (--dot FILE; `dot -Tsvg FILE` renders it).
#include <iostream>

#include "command.hpp"
#include "sim/asic/asic_run.hpp"
#include "sim/asic/netlist.hpp"
#include "sim/asic/run_geometry.hpp"
#include "sim/config/config_error.hpp"
#include "sim/report/netlist_report.hpp"
#include "sim/report/report_stamp.hpp"
#include "sim/report/atomic_file.hpp"

namespace normsim::cli {

namespace {

struct NetlistArgs {
  InputArgs in;
  std::string path, dot;
  bool json = false;
};

int netlist_command(const NetlistArgs& a) {
  if (!a.dot.empty()) check_output_file("--dot", a.dot, ".dot", "netlist.dot");
  const Inputs in = load_inputs(a.in);
  if (!in.arch.asic)
    throw config::ConfigError(in.arch.source + ": key 'asic': missing: the netlist is the ASIC timing model's");
  asic::AsicOptions o;
  o.path = parse_path_flag(a.path);
  const asic::AsicConfig cfg = asic::resolve_asic_config(in.workload, in.arch, o);
  const asic::RunGeometry g = asic::make_run_geometry(in.workload, in.arch, cfg);
  const nlohmann::json report =
      report::netlist_report_json(in.workload.name, in.arch, std::string(asic::to_string(cfg.path)),
                                  asic::make_netlist(g, cfg), cfg);
  if (!a.dot.empty()) report::write_file_atomic(a.dot, report::netlist_report_dot(report));
  if (a.json) std::cout << report::report_text(report, 2) << "\n";
  else std::cout << report::netlist_report_text(report);
  return kExitOk;
}

}  // namespace

Command add_netlist(CLI::App& app) {
  auto a = std::make_shared<NetlistArgs>();
  auto* c = app.add_subcommand("netlist", "the units and channels of the ASIC design a run would build");
  c->fallthrough();
  add_input_options(c, a->in, {"arch with an asic section", "", ": arch.asic.rows_in_flight=4", ""});
  c->add_option("--path", a->path, "input path: " + config::kInputPaths.joined() + " (default: the arch's)");
  c->add_option("--dot", a->dot, "also write the netlist as a Graphviz graph to FILE (.dot)");
  c->add_flag("--json", a->json, "print the netlist as one JSON object on stdout");
  return {c, [a] { return netlist_command(*a); }};
}

}  // namespace normsim::cli
