// `normsim sweep`: the ASIC model over a grid of configs (the Cartesian
// product of the --grid values, on top of --set), timing only unless
// --numerics; every point validated before any runs, each run in its own
// process; one row per point.
#include <spdlog/spdlog.h>

#include <chrono>
#include <iostream>

#include "command.hpp"
#include "sim/asic/isolated_run.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/sweep_grid.hpp"
#include "sim/report/asic_report.hpp"
#include "sim/report/sweep_report.hpp"

namespace normsim::cli {

namespace {

struct SweepArgs {
  InputArgs in;
  AsicFlags asic;
  std::vector<std::string> grids;
  std::string out_dir;
  bool numerics = false, json = false;
};

int sweep(const SweepArgs& a) {
  using Clock = std::chrono::steady_clock;
  const config::Grid grid = config::parse_grid(a.grids);
  const size_t points = grid.points();
  std::vector<nlohmann::json> rows;
  double sim_seconds = 0;
  for (size_t p = 0; p < points; ++p) {
    InputArgs in = a.in;
    nlohmann::json point = nlohmann::json::object();
    const auto kv = grid.point(p);
    for (auto it = kv.rbegin(); it != kv.rend(); ++it) {  // the first axis applied last: it wins a repeated key
      in.sets.push_back(it->first + "=" + it->second);
      point[it->first] = it->second;
    }
    // Every point is validated here, in the parent: bad input is exit 2 before a child runs.
    AsicFlags flags = a.asic;
    flags.no_numerics = !a.numerics;
    Inputs inputs;
    try {
      inputs = load_inputs(in);
    } catch (const config::ConfigError& e) {
      throw config::ConfigError("sweep point " + point.dump() + ": " + e.what());
    }
    const asic::AsicOptions o = asic_options(flags);
    try {
      (void)asic::resolve_asic_config(inputs.workload, inputs.arch, o);
    } catch (const config::ConfigError& e) {
      throw config::ConfigError("sweep point " + point.dump() + ": " + e.what());
    }
    std::string text;
    const auto t0 = Clock::now();
    if (int rc = asic::run_isolated(
            [&] { return report::asic_report_json(asic::run_asic(inputs.workload, inputs.arch, o)).dump(); },
            "sweep point " + point.dump(), text))
      return rc;
    sim_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    rows.push_back({{"point", point}, {"report", nlohmann::json::parse(text)}});
  }
  spdlog::info("sweep: {} points, {:.2f} ms per point (forked child, {})", points, 1e3 * sim_seconds / points,
               a.numerics ? "bit-accurate" : "timing only");
  std::vector<std::string> keys;
  for (const auto& ax : grid.axes) keys.push_back(ax.key);
  const nlohmann::json all = {{"points", rows}, {"mode", a.numerics ? "bit-accurate" : "timing-only"}};
  if (!a.out_dir.empty()) {
    write_report_file(a.out_dir, "sweep.json", all.dump(2) + "\n");
    write_report_file(a.out_dir, "sweep.csv", report::sweep_csv(keys, rows, a.numerics));
  }
  if (a.json) std::cout << all.dump() << "\n";
  else std::cout << report::sweep_table(keys, rows, a.numerics);
  return kExitOk;
}

}  // namespace

Command add_sweep(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  auto* c = app.add_subcommand("sweep", "run the ASIC model over a grid of configs (timing only unless --numerics)");
  c->fallthrough();
  c->add_option("workload", a->in.workload, "workload YAML (default: the embedded one)");
  c->add_option("--arch", a->in.arch, "architecture YAML with an asic section (default: the embedded one)");
  c->add_option("--grid", a->grids, "KEY=V1,V2,... (repeatable; the points are the Cartesian product)");
  c->add_option("--set", a->in.sets, "override a key for every point (repeatable)");
  c->add_option("--path", a->asic.path, "input path: sram-replay, dram-reread, partial-replay");
  c->add_flag("--numerics", a->numerics, "bit-accurate points (default: timing only)");
  c->add_option("--out", a->out_dir, "directory for sweep.json and sweep.csv");
  c->add_flag("--json", a->json, "print {\"points\": [{point, report}, ...]} on stdout");
  return {c, [a] { return sweep(*a); }};
}

}  // namespace normsim::cli
