// `normsim compare`: every input path of the ASIC model (SRAM replay, DRAM
// re-read, partial replay) on one workload, each in its own process, in one
// table -- as the arch configures them, at one SRAM budget (--sram-budget:
// each path's fastest design that fits), or at one throughput
// (--target-cycles: each path's smallest SRAM that meets it). A path that
// cannot be built is a row with its reason, not a failure. With --fuse, each
// path once per fuse mode: a residual workload fused into the unit against
// the separate adder's pass (docs/ASIC.md, "Fusion").
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <thread>

#include "command.hpp"
#include "progress.hpp"
#include "sim/report/report_stamp.hpp"
#include "sim/asic/isolated_run.hpp"
#include "sim/asic/path_fit.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/config/printable.hpp"
#include "sim/report/asic_report.hpp"
#include "sim/report/compare_pick.hpp"
#include "sim/report/sweep_report.hpp"

namespace normsim::cli {

namespace {

struct CompareArgs {
  InputArgs in;
  AsicFlags asic;
  std::string out_dir;
  bool json = false, fail_on_overflow = false;
  int64_t sram_budget = 0;
  double target_cycles = 0;
  std::string fuse;  ///< "": the arch's own mode; else a list or "all"
  std::vector<std::string> across;  ///< "arch.KEY=V1,V2,..." each: each path once per value, the keys paired
  int jobs = 0;      ///< candidates run at once (0: all cores)
};

// --across arch.KEY=V1,V2,...: the key and its values, each once. Every
// value is then applied to the arch as `--set arch.KEY=V` is (its checks, its
// one-line refusals).
std::pair<std::string, std::vector<std::string>> across_values(const std::string& flag) {
  const size_t eq = flag.find('=');
  const std::string allowed = "allowed: arch.KEY=V1,V2,..., e.g. arch.rsqrt.seed=table,linear";
  if (eq == std::string::npos || flag.rfind("arch.", 0) != 0 || eq <= 5)
    throw config::ConfigError("--across: '" + config::printable(flag) + "' is not an arch key with values (" + allowed + ")");
  const std::string key = flag.substr(0, eq);
  std::vector<std::string> values;
  size_t start = eq + 1;
  for (;;) {
    const size_t comma = flag.find(',', start);
    const std::string v = flag.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (v.empty()) throw config::ConfigError("--across: " + key + ": an empty value (" + allowed + ")");
    if (std::find(values.begin(), values.end(), v) != values.end())
      throw config::ConfigError("--across: " + key + ": value '" + config::printable(v) + "' given twice (allowed: each value once)");
    values.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return {key, values};
}

int jobs(int flag) { return flag > 0 ? flag : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// --fuse: "all" or a comma-separated list of modes, each once.
std::vector<config::FuseMode> fuse_modes(const std::string& flag, config::FuseMode arch_mode) {
  if (flag.empty()) return {arch_mode};
  if (flag == "all") return {config::FuseMode::none, config::FuseMode::residual, config::FuseMode::residual_dropout};
  std::vector<config::FuseMode> modes;
  size_t start = 0;
  for (;;) {
    const size_t comma = flag.find(',', start);
    const std::string item = flag.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto m = config::parse_fuse_mode(item);
    if (!m)
      throw config::ConfigError("--fuse: unknown mode '" + config::printable(item) + "' (allowed: all, or a list of " +
                                std::string(config::kFuseModeNames) + ")");
    if (std::find(modes.begin(), modes.end(), *m) != modes.end())
      throw config::ConfigError("--fuse: mode '" + item + "' given twice (allowed: each mode once)");
    modes.push_back(*m);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return modes;
}

constexpr config::InputPath kPaths[] = {config::InputPath::sram_replay, config::InputPath::dram_reread,
                                        config::InputPath::partial_replay};

// The report of `arch` on one path, in a child process; rc != 0 when it failed.
int report_of(const config::Workload& w, const config::Arch& arch, const asic::AsicOptions& o, const std::string& design,
              nlohmann::json& out) {
  std::string text;
  const std::string what = "compare (" + design + ")";
  if (int rc = asic::run_isolated(
          [&] {
            const nlohmann::json r = report::asic_report_json(asic::run_asic(w, arch, o));
            check_report(r, "report");
            return r.dump();
          },
          what, text))
    return rc;
  out = nlohmann::json::parse(text);
  return 0;
}

// A candidate's child failed: it has said why on stderr; its exit code is ours.
struct ChildFailed {
  int rc;
};

// One row of the table: `arch` (with the fuse mode compared) on `path`, as
// configured or fitted to the budget / target; {path, infeasible} when it
// cannot be built. `design` names it in the log: its labels and its path.
nlohmann::json compare_row(const CompareArgs& a, const config::Workload& w, const config::Arch& arch,
                           config::InputPath path, const std::string& mode, const asic::AsicOptions& base,
                           const std::string& design) {
  const std::string name(config::to_string(path));
  asic::AsicOptions o = base;
  o.path = path;
  try {
    config::check_fusion(w, arch);
  } catch (const config::ConfigError& e) {
    return {{"path", name}, {"infeasible", e.what()}};
  }
  // The design this path is compared at.
  asic::PathFit fit;
  if (mode == "configured") {
    fit.path = path;
    fit.arch = arch;
    try {
      (void)asic::resolve_asic_config(w, arch, o);
      fit.feasible = true;
    } catch (const config::ConfigError& e) {
      fit.reason = e.what();
    }
  } else {
    asic::AsicOptions timing = o;
    timing.numerics = false;
    timing.keep_outputs = false;
    const asic::CostsOf costs_of = [&](const std::vector<config::Arch>& archs) {
      std::vector<asic::CandidateCost> costs(archs.size());
      int failed = 0;
      asic::run_isolated_pool(
          archs.size(), jobs(a.jobs),
          [&](size_t i) {
            const nlohmann::json r = report::asic_report_json(asic::run_asic(w, archs[i], timing));
            const auto& t = r["timing"];
            return nlohmann::json{t["cycles"], r["area"]["total_mm2"], r["energy"]["total_uj"], t["row_buffers_peak"],
                                  t["row_buffer_waits"]}
                .dump();
          },
          [&](size_t) { return "compare (" + design + ")"; },
          [&](size_t i, int rc, std::string&& text) {
            if (rc) {
              if (!failed) failed = rc;
              return;
            }
            const auto k = nlohmann::json::parse(text);
            costs[i] = {k[0].get<double>(), k[1].get<double>(), k[2].get<double>(), k[3].get<int>(), k[4].get<uint64_t>() > 0};
          });
      if (failed) throw ChildFailed{failed};
      return costs;
    };
    fit = a.sram_budget ? asic::fit_sram_budget(w, arch, path, static_cast<uint64_t>(a.sram_budget), costs_of)
                        : asic::fit_target_cycles(w, arch, path, a.target_cycles, costs_of);
    spdlog::info("compare: {}: {} candidates", design, fit.candidates_run);
  }
  if (!fit.feasible) return {{"path", name}, {"infeasible", fit.reason}};
  nlohmann::json r;
  if (int rc = report_of(w, fit.arch, o, design, r)) throw ChildFailed{rc};
  if (mode != "configured")
    r["fit"] = {{"rows_in_flight", fit.rows_in_flight}, {"replay_fraction", fit.replay_fraction},
                {"sram_required_bytes", fit.sram_bytes}, {"candidates_run", fit.candidates_run},
                {"rows_searched", fit.rows_searched},
                {"rows_that_fit", fit.rows_that_fit}};
  spdlog::info("compare: {} done", design);
  return r;
}

int compare(const CompareArgs& a) {
  if (a.fail_on_overflow && a.asic.no_numerics)
    throw config::ConfigError("--fail-on-overflow: nothing is computed with --no-numerics, so nothing can overflow (allowed: one of them)");
  const auto [w, arch] = load_inputs(a.in);
  check_out_dir(a.out_dir);
  if (a.sram_budget && a.target_cycles)
    throw config::ConfigError("compare: --sram-budget and --target-cycles ask different questions (allowed: one of them)");
  const asic::AsicOptions base = asic_options(a.asic);
  if (!arch.asic) (void)asic::resolve_asic_config(w, arch, {});  // exit 2: no timing model to compare
  const std::string mode = a.sram_budget ? "sram_budget" : a.target_cycles ? "target_cycles" : "configured";
  nlohmann::json all = {{"mode", mode}, {"paths", nlohmann::json::array()}};
  if (a.sram_budget) all["sram_budget_bytes"] = a.sram_budget;
  if (a.target_cycles) all["target_cycles"] = a.target_cycles;
  const std::vector<config::FuseMode> modes = fuse_modes(a.fuse, arch.fuse.mode);
  if (!a.fuse.empty() && !w.residual)
    throw config::ConfigError("--fuse: workload " + w.name + " has no residual stream to fuse (allowed: a workload with a "
                              "residual: section, e.g. postnorm-7b)");
  // The designs beside the path: a residual workload's fuse modes, a
  // backward's parameter-gradient paths (docs/ASIC.md, "Backward").
  // Each design beside the path, with the labels its rows carry (key, value).
  struct Label {
    std::string key, value;
    bool in_progress = true;  ///< named on the progress line
  };
  struct Variant {
    config::Arch arch;
    std::vector<Label> labels;
  };
  // --across: the arch once per value, as --set would make it; several
  // --across pair their values (the i-th design takes every key's i-th).
  std::vector<Variant> variants;
  if (a.across.empty()) {
    variants.push_back({arch, {}});
  } else {
    std::vector<std::pair<std::string, std::vector<std::string>>> axes;
    for (const std::string& flag : a.across) {
      axes.push_back(across_values(flag));
      if (axes.back().second.size() != axes.front().second.size())
        throw config::ConfigError("--across: " + axes.back().first + ": " + std::to_string(axes.back().second.size()) +
                                  " values against " + axes.front().first + "'s " +
                                  std::to_string(axes.front().second.size()) + " (allowed: as many values for every key, paired in order)");
      for (size_t k = 0; k + 1 < axes.size(); ++k)
        if (axes[k].first == axes.back().first)
          throw config::ConfigError("--across: key " + axes.back().first + " given twice (allowed: each key once)");
    }
    all["across"] = nlohmann::json::array();
    for (const auto& axis : axes) all["across"].push_back(axis.first);
    for (size_t i = 0; i < axes.front().second.size(); ++i) {
      Variant v;
      std::vector<std::string> sets;
      for (const auto& [key, values] : axes) {
        sets.push_back(key + "=" + values[i]);
        v.labels.push_back({key, values[i]});
      }
      v.arch = load_arch_also(a.in, sets);
      variants.push_back(std::move(v));
    }
  }
  // Each fuse mode asked for (a residual workload's rows name theirs).
  std::vector<Variant> by_fuse;
  for (const Variant& d : variants)
    for (const config::FuseMode fuse : modes) {
      Variant v = d;
      v.arch.fuse.mode = fuse;
      if (w.residual) v.labels.push_back({"fuse", std::string(config::to_string(fuse)), !a.fuse.empty()});
      by_fuse.push_back(std::move(v));
    }
  variants = std::move(by_fuse);
  if (w.is_backward() && arch.asic) {  // x each path of dgamma/dbeta
    std::vector<Variant> by_param_grad;
    for (const Variant& f : variants)
      for (const config::ParamGradPath pg : {config::ParamGradPath::onchip, config::ParamGradPath::partials, config::ParamGradPath::dram_rmw}) {
        Variant v = f;
        v.arch.asic->param_grad_accumulator.path = pg;
        if (a.fuse.empty()) std::erase_if(v.labels, [](const Label& l) { return l.key == "fuse"; });
        v.labels.push_back({"param_grad", std::string(config::kParamGradPaths.name(pg))});
        by_param_grad.push_back(std::move(v));
      }
    variants = std::move(by_param_grad);
  }
  const size_t rows_total = variants.size() * std::size(kPaths);
  for (const Variant& v : variants) {
    for (auto path : kPaths) {
      std::string named, design;
      for (const Label& l : v.labels) {
        if (l.in_progress) named += l.key + " " + l.value + ", ";
        design += l.key + " " + l.value + ", ";
      }
      design += config::to_string(path);
      ProgressLine::get().phase(named + "path " + std::string(config::to_string(path)) + " (" +
                                std::to_string(all["paths"].size() + 1) + " of " + std::to_string(rows_total) + ")");
      nlohmann::json row;
      try {
        row = compare_row(a, w, v.arch, path, mode, base, design);
      } catch (const ChildFailed& f) {
        return f.rc;
      }
      for (const Label& l : v.labels) row[l.key] = l.value;  // the row says which design it is beside its path
      all["paths"].push_back(std::move(row));
    }
  }
  // No design at all: bad input for this question (as a sweep with no point is), before anything is written.
  std::string why;
  for (const auto& p : all["paths"]) {
    if (!p.contains("infeasible")) {
      why.clear();
      break;
    }
    why += (why.empty() ? "" : "; ") + p.value("path", std::string()) + ": " + p["infeasible"].get<std::string>();
  }
  if (!why.empty())
    throw config::ConfigError("compare: workload " + w.name + ": no design of any path is feasible (" + why +
                              "; allowed: a larger --sram-budget or --target-cycles, or another arch)");
  all["picks"] = report::compare_picks(all);
  if (!a.out_dir.empty()) {
    write_report_file(a.out_dir, "compare.json", report::report_text(all, 2) + "\n");
    write_report_file(a.out_dir, "compare.txt", report::compare_table(all));
    write_report_file(a.out_dir, "compare.csv", report::compare_csv(all));
  }
  if (a.json) std::cout << report::report_text(all) << "\n";
  else std::cout << report::compare_table(all);
  // Every path's warnings first, then --fail-on-overflow's verdict on the first that overflowed.
  for (const auto& p : all["paths"])
    if (p.contains("numerics")) log_warnings(p, "compare (" + p.value("path", std::string()) + ")");
  if (a.fail_on_overflow)
    for (const auto& p : all["paths"])
      if (p.contains("numerics")) check_no_overflow(p, "compare (" + p.value("path", std::string()) + ")");
  return kExitOk;
}

}  // namespace

Command add_compare(CLI::App& app) {
  auto a = std::make_shared<CompareArgs>();
  auto* c = app.add_subcommand("compare", "run every input path of the ASIC model on one workload, one table");
  c->fallthrough();
  add_input_options(c, a->in, {"arch with an asic section", "", "", ""});
  add_int_option(c, "--sram-budget", a->sram_budget, 1, int64_t(1) << 40,
                 "compare at this SRAM (bytes): each path's design (rows in flight, replay fraction) that fits it in the "
                 "fewest cycles, then least area and energy (every candidate run: docs/ASIC.md)");
  add_number_option(c, "--target-cycles", a->target_cycles, 1.0, 1e18,
                    "compare at this throughput: each path's design with the smallest SRAM that finishes in at most this "
                    "many cycles, then the fewest cycles (every candidate run: docs/ASIC.md)");
  c->add_option("--out", a->out_dir, "directory for compare.json, compare.csv (sweep.csv's columns) and compare.txt");
  c->add_flag("--json", a->json, "print {\"mode\", \"paths\": [report or {path, infeasible}, ...], \"picks\": [...]} on stdout");
  c->add_option("--fuse", a->fuse,
                 "a residual workload: each path once per fuse mode -- all, or a list of " +
                     std::string(config::kFuseModeNames) + " (default: the arch's fuse.mode)");
  c->add_option("--across", a->across,
                "each path once per value of an arch key, as --set would set it: arch.KEY=V1,V2,...; given again, "
                "the keys' values pair in order (e.g. --across arch.rsqrt.seed=table,linear --across "
                "arch.rsqrt.iterations=2,1: the RSQRT unit's two designs side by side)")
      ->allow_extra_args(false);
  c->add_flag("--no-numerics", a->asic.no_numerics, "timing only");
  c->add_flag("--no-fast-forward", a->asic.no_fast_forward, kNoFastForwardHelp);
  add_int_option(c, "-j,--jobs", a->jobs, 1, 4096, "--sram-budget / --target-cycles: candidates run at once (default: all cores)");
  c->add_flag("--fail-on-overflow", a->fail_on_overflow, "exit 1 when any fixed-point stage of any path saturated or wrapped");
  return {c, [a] { return compare(*a); }};
}

}  // namespace normsim::cli
