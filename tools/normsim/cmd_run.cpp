// `normsim run`: one workload through the datapath -- the SystemC model when
// the arch has an `asic` section (cycles, traffic, area, energy, numerics),
// else the numerics alone.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <iostream>

#include "command.hpp"
#include "sim/asic/asic_run.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/functional_run.hpp"
#include "sim/report/asic_report.hpp"
#include "sim/report/run_report.hpp"

namespace normsim::cli {

namespace {

struct RunArgs {
  InputArgs in;
  AsicFlags asic;
  std::string algorithm, out_dir;
  bool json = false;
};

// Memory a run may use for kept outputs: half the physical memory.
uint64_t output_memory_budget_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2 : (uint64_t(1) << 32);
}

int run_asic_model(const RunArgs& a, const config::Workload& w, const config::Arch& arch) {
  const asic::AsicOptions o = asic_options(a.asic);
  const asic::AsicResult r = asic::run_asic(w, arch, o);
  const nlohmann::json report = report::asic_report_json(r);
  if (!a.out_dir.empty()) {
    report::write_run_outputs(a.out_dir, r.workload, r.outputs, report);
    spdlog::info("run: wrote {}/report.json, report.csv", a.out_dir);
  }
  if (!a.asic.trace.empty()) spdlog::info("run: wrote trace {}", a.asic.trace);
  if (a.json) std::cout << report.dump() << "\n";
  else std::cout << report::asic_summary_table(r, report);
  return kExitOk;
}

int run(RunArgs a) {
  const auto [w, arch] = load_inputs(a.in);
  if (!a.algorithm.empty()) {
    const auto alg = core::parse_variance_algorithm(a.algorithm);
    if (!alg)
      throw config::ConfigError("--algorithm: unknown value '" + a.algorithm + "' (allowed: " +
                                std::string(core::kAlgorithmNames) + ")");
    if (w.norm == core::NormKind::rmsnorm)
      throw config::ConfigError("--algorithm: " + w.source +
                                " is an rmsnorm workload, whose only statistic is the sum of squares "
                                "(allowed: leave --algorithm out)");
    a.asic.algorithm = alg;
  }
  if (a.asic.save_outputs || a.asic.save_inputs) {
    const char* flag = a.asic.save_outputs ? "--save-outputs" : "--save-inputs";
    if (a.out_dir.empty()) throw config::ConfigError(std::string(flag) + ": needs --out DIR to write the .npy files into");
    const uint64_t need = static_cast<uint64_t>(w.elements()) * (a.asic.save_inputs ? 24 : 8) + static_cast<uint64_t>(w.rows) * 16;
    if (need > output_memory_budget_bytes())
      throw config::ConfigError(w.source + ": key 'rows': " + std::to_string(w.rows) + " x " + std::to_string(w.hidden) +
                                " outputs need " + std::to_string(need >> 20) +
                                " MiB to save, more than half this machine's memory (allowed: run without "
                                "--save-outputs, or fewer rows)");
  }
  spdlog::info("run: workload {} ({}), arch {} ({})", w.name, w.source, arch.name, arch.source);

  if (arch.asic) return run_asic_model(a, w, arch);
  if (!a.asic.path.empty() || a.asic.no_numerics || !a.asic.trace.empty() || a.asic.rtl)
    throw config::ConfigError(arch.source + ": key 'asic': missing: --path, --no-numerics, --trace and --rtl need the timing "
                                            "model (allowed: an arch with an 'asic' section, e.g. workloads/arch/asic-default.yaml)");
  const core::FunctionalResult r = core::run_functional(
      w, config::datapath_config(w, arch, a.asic.algorithm),
      core::FunctionalOptions{a.asic.save_outputs || a.asic.save_inputs, a.asic.save_inputs, thread_count(a.asic.threads)});
  const nlohmann::json report = report::run_report_json(w, arch, r.numerics);
  if (!a.out_dir.empty()) {
    report::write_run_outputs(a.out_dir, w, r.outputs, report);
    spdlog::info("run: wrote {}/report.json, report.csv{}{}", a.out_dir, r.outputs.y.empty() ? "" : ", y.npy, mean.npy, rstd.npy",
                 r.outputs.x.empty() ? "" : ", x.npy, y_ref.npy");
  }
  if (a.json) std::cout << report.dump() << "\n";
  else std::cout << report::run_summary_table(w, arch, r.numerics);
  return kExitOk;
}

}  // namespace

Command add_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* c = app.add_subcommand("run", "run a workload through the datapath and report its numerics");
  c->fallthrough();  // -v/-q after the subcommand too
  c->add_option("workload", a->in.workload, "workload YAML (default: the embedded llama2-7b)");
  c->add_option("--arch", a->in.arch, "architecture YAML (default: the embedded asic-default)");
  c->add_option("--algorithm", a->algorithm, "LayerNorm variance algorithm: welford, two-pass, single-pass");
  c->add_option("--out", a->out_dir, "directory for report.json, report.csv (and .npy outputs)");
  c->add_option("--set", a->in.sets, "override a key: workload.rows=64, arch.formats.sumsq.bits=24 (repeatable)");
  c->add_flag("--json", a->json, "print the report as one JSON object on stdout");
  c->add_flag("--save-outputs", a->asic.save_outputs, "also write y.npy (in the output's dtype; bf16 as uint16 bits), mean.npy, rstd.npy into --out");
  c->add_flag("--save-inputs", a->asic.save_inputs, "also write x.npy (in the input's dtype) and y_ref.npy (the fp64 reference) into --out");
  c->add_option("--threads", a->asic.threads, "threads for the numerics, over rows (default: all cores; same bits for any count)")
      ->check(CLI::Range(1, 1024));
  c->add_option("--path", a->asic.path, "input path of the ASIC model: sram-replay, dram-reread, partial-replay");
  c->add_flag("--no-numerics", a->asic.no_numerics, "timing only: same cycles and traffic, no arithmetic");
  c->add_flag("--rtl", a->asic.rtl, "lock-step the verilated RTL pipeline: statistics, y and latencies checked bit for bit");
  c->add_option("--trace", a->asic.trace, "write a VCD of the first rows' handshakes and counters");
  return {c, [a] { return run(*a); }};
}

}  // namespace normsim::cli
