// `normsim sweep`: the ASIC model over a design space -- the axes of --grid,
// --zip and a --study file on top of --set, timing only unless --numerics --
// in parallel (-j), or one interleaved shard of it (--shard i/n, merged by
// `normsim merge`). Every point is validated before any runs (bad input:
// exit 2); a point the design cannot build is a row with its reason; each run
// is a forked child. `normsim merge` shares the output writer.
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "command.hpp"
#include "progress.hpp"
#include "sim/report/report_stamp.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/printable.hpp"
#include "sim/config/sweep_grid.hpp"
#include "sim/explore/sweep_engine.hpp"
#include "sim/report/asic_report.hpp"
#include "sim/report/sweep_journal.hpp"
#include "sim/report/sweep_report.hpp"

namespace normsim::cli {

namespace {

struct SweepArgs {
  InputArgs in;
  AsicFlags asic;
  std::vector<std::pair<bool, std::string>> axes;  ///< (zip?, text) in command-line order
  std::string study, out_dir, plot, shard, objectives, resume;
  bool numerics = false, json = false, progress = false, allow_overflow = false, full_reports = false;
  int64_t sample_rows = 0;  ///< --numerics on this many rows (0: every row)
  int jobs = 0;
  int slurm = 0;  ///< shards of a Slurm array job (0: run here)
};

// A word for a POSIX shell, single-quoted.
std::string shell_quote(const std::string& w) {
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// A word as a user would type it: bare when the shell reads it as it is.
std::string shell_word(const std::string& w) {
  const bool bare = !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+,:=@%-") ==
                                      std::string::npos;
  return bare ? w : shell_quote(w);
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
  if (a.full_reports) v.push_back("--full-reports");
  if (a.sample_rows) v.insert(v.end(), {"--sample-rows", std::to_string(a.sample_rows)});
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

// `--slurm N`: the array job of N shards and a finishing job, and the
// script that submits both, written under DIR/slurm. A shard whose journal
// exists resumes it (a retried task recomputes nothing); the finishing job
// runs after every task has ended, merges when every shard is complete, and
// otherwise resubmits the incomplete shards with another finishing job after
// them, at most `kSlurmRetries` times.
constexpr int kSlurmRetries = 3;

int write_slurm_job(const SweepArgs& a, size_t points) {
  const std::filesystem::path out = std::filesystem::absolute(a.out_dir);
  const std::filesystem::path dir = out / "slurm";
  const std::string exe = shell_quote(self_path()), args = sweep_arguments(a);
  const std::string cwd = std::filesystem::current_path().string();
  const int cpus = a.jobs > 0 ? a.jobs : 1;
  const std::string n = std::to_string(a.slurm);
  const std::string shards = shell_quote((out / "shards").string());
  const std::string shard =
      "#!/bin/bash\n"
      "# One shard of a normsim sweep (" + std::to_string(points) + " points in " + n + " interleaved shards);\n"
      "# a retried task resumes the shard's journal.\n"
      "#SBATCH --job-name=normsim-sweep\n"
      "#SBATCH --array=0-" + std::to_string(a.slurm - 1) + "\n"
      "#SBATCH --cpus-per-task=" + std::to_string(cpus) + "\n"
      "#SBATCH --chdir=" + cwd + "\n"
      "#SBATCH --output=" + (dir / "shard-%a.log").string() + "\n"
      "#SBATCH --open-mode=append\n"
      "set -euo pipefail\n"
      "i=$SLURM_ARRAY_TASK_ID\n"
      "if [ -s " + shards + "/sweep-shard-$i-of-" + n + ".jsonl ]; then\n"
      "  exec " + exe + " sweep --resume " + shards + " --shard \"$i/" + n + "\" -j " + std::to_string(cpus) + " -q\n"
      "fi\n"
      "exec " + exe + " sweep" + args + " -j " + std::to_string(cpus) + " --shard \"$i/" + n + "\" --out " + shards + " -q\n";
  const std::string finish =
      "#!/bin/bash\n"
      "# After every shard task has ended: the merge when every shard is complete, else the\n"
      "# incomplete shards again and this job after them (round $1 of at most " + std::to_string(kSlurmRetries) + " retries).\n"
      "#SBATCH --job-name=normsim-merge\n"
      "#SBATCH --chdir=" + cwd + "\n"
      "#SBATCH --output=" + (dir / "merge.log").string() + "\n"
      "#SBATCH --open-mode=append\n"
      "set -uo pipefail\n"
      "round=${1:-0}\n"
      "incomplete=$(" + exe + " merge " + shards + " --incomplete-of " + n + ") || exit 1\n"
      "if [ -z \"$incomplete\" ]; then\n"
      "  exec " + exe + " merge " + shards + " --out " + shell_quote(out.string()) +
      (a.plot.empty() ? std::string() : " --plot " + shell_quote(std::filesystem::absolute(a.plot).string())) +
      " -q >/dev/null\n"  // the table of every point is sweep.csv's, not the log's
      "fi\n"
      "if [ \"$round\" -ge " + std::to_string(kSlurmRetries) + " ]; then\n"
      "  echo \"normsim sweep: shards $incomplete still incomplete after " + std::to_string(kSlurmRetries) + " retries\" >&2; exit 1\n"
      "fi\n"
      "echo \"normsim sweep: round $((round + 1)): shards $incomplete again\"\n"
      "array=$(sbatch --parsable --array=\"$incomplete\" " + shell_quote((dir / "shard.sbatch").string()) + ")\n"
      "sbatch --parsable --dependency=afterany:${array%%;*} " + shell_quote((dir / "finish.sbatch").string()) + " $((round + 1)) >/dev/null\n";
  const std::string submit =
      "#!/bin/bash\n"
      "# Submits the sweep's " + n + " shards as one array job and the finishing job after them (afterany).\n"
      "set -euo pipefail\n"
      "array=$(sbatch --parsable " + shell_quote((dir / "shard.sbatch").string()) + ")\n"
      "finish=$(sbatch --parsable --dependency=afterany:${array%%;*} " + shell_quote((dir / "finish.sbatch").string()) + " 0)\n"
      "echo \"normsim sweep: array job $array (" + n + " shards), finishing job $finish -> " + (out / "sweep.json").string() + "\"\n";
  write_report_file(dir.string(), "shard.sbatch", shard);
  write_report_file(dir.string(), "finish.sbatch", finish);
  write_report_file(dir.string(), "submit.sh", submit);
  std::cout << "normsim sweep: " << points << " points as a Slurm array of " << n << " shards and a finishing merge\n"
            << "  " << (dir / "shard.sbatch").string() << "\n  " << (dir / "finish.sbatch").string() << "\n"
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

// The sweep's own arguments as its journal keeps them, for --resume.
nlohmann::json arguments_json(const SweepArgs& a) {
  return {{"workload", a.in.workload}, {"arch", a.in.arch},       {"sets", a.in.sets},
          {"study", a.study},         {"path", a.asic.path},     {"numerics", a.numerics},
          {"allow_overflow", a.allow_overflow}, {"objectives", a.objectives}, {"no_fast_forward", a.asic.no_fast_forward},
          {"full_reports", a.full_reports},     {"axes", [&] {
             nlohmann::json v = nlohmann::json::array();
             for (const auto& [zip, text] : a.axes) v.push_back({{"zip", zip}, {"text", text}});
             return v;
           }()}};
}

// --resume DIR: the arguments the journal was started with; the flags given
// now that only say how to run (-j, --progress, --json) are kept.
SweepArgs resumed_arguments(const SweepArgs& now, const nlohmann::json& j, const std::string& file) {
  SweepArgs a = now;
  try {
    a.in.workload = j.at("workload").get<std::string>();
    a.in.arch = j.at("arch").get<std::string>();
    a.in.sets = j.at("sets").get<std::vector<std::string>>();
    a.study = j.at("study").get<std::string>();
    a.asic.path = j.at("path").get<std::string>();
    a.numerics = j.at("numerics").get<bool>();
    a.allow_overflow = j.at("allow_overflow").get<bool>();
    a.objectives = j.at("objectives").get<std::string>();
    a.asic.no_fast_forward = j.at("no_fast_forward").get<bool>();
    a.full_reports = j.at("full_reports").get<bool>();
    a.axes.clear();
    for (const auto& x : j.at("axes")) a.axes.push_back({x.at("zip").get<bool>(), x.at("text").get<std::string>()});
  } catch (const nlohmann::json::exception& e) {
    throw config::ConfigError(file + ": key 'sweep.arguments': " + e.what() + " (allowed: a journal normsim sweep writes)");
  }
  return a;
}

// One finished point as its journal line: its figures (and whole report on
// request); a bit-accurate design whose formats saturate is not one to rank.
nlohmann::json point_record(const nlohmann::json& row, const nlohmann::json& report, const SweepArgs& a) {
  nlohmann::json p = row;
  if (a.numerics && !a.allow_overflow) {
    std::string stages;
    const nlohmann::json overflow = report["numerics"].value("overflow", nlohmann::json::object());
    for (const auto& [stage, v] : overflow.items())
      if (v.is_number() && v.get<double>() > 0) stages += (stages.empty() ? "" : ", ") + stage + " " + v.dump();
    if (!stages.empty()) {
      p["status"] = "infeasible";
      p["reason"] = "saturates: " + stages + " values (allowed: formats that hold the data, or --allow-overflow to rank it)";
      return p;
    }
  }
  p["status"] = "ok";
  p["figures"] = report::point_figures(report, a.numerics);
  if (a.full_reports) p["report"] = report;
  return p;
}

// While a sweep runs, SIGINT and SIGTERM end it with one line: where its
// finished points are kept and the command that goes on from them (or, with
// no --out, that nothing is kept: its temporary journal is removed). Only
// async-signal-safe calls in the handler: the text is made beforehand.
class InterruptNote {
 public:
  InterruptNote(const std::string& out_dir, const std::string& temporary_journal, const std::string& shard) {
    if (!out_dir.empty()) {
      text_ = "\r\033[Knormsim: sweep: interrupted; every finished point is kept in " + out_dir +
              " (go on with: normsim sweep --resume " + shell_word(out_dir) + (shard.empty() ? "" : " --shard " + shard) + ")\n";
    } else {
      text_ = "\r\033[Knormsim: sweep: interrupted; nothing is kept without --out\n";
      journal_ = temporary_journal;
      dir_ = std::filesystem::path(temporary_journal).parent_path().string();
    }
    if (!isatty(STDERR_FILENO)) text_.erase(0, 4);  // no terminal: no line to clear
    (void)parent_pid();  // this process's, before any fork
    active_ = this;
    struct sigaction sa {};
    sa.sa_handler = &InterruptNote::on_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM}) sigaction(sig, &sa, &was_[sig == SIGINT ? 0 : 1]);
  }
  ~InterruptNote() {
    sigaction(SIGINT, &was_[0], nullptr);
    sigaction(SIGTERM, &was_[1], nullptr);
    active_ = nullptr;
  }
  InterruptNote(const InterruptNote&) = delete;
  InterruptNote& operator=(const InterruptNote&) = delete;

 private:
  static void on_signal(int sig) {
    if (getpid() == parent_pid() && active_ != nullptr) {  // a forked child just ends, as the default would end it
      const InterruptNote& n = *active_;
      (void)!write(STDERR_FILENO, n.text_.data(), n.text_.size());
      if (!n.journal_.empty()) {
        unlink(n.journal_.c_str());
        rmdir(n.dir_.c_str());
      }
    }
    signal(sig, SIG_DFL);
    raise(sig);
  }
  static pid_t parent_pid() {
    static const pid_t pid = getpid();
    return pid;
  }
  inline static const InterruptNote* active_ = nullptr;
  std::string text_, journal_, dir_;
  struct sigaction was_[2] {};
};

int sweep(const SweepArgs& given) {
  // --resume DIR: the journal's arguments; its shard from --shard.
  SweepArgs a = given;
  std::optional<report::SweepJournal> resume;
  if (!given.resume.empty()) {
    if (!given.in.workload.empty() || !given.in.arch.empty() || !given.study.empty() || !given.axes.empty() || !given.in.sets.empty() ||
        !given.out_dir.empty() || given.slurm)
      throw config::ConfigError("sweep: --resume DIR takes the study from DIR's journal (allowed: --resume DIR with -j, --shard, --progress, --json, --plot)");
    size_t shard = 0, shards = 1;
    if (!given.shard.empty()) std::tie(shard, shards) = parse_shard(given.shard);
    const std::string file = (std::filesystem::path(given.resume) / report::journal_name(shard, shards)).string();
    if (!std::filesystem::exists(file))
      throw config::ConfigError("sweep: --resume '" + config::printable(given.resume) + "': no " + report::journal_name(shard, shards) +
                                " there (allowed: the --out of an interrupted sweep; --shard i/n for a shard's)");
    resume = report::read_sweep_journal_file(file);
    a = resumed_arguments(given, resume->header["sweep"].value("arguments", nlohmann::json::object()), file);
    a.out_dir = given.resume;
  }
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
  if (a.sample_rows && !a.numerics)
    throw config::ConfigError("sweep: --sample-rows without --numerics (allowed: with --numerics; timing-only points compute no error)");
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
    if (a.out_dir.empty()) throw config::ConfigError("sweep: --shard needs --out (the shard's journal is merged by `normsim merge`)");
    if (a.json || !a.plot.empty()) throw config::ConfigError("sweep: --shard with --json or --plot (allowed: them on `normsim merge`)");
  }

  // Validate every point of this shard in the parent: bad input is exit 2
  // before anything runs; a design that cannot be built is a row.
  AsicFlags flags = a.asic;
  flags.no_numerics = !a.numerics;
  asic::AsicOptions o = asic_options(flags);
  o.sample_rows = a.sample_rows;
  // This shard's points: a point's row (index, typed values) and its
  // inputs are made again from the grid where needed, so the parent holds
  // no more than the grid and the indices left to run -- its size is what
  // every forked child copies.
  auto point_row = [&](size_t p) {
    nlohmann::json row = {{"index", p}, {"point", nlohmann::json::object()}};
    for (const auto& [k, v] : points[p]) row["point"][k] = config::typed_value(v);
    return row;
  };
  auto point_args = [&](size_t p) {
    InputArgs pin = in;
    for (const auto& [k, v] : points[p]) pin.sets.push_back(k + "=" + v);
    return pin;
  };
  (void)load_inputs(in);  // the study's own configs, before any point's: the report names them
  const nlohmann::json study_inputs = {{"workload", in.workload}, {"arch", in.arch}, {"sets", in.sets},
                                       {"path", a.asic.path}, {"configs", report::configs_json(report::current_stamp().configs)}};
  nlohmann::json study = report::sweep_json(keys, objectives, a.numerics, {})["study"];
  study["points"] = points.size();
  study["inputs"] = study_inputs;
  const size_t shard_points = (points.size() - shard + shards - 1) / shards;
  if (resume) {
    if (resume->study != study || resume->shard != shard || resume->shards != shards)
      throw config::ConfigError(resume->file + ": the study differs from the one its arguments give now (its files or normsim changed) " +
                                "(allowed: --resume with the files the sweep started with; or a new sweep)");
    // Finished and written: nothing to run, nothing to write again.
    namespace fs = std::filesystem;
    const bool written = shards > 1 || (fs::exists(fs::path(a.out_dir) / "sweep.json") && fs::exists(fs::path(a.out_dir) / "sweep.csv"));
    if (resume->lines.size() == shard_points && written && !a.json && a.plot.empty()) {
      spdlog::info("sweep: {} is finished: all {} points are in it{}", resume->file, shard_points,
                   shards > 1 ? " (`normsim merge` joins the shards)" : ", and sweep.json and sweep.csv are written");
      return kExitOk;
    }
  }
  ProgressLine& progress = ProgressLine::get();
  if (a.progress && !progress.on()) progress.start("normsim sweep", true);
  progress.phase("checking the points", static_cast<int64_t>(shard_points), "points");
  int64_t checked = 0;
  explore::PointTriage triage = explore::triage_points(
      points.size(), shard, shards,
      [&](size_t p) -> std::optional<std::string> {
        progress.set_done(++checked);
        Inputs inp;
        try {
          inp = load_inputs(point_args(p), false);
        } catch (const config::ConfigError& e) {
          throw config::ConfigError("sweep point " + point_row(p)["point"].dump() + ": " + e.what());
        }
        try {
          (void)asic::resolve_asic_config(inp.workload, inp.arch, o);
          return std::nullopt;
        } catch (const config::ConfigError& e) {
          return std::string(e.what());
        }
      },
      point_row);
  std::vector<size_t>& feasible = triage.feasible;
  if (shards == 1 && feasible.empty()) check_some_point_ran({triage.infeasible.front()});  // the error is the one line
  if (a.slurm) return write_slurm_job(a, points.size());

  // The journal: new, or the interrupted one (of this very study).
  namespace fs = std::filesystem;
  const bool temporary = a.out_dir.empty();  // no --out: a journal for this run only
  std::string dir = a.out_dir;
  if (temporary) {
    std::string tmpl = (fs::temp_directory_path() / "normsim-sweep.XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("sweep: cannot make a temporary directory for its journal");
    dir = tmpl;
  }
  struct RemoveTemporary {
    bool on;
    std::string dir;
    ~RemoveTemporary() {
      std::error_code ec;
      if (on) fs::remove_all(dir, ec);
    }
  } cleanup{temporary, dir};
  const std::string journal_file = (fs::path(dir) / report::journal_name(shard, shards)).string();
  const nlohmann::json sweep_info = {{"arguments", arguments_json(a)},
                                     {"command", resume ? resume->header["sweep"]["command"] : nlohmann::json(report::current_stamp().command)}};
  if (resume) report::current_stamp().command = resume->header["sweep"]["command"].get<std::vector<std::string>>();
  report::SweepJournalWriter journal(journal_file, report::journal_header(study, shard, shards, sweep_info), resume ? &*resume : nullptr);
  // What is left to do: infeasible rows written now, the rest run.
  size_t already = 0;
  for (const nlohmann::json& row : triage.infeasible) {
    if (resume && resume->lines.count(row["index"].get<size_t>())) ++already;
    else journal.add(row);
  }
  triage.infeasible.clear();
  triage.infeasible.shrink_to_fit();
  std::vector<size_t> todo;
  for (size_t p : feasible) {
    if (resume && resume->lines.count(p)) ++already;
    else todo.push_back(p);
  }
  feasible.clear();
  feasible.shrink_to_fit();
  if (resume) spdlog::info("sweep: resuming {}: {} of {} points done, {} to run", resume->file, already, shard_points, todo.size());
  const int jobs = a.jobs > 0 ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  // Ctrl-C or a kill: the line says what is kept and how to go on.
  const InterruptNote note(temporary ? "" : dir, temporary ? journal_file : "", a.shard);
  const auto t0 = std::chrono::steady_clock::now();
  explore::SweepRun run;
  run.jobs = jobs;
  run.run_point = [&](size_t p) {
    const nlohmann::json row = point_row(p);
    const std::string at = "point " + row["point"].dump() + ": ";
    try {
      const Inputs inp = load_inputs(point_args(p), false);
      const nlohmann::json r = report::asic_report_json(asic::run_asic(inp.workload, inp.arch, o));
      check_report(r, "report");
      return point_record(row, r, a);
    } catch (const config::ConfigError& e) {
      throw config::ConfigError(at + e.what());
    } catch (const config::CheckFailure& e) {
      throw config::CheckFailure(at + e.what());
    } catch (const std::exception& e) {
      throw std::runtime_error(at + e.what());
    }
  };
  run.on_record = [&](nlohmann::json&& record) { journal.add(record); };
  // Points done / total, rate and ETA on the progress line.
  run.on_progress = [&](size_t done) {
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double rate = sec > 0 ? static_cast<double>(done) / sec : 0;
    char text[128];
    std::snprintf(text, sizeof text, "%zu/%zu points, %.1f points/s, ETA %.0f s", done, todo.size(), rate,
                  rate > 0 ? static_cast<double>(todo.size() - done) / rate : 0.0);
    progress.status(text);
  };
  const int failed = explore::run_points(todo, run);
  const bool progress_on = progress.on();
  progress.finish();
  if (failed) return failed;
  progress.start("normsim sweep", progress_on);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  spdlog::info("sweep: {} points ({} run now) in {:.2f} s on {} jobs{}", shard_points, todo.size(), seconds, jobs,
               a.numerics ? ", bit-accurate" : ", timing only");
  if (shards > 1) {
    spdlog::info("sweep: shard {}/{} written to {}", shard, shards, journal_file);
    return kExitOk;
  }
  std::vector<report::SweepJournal> one;
  one.push_back(report::read_sweep_journal_file(journal_file));
  return write_sweep_outputs(report::check_journal_set(std::move(one)), temporary ? "" : a.out_dir, a.json, a.plot);
}

// The Pareto front drawn from the sweep's JSON (written to `sweep_json`,
// removed here) by tools/sweep/pareto_plot.py (matplotlib); the script's
// error, if any, becomes the one line.
void draw_pareto_plot(const std::string& sweep_json, const std::string& plot) {
  namespace fs = std::filesystem;
  const std::string err = plot + ".stderr.tmp";
  const std::string cmd = "/usr/bin/python3 " + shell_quote(data_path("tools/sweep/pareto_plot.py")) + " " + shell_quote(sweep_json) +
                          " " + shell_quote(plot) + " 2>" + shell_quote(err);
  const int rc = std::system(cmd.c_str());
  std::string last;
  if (std::ifstream in(err); in)
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) last = line;
  std::error_code ec;
  fs::remove(sweep_json, ec);
  fs::remove(err, ec);
  if (rc != 0)
    throw config::ConfigError("sweep: --plot '" + config::printable(plot) + "': the plot script failed" +
                              (last.empty() ? std::string() : ": " + config::printable(last)) +
                              " (allowed: a writable .png path, with python3-matplotlib from tools/bootstrap.sh)");
}

}  // namespace

void check_some_point_ran(const std::vector<nlohmann::json>& points) {
  for (const auto& p : points)
    if (p.value("status", "ok") == "ok") return;
  const auto& p = points.at(0);
  throw config::ConfigError("sweep: no point could be built; point " + p["point"].dump() + ": " + p["reason"].get<std::string>());
}

int write_sweep_outputs(const report::SweepJournalSet& set, const std::string& out_dir, bool json, const std::string& plot) {
  namespace fs = std::filesystem;
  const report::PointSource points = set.points();
  const nlohmann::json& study = set.study;
  report::SweepLayout layout;
  try {
    layout = report::scan_sweep(study, points);
  } catch (const std::out_of_range& e) {
    throw config::ConfigError(set.journals.front().file + ": a point lacks a figure the study ranks (" + std::string(e.what()) +
                              ") (allowed: journals normsim sweep writes)");
  }
  if (layout.columns.empty()) {  // no point ran: the first one's reason is the error
    std::vector<nlohmann::json> first;
    points([&](const nlohmann::json& p) {
      if (first.empty()) first.push_back(p);
    });
    check_some_point_ran(first);
  }
  // sweep.json: the stamp and the study as report_text writes them, then a
  // point a line, in index order.
  std::string head = report::report_text({{"study", study}}, 2);
  head.resize(head.rfind('}'));
  while (!head.empty() && (head.back() == '\n' || head.back() == ' ')) head.pop_back();
  head += ",\n  \"points\": [\n";
  const std::string tail = "\n  ]\n}\n";
  // Every output in one pass: each file through a temporary renamed into
  // place at the end (a failed run leaves no half report), stdout as it goes.
  std::ofstream json_file, csv_file;
  const std::string json_path = out_dir.empty() ? "" : (fs::path(out_dir) / "sweep.json").string();
  const std::string csv_path = out_dir.empty() ? "" : (fs::path(out_dir) / "sweep.csv").string();
  std::string plot_json = plot.empty() ? "" : plot + ".sweep.json.tmp";
  std::ofstream plot_file;
  if (!out_dir.empty()) {
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    json_file.open(json_path + ".tmp", std::ios::binary);
    csv_file.open(csv_path + ".tmp", std::ios::binary);
    if (!json_file || !csv_file) throw std::runtime_error(out_dir + ": cannot write sweep.json and sweep.csv");
  }
  if (!plot_json.empty()) plot_file.open(plot_json, std::ios::binary);
  auto to_json = [&](const std::string& text) {
    if (json_file.is_open()) json_file << text;
    if (plot_file.is_open()) plot_file << text;
    if (json) std::cout << text;
  };
  to_json(head);
  if (csv_file.is_open()) csv_file << report::sweep_csv_header(study, layout);
  // On stdout the whole table; with --out past kSummaryPoints points, a
  // summary: the counts, the files and the Pareto front's rows.
  constexpr size_t kSummaryPoints = 20;
  const size_t total = study["points"].get<size_t>();
  const bool summary = !json && json_file.is_open() && total > kSummaryPoints;
  if (!json && !summary) std::cout << report::sweep_table_header(study, layout);
  ProgressLine& progress = ProgressLine::get();
  progress.phase(out_dir.empty() ? "writing the table" : "writing sweep.json and sweep.csv", static_cast<int64_t>(total), "points");
  size_t position = 0, ok = 0, front = 0;
  std::string front_rows;
  points([&](const nlohmann::json& p) {
    nlohmann::json point = p;
    report::with_pareto(study, layout, position, point);
    to_json(std::string(position ? ",\n" : "") + "    " + point.dump());
    if (csv_file.is_open()) csv_file << report::sweep_csv_row(study, layout, point);
    if (!json && !summary) std::cout << report::sweep_table_row(study, layout, point);
    ok += point["status"] == "ok";
    if (summary && point.value("pareto", false) && ++front <= kSummaryPoints) front_rows += report::sweep_table_row(study, layout, point);
    progress.set_done(static_cast<int64_t>(++position));
  });
  to_json(tail);
  if (summary) {
    std::cout << "normsim sweep: " << position << " points, " << ok << " ran, " << position - ok << " infeasible; every point in "
              << csv_path << " and " << json_path << "\n";
    if (study["objectives"].empty()) {
      std::cout << "(no --objectives: no Pareto front to show)\n";
    } else {
      std::string over;
      for (const auto& o : study["objectives"]) over += (over.empty() ? "" : ", ") + o.get<std::string>();
      std::cout << "\nthe Pareto front over " << over << ": " << front << " points"
                << (front > kSummaryPoints ? " (the first " + std::to_string(kSummaryPoints) + " by index shown)" : "")
                << "\n\n"
                << report::sweep_table_header(study, layout) << front_rows;
    }
  }
  if (plot_file.is_open()) {
    plot_file.close();
    draw_pareto_plot(plot_json, plot);
  }
  if (json_file.is_open()) {
    json_file.close();
    csv_file.close();
    if (!json_file || !csv_file) throw std::runtime_error(out_dir + ": writing sweep.json and sweep.csv failed");
    fs::rename(json_path + ".tmp", json_path);
    fs::rename(csv_path + ".tmp", csv_path);
  }
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
  add_int_option(c, "--slurm", a->slurm, 1, 100000,
                 "write a Slurm array job of N shards and a dependent merge into --out/slurm (submit.sh submits both)");
  c->add_flag("--progress", a->progress, "progress on stderr even when it is not a terminal");
  c->add_option("--out", a->out_dir, "directory for sweep.json, sweep.csv and the journal sweep.jsonl (a shard's journal with --shard)");
  c->add_option("--resume", a->resume, "continue the interrupted sweep whose --out is DIR (its journal's study; with --shard i/n, that shard's)");
  c->add_flag("--full-reports", a->full_reports, "keep each point's whole run report in sweep.json (default: its figures)");
  add_int_option(c, "--sample-rows", a->sample_rows, 1, int64_t{1} << 40,
                 "--numerics on N rows spread over the workload (the error's spread over them reported)");
  c->add_flag("--json", a->json, "print the sweep as one JSON object on stdout");
  return {c, [a] { return sweep(*a); }};
}

}  // namespace normsim::cli
