// `normsim sweep`: the ASIC model over a design space -- the axes of --grid,
// --zip and a --study file on top of --set, timing only unless --numerics --
// in parallel (-j), or one interleaved shard of it (--shard i/n, merged by
// `normsim merge`). Every point is validated before any runs (bad input:
// exit 2); a point the design cannot build is a row with its reason; each run
// is a forked child. `normsim merge` shares the output writer.
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "command.hpp"
#include "progress.hpp"
#include "sim/report/report_stamp.hpp"
#include "sim/asic/isolated_run.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/printable.hpp"
#include "sim/config/sweep_grid.hpp"
#include "sim/report/asic_report.hpp"
#include "sim/report/sweep_report.hpp"

namespace normsim::cli {

namespace {

struct SweepArgs {
  InputArgs in;
  AsicFlags asic;
  std::vector<std::pair<bool, std::string>> axes;  ///< (zip?, text) in command-line order
  std::string study, out_dir, plot, shard, objectives;
  bool numerics = false, json = false, progress = false, allow_overflow = false;
  int jobs = 0;
  int slurm = 0;  ///< shards of a Slurm array job (0: run here)
};

// A word for a POSIX shell, single-quoted.
std::string shell_quote(const std::string& w) {
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The sweep's own arguments, as the shards must repeat them (paths as given:
// the jobs run in the submitting directory, so the study's inputs match).
std::string sweep_arguments(const SweepArgs& a) {
  std::vector<std::string> v;
  if (!a.in.workload.empty()) v.push_back(a.in.workload);
  if (!a.in.arch.empty()) v.insert(v.end(), {"--arch", a.in.arch});
  if (!a.study.empty()) v.insert(v.end(), {"--study", a.study});
  for (const auto& [zip, text] : a.axes) v.insert(v.end(), {zip ? "--zip" : "--grid", text});
  for (const auto& s : a.in.sets) v.insert(v.end(), {"--set", s});
  if (!a.asic.path.empty()) v.insert(v.end(), {"--path", a.asic.path});
  if (a.numerics) v.push_back("--numerics");
  if (a.allow_overflow) v.push_back("--allow-overflow");
  if (a.asic.no_fast_forward) v.push_back("--no-fast-forward");
  if (!a.objectives.empty()) v.insert(v.end(), {"--objectives", a.objectives});
  std::string out;
  for (const auto& w : v) out += " " + shell_quote(w);
  return out;
}

// The executable running now, for the jobs to run again.
std::string self_path() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("normsim") : p.string();
}

// `--slurm N`: the array job of N shards, the dependent merge, and the
// script that submits both, written under DIR/slurm.
int write_slurm_job(const SweepArgs& a, size_t points) {
  const std::filesystem::path out = std::filesystem::absolute(a.out_dir);
  const std::filesystem::path dir = out / "slurm";
  const std::string exe = shell_quote(self_path()), args = sweep_arguments(a);
  const std::string cwd = std::filesystem::current_path().string();
  const int cpus = a.jobs > 0 ? a.jobs : 1;
  const std::string n = std::to_string(a.slurm);
  const std::string shard =
      "#!/bin/bash\n"
      "# One shard of a normsim sweep (" + std::to_string(points) + " points in " + n + " interleaved shards).\n"
      "#SBATCH --job-name=normsim-sweep\n"
      "#SBATCH --array=0-" + std::to_string(a.slurm - 1) + "\n"
      "#SBATCH --cpus-per-task=" + std::to_string(cpus) + "\n"
      "#SBATCH --chdir=" + cwd + "\n"
      "#SBATCH --output=" + (dir / "shard-%a.log").string() + "\n"
      "set -euo pipefail\n"
      "exec " + exe + " sweep" + args + " -j " + std::to_string(cpus) + " --shard \"$SLURM_ARRAY_TASK_ID/" + n + "\" --out " +
      shell_quote((out / "shards").string()) + " -q\n";
  const std::string merge =
      "#!/bin/bash\n"
      "# The merge of a normsim sweep's shards: exactly what the sweep run whole writes.\n"
      "#SBATCH --job-name=normsim-merge\n"
      "#SBATCH --chdir=" + cwd + "\n"
      "#SBATCH --output=" + (dir / "merge.log").string() + "\n"
      "set -euo pipefail\n"
      "exec " + exe + " merge " + shell_quote((out / "shards").string()) + " --out " + shell_quote(out.string()) +
      (a.plot.empty() ? std::string() : " --plot " + shell_quote(std::filesystem::absolute(a.plot).string())) + " -q\n";
  const std::string submit =
      "#!/bin/bash\n"
      "# Submits the sweep's " + n + " shards as one array job and the merge after them (afterok).\n"
      "set -euo pipefail\n"
      "array=$(sbatch --parsable " + shell_quote((dir / "shard.sbatch").string()) + ")\n"
      "merge=$(sbatch --parsable --dependency=afterok:${array%%;*} " + shell_quote((dir / "merge.sbatch").string()) + ")\n"
      "echo \"normsim sweep: array job $array (" + n + " shards), merge job $merge -> " + (out / "sweep.json").string() + "\"\n";
  write_report_file(dir.string(), "shard.sbatch", shard);
  write_report_file(dir.string(), "merge.sbatch", merge);
  write_report_file(dir.string(), "submit.sh", submit);
  std::cout << "normsim sweep: " << points << " points as a Slurm array of " << n << " shards and a merge\n"
            << "  " << (dir / "shard.sbatch").string() << "\n  " << (dir / "merge.sbatch").string() << "\n"
            << "submit with: bash " << (dir / "submit.sh").string() << "\n";
  return kExitOk;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> v;
  for (size_t start = 0; start <= s.size();) {
    const size_t c = s.find(',', start);
    v.push_back(s.substr(start, c == std::string::npos ? std::string::npos : c - start));
    if (c == std::string::npos) break;
    start = c + 1;
  }
  return v;
}

// "i/n": the i-th (0-based) of n interleaved slices.
std::pair<size_t, size_t> parse_shard(const std::string& s) {
  const size_t slash = s.find('/');
  try {
    if (slash != std::string::npos) {
      size_t a = 0, b = 0;
      const long long i = std::stoll(s.substr(0, slash), &a), n = std::stoll(s.substr(slash + 1), &b);
      if (a == slash && b == s.size() - slash - 1 && n >= 1 && n <= 100000 && i >= 0 && i < n)
        return {static_cast<size_t>(i), static_cast<size_t>(n)};
    }
  } catch (const std::exception&) {
  }
  throw config::ConfigError("sweep: --shard '" + s + "': expected i/n with 0 <= i < n <= 100000 (allowed: 0/4, 1/4, 2/4, 3/4 for four shards)");
}

int sweep(const SweepArgs& a) {
  // The study: a file, the flags on top of it.
  config::Grid grid;
  InputArgs in = a.in;
  std::vector<std::string> objectives;
  if (!a.study.empty()) {
    config::Study s = config::load_study(a.study);
    grid = s.grid;
    if (in.workload.empty()) in.workload = s.workload;
    if (in.arch.empty()) in.arch = s.arch;
    in.sets.insert(in.sets.begin(), s.sets.begin(), s.sets.end());  // the command line's --set win
    objectives = s.objectives;
  }
  for (const auto& [zip, text] : a.axes) zip ? config::add_zip_axis(grid, text) : config::add_grid_axis(grid, text);
  config::check_grid(grid);
  if (!a.objectives.empty()) objectives = split_list(a.objectives);
  for (const auto& o : objectives) (void)report::objective_column(o, a.numerics);
  if (!a.plot.empty() && objectives.size() < 2)
    throw config::ConfigError("sweep: --plot needs two or more --objectives (allowed: e.g. --objectives cycles,area,energy)");
  if (a.allow_overflow && !a.numerics)
    throw config::ConfigError("sweep: --allow-overflow without --numerics (allowed: with --numerics; timing-only points have no overflow)");
  check_out_dir(a.out_dir);
  if (!a.plot.empty()) check_output_file("--plot", a.plot, ".png", "pareto.png", a.out_dir);

  const std::vector<config::GridPoint> points = grid.points();
  const std::vector<std::string> keys = grid.keys();
  size_t shard = 0, shards = 1;
  if (a.slurm) {
    if (a.out_dir.empty()) throw config::ConfigError("sweep: --slurm needs --out (the shards, the merge and the job scripts go there)");
    if (!a.shard.empty()) throw config::ConfigError("sweep: --slurm and --shard together (allowed: one of them; --slurm writes the --shard jobs)");
    if (a.json) throw config::ConfigError("sweep: --slurm and --json together (allowed: one of them; the merge writes sweep.json)");
  }
  if (!a.shard.empty()) {
    std::tie(shard, shards) = parse_shard(a.shard);
    if (a.out_dir.empty()) throw config::ConfigError("sweep: --shard needs --out (the shard's file is merged by `normsim merge`)");
  }

  // Validate every point of this shard in the parent: bad input is exit 2
  // before anything runs; a design that cannot be built is a row.
  AsicFlags flags = a.asic;
  flags.no_numerics = !a.numerics;
  const asic::AsicOptions o = asic_options(flags);
  std::vector<nlohmann::json> rows;
  std::vector<InputArgs> point_inputs;  // loaded again in the child: a point's files are small
  std::vector<size_t> feasible;  // rows that run
  (void)load_inputs(in);  // the study's own configs, before any point's: the report names them
  for (size_t p = shard; p < points.size(); p += shards) {
    nlohmann::json row = {{"index", p}, {"point", nlohmann::json::object()}};
    InputArgs pin = in;
    for (const auto& [k, v] : points[p]) {
      pin.sets.push_back(k + "=" + v);
      row["point"][k] = config::typed_value(v);
    }
    Inputs inp;
    try {
      inp = load_inputs(pin);
    } catch (const config::ConfigError& e) {
      throw config::ConfigError("sweep point " + row["point"].dump() + ": " + e.what());
    }
    try {
      (void)asic::resolve_asic_config(inp.workload, inp.arch, o);
      row["status"] = "ok";
      feasible.push_back(rows.size());
    } catch (const config::ConfigError& e) {
      row["status"] = "infeasible";
      row["reason"] = e.what();
    }
    rows.push_back(std::move(row));
    point_inputs.push_back(std::move(pin));
  }

  if (a.slurm) return write_slurm_job(a, points.size());

  const int jobs = a.jobs > 0 ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  // Points done / total, rate and ETA on the progress line.
  ProgressLine& progress = ProgressLine::get();
  if (a.progress && !progress.on()) progress.start("normsim sweep", true);
  size_t done = 0;
  int failed = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto tick = [&] {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double rate = s > 0 ? static_cast<double>(done) / s : 0;
    char text[128];
    std::snprintf(text, sizeof text, "%zu/%zu points, %.1f points/s, ETA %.0f s", done, feasible.size(), rate,
                  rate > 0 ? static_cast<double>(feasible.size() - done) / rate : 0.0);
    progress.status(text);
  };
  asic::run_isolated_pool(
      feasible.size(), jobs,
      [&](size_t k) {
        const Inputs inp = load_inputs(point_inputs[feasible[k]]);
        const nlohmann::json r = report::asic_report_json(asic::run_asic(inp.workload, inp.arch, o));
        check_report(r, "report");
        return r.dump();
      },
      [&](size_t k) { return "sweep point " + rows[feasible[k]]["point"].dump(); },
      [&](size_t k, int rc, std::string&& text) {
        if (rc != 0) {
          if (!failed) failed = rc;
        } else {
          rows[feasible[k]]["report"] = nlohmann::json::parse(text);
        }
        ++done;
        tick();
      });
  progress.finish();
  if (failed) return failed;
  // Bit-accurate: a design whose formats saturate is not a design to rank.
  if (a.numerics && !a.allow_overflow)
    for (size_t i : feasible) {
      nlohmann::json& row = rows[i];
      std::string stages;
      const nlohmann::json overflow = row["report"]["numerics"].value("overflow", nlohmann::json::object());
      for (const auto& [stage, v] : overflow.items())
        if (v.is_number() && v.get<double>() > 0) stages += (stages.empty() ? "" : ", ") + stage + " " + v.dump();
      if (stages.empty()) continue;
      row["status"] = "infeasible";
      row["reason"] = "saturates: " + stages + " values (allowed: formats that hold the data, or --allow-overflow to rank it)";
    }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t ran = 0;
  for (const auto& r : rows) ran += r["status"] == "ok";
  if (shards == 1 && ran == 0) check_some_point_ran(rows);  // the error is the one line
  spdlog::info("sweep: {} points ({} infeasible) in {:.2f} s on {} jobs{}", rows.size(), rows.size() - ran, seconds, jobs,
               a.numerics ? ", bit-accurate" : ", timing only");

  const nlohmann::json study_inputs = {{"workload", in.workload}, {"arch", in.arch}, {"sets", in.sets},
                                       {"path", a.asic.path}, {"configs", report::configs_json(report::current_stamp().configs)}};
  if (shards > 1) {
    nlohmann::json s = report::sweep_json(keys, objectives, a.numerics, {});
    s["study"]["points"] = points.size();
    s["study"]["inputs"] = study_inputs;
    s["shard"] = {{"index", shard}, {"count", shards}};
    s["points"] = rows;
    const std::string name = "sweep-shard-" + std::to_string(shard) + "-of-" + std::to_string(shards) + ".json";
    write_report_file(a.out_dir, name, s.dump() + "\n");
    spdlog::info("sweep: shard {}/{} written to {}/{}", shard, shards, a.out_dir, name);
    return kExitOk;
  }
  nlohmann::json all = report::sweep_json(keys, objectives, a.numerics, std::move(rows));
  all["study"]["inputs"] = study_inputs;
  return write_sweep_outputs(all, a.out_dir, a.json, a.plot);
}

// The Pareto front drawn from the JSON by tools/sweep/pareto_plot.py
// (matplotlib); the script's error, if any, becomes the one line.
void draw_pareto_plot(const nlohmann::json& all, const std::string& plot) {
  namespace fs = std::filesystem;
  const std::string tmp = plot + ".sweep.json.tmp", err = plot + ".stderr.tmp";
  write_report_file(fs::path(tmp).parent_path().empty() ? "." : fs::path(tmp).parent_path().string(),
                    fs::path(tmp).filename().string(), all.dump() + "\n");
  const std::string cmd = "/usr/bin/python3 " + shell_quote(data_path("tools/sweep/pareto_plot.py")) + " " + shell_quote(tmp) +
                          " " + shell_quote(plot) + " 2>" + shell_quote(err);
  const int rc = std::system(cmd.c_str());
  std::string last;
  if (std::ifstream in(err); in)
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) last = line;
  std::error_code ec;
  fs::remove(tmp, ec);
  fs::remove(err, ec);
  if (rc != 0)
    throw config::ConfigError("sweep: --plot '" + config::printable(plot) + "': the plot script failed" +
                              (last.empty() ? std::string() : ": " + config::printable(last)) +
                              " (allowed: a writable .png path, with python3-matplotlib from tools/bootstrap.sh)");
}

}  // namespace

void check_some_point_ran(const nlohmann::json& points) {
  for (const auto& p : points)
    if (p["status"] == "ok") return;
  const auto& p = points.at(0);
  throw config::ConfigError("sweep: no point could be built; point " + p["point"].dump() + ": " + p["reason"].get<std::string>());
}

int write_sweep_outputs(const nlohmann::json& all, const std::string& out_dir, bool json, const std::string& plot) {
  check_some_point_ran(all["points"]);
  // The plot first: a failing plot leaves no report behind.
  if (!plot.empty()) draw_pareto_plot(all, plot);
  if (!out_dir.empty()) {
    write_report_file(out_dir, "sweep.json", report::report_text(all, 2) + "\n");
    write_report_file(out_dir, "sweep.csv", report::sweep_csv(all));
  }
  if (json) std::cout << report::report_text(all) << "\n";
  else std::cout << report::sweep_table(all);
  return kExitOk;
}

Command add_sweep(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  auto* c = app.add_subcommand("sweep", "run the ASIC model over a design space (timing only unless --numerics)");
  c->fallthrough();
  add_input_options(c, a->in, {"arch with an asic section", "", " for every point", "the study's, else "});
  // Each occurrence is an axis, in command-line order (--grid and --zip interleaved).
  c->add_option_function<std::string>("--grid", [a](const std::string& v) { a->axes.push_back({false, v}); },
                                      "KEY=V1,V2,... [if KEY2=A,B]: an axis (repeatable; the points are the product of the axes)")
      ->trigger_on_parse()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  c->add_option_function<std::string>("--zip", [a](const std::string& v) { a->axes.push_back({true, v}); },
                                      "K1=A1,A2,...,K2=B1,B2,... [if ...]: keys whose values go together, one axis")
      ->trigger_on_parse()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  c->add_option("--study", a->study, name_or_path_help(config::ShippedKind::study, "study: workload, arch, set, objectives and axes (docs/EXPLORE.md)", "relative workload/arch paths are the study file's"));
  c->add_option("--path", a->asic.path, "input path: " + config::kInputPaths.joined());
  c->add_flag("--numerics", a->numerics, "bit-accurate points (default: timing only); a point that saturates is infeasible");
  c->add_flag("--allow-overflow", a->allow_overflow, "--numerics: rank points whose fixed-point stages saturate");
  c->add_flag("--no-fast-forward", a->asic.no_fast_forward, kNoFastForwardHelp);
  c->add_option("--objectives", a->objectives,
                "mark the Pareto front over these figures, all minimised: cycles,area,energy[,error] or any column name");
  c->add_option("--plot", a->plot, "draw the Pareto front of the first two objectives into FILE.png");
  add_int_option(c, "-j,--jobs", a->jobs, 1, 4096, "points run at once (default: all cores)");
  c->add_option("--shard", a->shard, "run the i-th of n interleaved slices (0-based i/n) into --out, for `normsim merge`");
  c->add_option("--slurm", a->slurm, "write a Slurm array job of N shards and a dependent merge into --out/slurm (submit.sh submits both)")
      ->check(CLI::Range(1, 100000));
  c->add_flag("--progress", a->progress, "progress on stderr even when it is not a terminal");
  c->add_option("--out", a->out_dir, "directory for sweep.json and sweep.csv (a shard's file with --shard)");
  c->add_flag("--json", a->json, "print the sweep as one JSON object on stdout");
  return {c, [a] { return sweep(*a); }};
}

}  // namespace normsim::cli
