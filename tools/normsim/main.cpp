// normsim command line. Logs go to stderr; `--json` prints exactly one JSON
// object on stdout. Exit codes: 0 ok, 1 a check failed, 2 bad input.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <unistd.h>

#include "sim/config/config_error.hpp"
#include "sim/report/run_report.hpp"
#include "sim/run/functional_run.hpp"

#ifndef NORMSIM_VERSION
#define NORMSIM_VERSION "0.0.0"
#endif

namespace {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;

struct RunArgs {
  std::string workload, arch, algorithm, out_dir;
  std::vector<std::string> sets;
  bool json = false, save_outputs = false;
};

// Memory a run may use for kept outputs: half the physical memory.
uint64_t output_memory_budget_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2 : (uint64_t(1) << 32);
}

int cmd_run(const RunArgs& a) {
  using namespace normsim;
  std::vector<config::Override> ov;
  for (const auto& s : a.sets) ov.push_back(config::parse_override(s));
  const config::Workload w = a.workload.empty() ? config::default_workload(ov) : config::load_workload(a.workload, ov);
  const config::Arch arch = a.arch.empty() ? config::default_arch(ov) : config::load_arch(a.arch, ov);
  run::RunOptions opt;
  if (!a.algorithm.empty()) {
    const auto alg = core::parse_variance_algorithm(a.algorithm);
    if (!alg)
      throw config::ConfigError("--algorithm: unknown value '" + a.algorithm + "' (allowed: " +
                                std::string(core::kAlgorithmNames) + ")");
    if (w.norm == core::NormKind::rmsnorm)
      throw config::ConfigError("--algorithm: " + w.source +
                                " is an rmsnorm workload, whose only statistic is the sum of squares "
                                "(allowed: leave --algorithm out)");
    opt.algorithm = alg;
  }
  opt.keep_outputs = a.save_outputs;
  if (a.save_outputs) {
    if (a.out_dir.empty()) throw config::ConfigError("--save-outputs: needs --out DIR to write the .npy files into");
    const uint64_t need = static_cast<uint64_t>(w.elements()) * 8 + static_cast<uint64_t>(w.rows) * 16;
    if (need > output_memory_budget_bytes())
      throw config::ConfigError(w.source + ": key 'rows': " + std::to_string(w.rows) + " x " + std::to_string(w.hidden) +
                                " outputs need " + std::to_string(need >> 20) +
                                " MiB to save, more than half this machine's memory (allowed: run without "
                                "--save-outputs, or fewer rows)");
  }
  spdlog::info("run: workload {} ({}), arch {} ({})", w.name, w.source, arch.name, arch.source);
  // Validate the combination before doing any work (exit 2 on a bad pair).
  (void)run::make_datapath_config(w, arch, opt);

  const run::RunResult r = run::run_functional(w, arch, opt);
  const nlohmann::json report = report::run_report_json(r);
  if (!a.out_dir.empty()) {
    report::write_run_outputs(a.out_dir, r, report);
    spdlog::info("run: wrote {}/report.json, report.csv{}", a.out_dir, r.y.empty() ? "" : ", y.npy, mean.npy, rstd.npy");
  }
  if (a.json) {
    std::cout << report.dump() << "\n";
  } else {
    std::cout << report::run_summary_table(r);
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt("normsim");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
  spdlog::set_level(spdlog::level::info);

  CLI::App app{"normsim: cycle-approximate simulator of LayerNorm/RMSNorm hardware"};
  app.set_version_flag("--version", std::string("normsim ") + NORMSIM_VERSION);
  bool verbose = false, quiet = false;
  app.add_flag("-v,--verbose", verbose, "debug logging on stderr");
  app.add_flag("-q,--quiet", quiet, "only errors on stderr");

  RunArgs ra;
  auto* run = app.add_subcommand("run", "run a workload through the datapath and report its numerics");
  run->fallthrough();  // -v/-q after the subcommand too
  run->add_option("workload", ra.workload, "workload YAML (default: the embedded gpt2-small)");
  run->add_option("--arch", ra.arch, "architecture YAML (default: the embedded fixed16)");
  run->add_option("--algorithm", ra.algorithm, "LayerNorm variance algorithm: welford, two-pass, single-pass");
  run->add_option("--out", ra.out_dir, "directory for report.json, report.csv (and .npy outputs)");
  run->add_option("--set", ra.sets, "override a key: workload.rows=64, arch.formats.sumsq.bits=24 (repeatable)");
  run->add_flag("--json", ra.json, "print the report as one JSON object on stdout");
  run->add_flag("--save-outputs", ra.save_outputs, "also write y.npy, mean.npy, rstd.npy into --out");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "normsim: %s (see normsim --help)\n", e.what());
    return kExitBadInput;
  }
  if (quiet) spdlog::set_level(spdlog::level::err);
  if (verbose) spdlog::set_level(spdlog::level::debug);

  try {
    if (*run) return cmd_run(ra);
    std::cout << app.help();
    return kExitOk;
  } catch (const normsim::config::ConfigError& e) {
    std::fprintf(stderr, "normsim: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "normsim: error: %s\n", e.what());
    return kExitBadInput;
  }
}
