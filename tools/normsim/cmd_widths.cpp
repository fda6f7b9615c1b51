// `normsim widths`: the cheapest per-stage fixed-point formats that meet
// accuracy targets on a workload's data (sim/explore/width_search.hpp), the
// area saved, and an arch YAML with them that `run` accepts.
#include <spdlog/spdlog.h>

#include <cstdio>

#include <iostream>
#include <memory>

#include "command.hpp"
#include "progress.hpp"
#include "sim/report/report_stamp.hpp"
#include "sim/config/config_error.hpp"
#include "sim/explore/width_search.hpp"
#include "sim/report/widths_report.hpp"

namespace normsim::cli {

namespace {

struct WidthsArgs {
  InputArgs in;
  std::vector<std::string> targets;
  std::string stages, out_dir;
  int64_t sample_rows = 64;
  int threads = 0;
  std::string guard = "auto";
  int64_t margin_bits = 0;
  bool json = false, progress = false;
};

int widths(const WidthsArgs& a) {
  const auto [w, arch] = load_inputs(a.in);
  check_out_dir(a.out_dir);
  explore::WidthSearchOptions o;
  for (const auto& t : a.targets) o.targets.push_back(explore::parse_width_target(t));
  if (!a.stages.empty()) {
    for (size_t start = 0; start <= a.stages.size();) {
      const size_t c = a.stages.find(',', start);
      o.stages.push_back(a.stages.substr(start, c == std::string::npos ? std::string::npos : c - start));
      if (c == std::string::npos) break;
      start = c + 1;
    }
  }
  o.sample_rows = a.sample_rows;
  o.guards = explore::parse_width_guards(a.guard);
  o.margin_bits = static_cast<int>(a.margin_bits);
  o.threads = thread_count(a.threads);
  // Evaluations, round and phase on the progress line.
  ProgressLine& progress = ProgressLine::get();
  if (a.progress && !progress.on()) progress.start("normsim widths", true);
  if (progress.on())
    o.on_evaluation = [&progress](const explore::WidthEvaluation& e) {
      char text[128];
      std::snprintf(text, sizeof text, "%d evaluations, round %d, %s on %lld rows", e.index + 1, e.round, e.phase.c_str(),
                    static_cast<long long>(e.rows));
      progress.status(text, e.phase == "confirm");
    };
  // The search checks its stages and guards before it evaluates anything;
  // its error is the one line, so the log line follows it.
  const explore::WidthSearchResult r = explore::search_widths(w, arch, o);
  progress.finish();
  spdlog::info("widths: workload {} ({}), arch {} ({}): {} evaluations", w.name, w.source, arch.name, arch.source,
               r.evaluations.size());
  nlohmann::json j = report::widths_json(r, o.targets);
  // Rejected candidates may have infinite errors (a saturating format); the choice may not.
  check_report({{"chosen", j["chosen"]}}, "widths");

  // The chosen formats as an arch file, read back to prove `run` takes it.
  std::vector<config::Override> ov;
  for (const auto& s : a.in.sets)
    if (config::parse_override(s).target == "arch") ov.push_back(config::parse_override(s));
  for (const auto& s : explore::format_overrides(r)) ov.push_back(config::parse_override(s));
  ov.push_back(config::parse_override("arch.name=" + arch.name + "-widths"));
  std::string header = "# " + arch.name + " with the formats `normsim widths` chose for " + w.name + " (targets:";
  for (const auto& t : o.targets) header += " " + t.text;
  header += "; datapath " + std::to_string(r.chosen_um2 * 1e-6) + " mm2 at " + r.node + ", from " + std::to_string(r.start_um2 * 1e-6) + ")\n";
  const std::string yaml = header + config::arch_yaml_with(a.in.arch, ov);
  const config::Arch back = config::parse_arch_text(yaml, "<widths arch>");
  if (explore::searched_formats(r, back) != r.chosen)
    throw std::runtime_error("widths: the written arch does not read back to the chosen formats");
  if (!a.out_dir.empty()) {
    write_report_file(a.out_dir, "widths.json", report::report_text(j, 2) + "\n");
    write_report_file(a.out_dir, "widths.csv", report::widths_csv(r));
    write_report_file(a.out_dir, "arch.yaml", yaml);
    j["arch_yaml"] = a.out_dir + "/arch.yaml";
  }
  if (a.json) {
    std::cout << report::report_text(j) << "\n";
  } else {
    std::cout << report::widths_table(r, o.targets);
    if (!a.out_dir.empty())
      std::cout << "wrote " << a.out_dir << "/arch.yaml (run it: normsim run " << (a.in.workload.empty() ? "" : a.in.workload + " ")
                << "--arch " << a.out_dir << "/arch.yaml), widths.json and widths.csv (every evaluation)\n";
    else
      std::cout << "(--out DIR writes the arch YAML and every evaluation)\n";
  }
  return kExitOk;
}

}  // namespace

Command add_widths(CLI::App& app) {
  auto a = std::make_shared<WidthsArgs>();
  auto* c = app.add_subcommand("widths", "search per-stage fixed-point formats for the least area that meets accuracy targets");
  c->fallthrough();
  add_input_options(c, a->in, {"fixed-point arch to start from", "", " before the search", ""});
  c->add_option("--target", a->targets, "METRIC<=V (max_ulp, rel_l2, max_abs, rms) or frac_within_1ulp>=V (repeatable)")->required();
  c->add_option("--stages", a->stages,
                "stages to search, comma-separated (default: every stage the datapath uses; a backward workload's are its "
                "backward_formats)");
  add_int_option(c, "--sample-rows", a->sample_rows, 1, int64_t(1) << 32,
                 "rows each candidate is evaluated on first (default 64; the choice is confirmed on all rows)");
  add_int_option(c, "--threads", a->threads, 1, 1024, "threads for the numerics (default: all cores)");
  c->add_option("--guard", a->guard,
                "where else the choice must hold: auto (the workload's C and about 0.73 C, 1.25 C and 2.69 C, each on its own "
                "inputs and every shipped LLM-activation model), none, or a list of hidden=N and llm (the listed C and the "
                "workload's, crossed with its inputs and, with llm, the shipped models)");
  add_int_option(c, "--margin-bits", a->margin_bits, 0, 16, "integer and fraction bits added to every searched stage (a guard band)");
  c->add_option("--out", a->out_dir, "directory for arch.yaml, widths.json and widths.csv");
  c->add_flag("--json", a->json, "print the result as one JSON object on stdout");
  c->add_flag("--progress", a->progress, "progress on stderr even when it is not a terminal");
  return {c, [a] { return widths(*a); }};
}

}  // namespace normsim::cli
