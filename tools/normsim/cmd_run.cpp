// `normsim run`: one workload through the datapath -- the SystemC model when
// the arch has an `asic` section (cycles, traffic, area, energy, numerics),
// else the numerics alone.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <optional>

#include "command.hpp"
#include "progress.hpp"
#include "sim/report/report_stamp.hpp"
#include "sim/asic/asic_run.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/backward_run.hpp"
#include "sim/core/element_format.hpp"
#include "sim/core/functional_run.hpp"
#include "sim/report/asic_report.hpp"
#include "sim/report/run_report.hpp"

namespace normsim::cli {

namespace {

struct RunArgs {
  InputArgs in;
  AsicFlags asic;
  std::string algorithm, out_dir;
  bool json = false, fail_on_overflow = false;
};

// Memory a run may hold: what the kernel says is available now (MemAvailable,
// which counts reclaimable cache), bounded by the cgroup's limit.
uint64_t available_memory_bytes() {
  uint64_t avail = 0;
  if (std::ifstream mi("/proc/meminfo"); mi) {
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (mi >> key >> kb >> unit)
      if (key == "MemAvailable:") avail = kb * 1024;
  }
  if (avail == 0) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    avail = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2 : (uint64_t(1) << 32);
  }
  if (std::ifstream cg("/sys/fs/cgroup/memory.max"); cg) {
    std::string v;
    uint64_t used = 0;
    if (cg >> v && v != "max") {
      std::ifstream cur("/sys/fs/cgroup/memory.current");
      cur >> used;
      const uint64_t limit = std::stoull(v);
      avail = std::min(avail, limit > used ? limit - used : 0);
    }
  }
  return avail;
}

// What a run that keeps its outputs holds at its peak beyond the process
// itself (docs/RELIABILITY.md, "Memory"; measured within 3%): y (and with
// --save-inputs x and y_ref) as fp64 for every element, mean and rstd per
// row, and one tensor at a time converted to its stored type as it is written.
uint64_t kept_output_bytes(const config::Workload& w, bool inputs) {
  const auto n = static_cast<uint64_t>(w.elements()), rows = static_cast<uint64_t>(w.rows);
  // A backward keeps dx (and two C-wide gradients): no statistics, no inputs.
  if (w.is_backward()) return n * (8 + static_cast<uint64_t>(core::elem_bytes(w.output.dtype))) + static_cast<uint64_t>(w.hidden) * 32;
  const uint64_t per_element = 8 + (inputs ? 16 : 0);
  const auto stored = static_cast<uint64_t>(std::max(core::elem_bytes(w.output.dtype), inputs ? core::elem_bytes(w.input.dtype) : 0));
  return n * (per_element + stored) + rows * 16;
}

// ", y.npy, mean.npy, rstd.npy, x.npy (z.npy), y_ref.npy": the .npy files write_run_outputs wrote.
std::string saved_npy_names(const config::Workload& w, const core::KeptOutputs& out) {
  std::string s;
  if (!out.y.empty()) s += w.norm == core::NormKind::layernorm ? ", y.npy, mean.npy, rstd.npy" : ", y.npy, rstd.npy";
  if (!out.x.empty()) s += w.residual ? ", z.npy, y_ref.npy" : ", x.npy, y_ref.npy";
  return s;
}

// The same for a backward run's kept gradients.
std::string saved_npy_names(const config::Workload& w, const core::BackwardOutputs& out) {
  if (out.dx.empty()) return "";
  return std::string(w.norm == core::NormKind::layernorm ? ", dx.npy, dgamma.npy, dbeta.npy" : ", dx.npy, dgamma.npy") +
         (out.dbranch.empty() ? "" : ", dbranch.npy");
}

void log_removed(const std::string& dir, const std::vector<std::string>& removed) {
  for (const auto& f : removed) spdlog::info("run: removed {}/{}: an earlier run's output, not written by this one", dir, f);
}

int run_asic_model(const RunArgs& a, const config::Workload& w, const config::Arch& arch, asic::AsicOptions o) {
  o.rows_done = ProgressLine::get().done_counter();
  ProgressLine::get().phase(a.asic.rtl ? "simulating with the RTL in lock step" : a.asic.rtl_full ? "simulating (the RTL after)" : "simulating",
                            w.rows, "rows");
  const auto t0 = std::chrono::steady_clock::now();
  const asic::AsicResult r = asic::run_asic(w, arch, o);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  spdlog::debug("run: simulated {} rows in {:.3f} s ({:.0f} rows/s{}), {:.0f} cycles", w.rows, s, s > 0 ? w.rows / s : 0.0,
                o.numerics ? ", bit-accurate" : ", timing only", r.cycles);
  const nlohmann::json report = report::asic_report_json(r);
  log_warnings(report, "run");
  check_report(report, "run");
  if (!a.out_dir.empty()) {
    const auto removed = report::write_run_outputs(a.out_dir, r.workload, r.outputs, report, &r.backward_outputs);
    spdlog::info("run: wrote {}/report.json, report.csv{}{}", a.out_dir, saved_npy_names(w, r.outputs),
                 saved_npy_names(w, r.backward_outputs));
    log_removed(a.out_dir, removed);
  }
  if (!a.asic.trace.empty()) spdlog::info("run: wrote trace {}", a.asic.trace);
  if (a.json) std::cout << report::report_text(report) << "\n";
  else std::cout << report::asic_summary_table(r, report);
  if (a.fail_on_overflow) check_no_overflow(report, "run");
  return kExitOk;
}

int run(RunArgs a) {
  if (a.fail_on_overflow && a.asic.no_numerics)
    throw config::ConfigError("--fail-on-overflow: nothing is computed with --no-numerics, so nothing can overflow (allowed: one of them)");
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
  if (a.asic.save_inputs && w.is_backward())
    throw config::ConfigError("--save-inputs: " + w.origin_of("pass") +
                              ": a backward run keeps dx, dgamma and dbeta (--save-outputs), not its inputs and reference yet "
                              "(allowed: --save-outputs)");
  if (a.asic.save_outputs || a.asic.save_inputs) {
    const char* flag = a.asic.save_outputs ? "--save-outputs" : "--save-inputs";
    if (a.out_dir.empty()) throw config::ConfigError(std::string(flag) + ": needs --out DIR to write the .npy files into");
    const uint64_t need = kept_output_bytes(w, a.asic.save_inputs), limit = available_memory_bytes();
    if (need > limit)
      throw config::ConfigError(w.source + ": key 'rows': " + std::to_string(w.rows) + " x " + std::to_string(w.hidden) +
                                " elements need " + std::to_string(need >> 20) + " MiB held to save with " + flag +
                                ", more than the " + std::to_string(limit >> 20) +
                                " MiB this machine has available (allowed: run without " + flag + ", or fewer rows)");
  }
  // Every input and output checked before the first log line and the work.
  check_out_dir(a.out_dir);
  std::optional<asic::AsicOptions> o;
  std::optional<asic::AsicConfig> design;
  if (arch.asic) {
    o = asic_options(a.asic);
    design = asic::resolve_asic_config(w, arch, *o);
  } else if (!a.asic.path.empty() || a.asic.no_numerics || !a.asic.trace.empty() || a.asic.rtl || a.asic.rtl_full) {
    throw config::ConfigError(arch.source + ": key 'asic': missing: --path, --no-numerics, --trace, --rtl and --rtl-full need the timing "
                                            "model (allowed: an arch with an 'asic' section, e.g. workloads/arch/asic-default.yaml)");
  }
  spdlog::info("run: workload {} ({}), arch {} ({})", w.name, w.source, arch.name, arch.source);
  // -v: what exactly runs (the resolved configs by hash, each --set, the design).
  spdlog::debug("run: workload sha256 {}: {} rows x {} elements, {} in, {} out", w.sha256, w.rows, w.hidden,
                core::to_string(w.input.dtype), core::to_string(w.output.dtype));
  spdlog::debug("run: arch sha256 {}", arch.sha256);
  for (const auto& s : a.in.sets) spdlog::debug("run: --set {}", s);
  if (design) {
    const asic::AsicConfig& c = *design;
    spdlog::debug("run: {} at {} GHz, {} rows in flight, {} datapaths x {} lanes, SRAM {} B, DRAM {} bytes/cycle sustained",
                  config::to_string(c.path), c.clock_ghz, c.rows_in_flight, c.datapaths, arch.lanes, c.sram.capacity_bytes,
                  c.dram_port().sustained_bytes_per_cycle.value());
  }

  if (o) return run_asic_model(a, w, arch, *o);
  ProgressLine::get().phase("numerics");
  if (w.is_backward()) {  // an arch without a timing model: the backward's numerics alone
    const core::DatapathConfig fwd = config::datapath_config(w, arch, a.asic.algorithm);
    core::BackwardOutputs kept;
    const core::BackwardNumerics bn =
        core::run_backward_functional(w, fwd, config::backward_config(w, arch), a.asic.save_outputs ? &kept : nullptr);
    core::NumericsResult none;
    core::init_numerics(none, w, fwd);
    nlohmann::json report = report::run_report_json(w, arch, none);
    report["numerics"] = report::backward_numerics_json(w, arch, bn);
    log_warnings(report, "run");
    check_report(report, "run");
    if (!a.out_dir.empty()) {
      const auto removed = report::write_run_outputs(a.out_dir, w, core::KeptOutputs{}, report, &kept);
      spdlog::info("run: wrote {}/report.json, report.csv{}", a.out_dir, saved_npy_names(w, kept));
      log_removed(a.out_dir, removed);
    }
    if (a.json) std::cout << report::report_text(report) << "\n";
    else {
      const std::string head = report::run_summary_table(w, arch, none);
      std::cout << head.substr(0, head.find("\n\n") + 2) << report::backward_numerics_table(w, arch, bn);
    }
    if (a.fail_on_overflow) check_no_overflow(report, "run");
    return kExitOk;
  }
  const core::FunctionalResult r = core::run_functional(
      w, config::datapath_config(w, arch, a.asic.algorithm),
      core::FunctionalOptions{a.asic.save_outputs || a.asic.save_inputs, a.asic.save_inputs, thread_count(a.asic.threads)});
  const nlohmann::json report = report::run_report_json(w, arch, r.numerics);
  log_warnings(report, "run");
  check_report(report, "run");
  if (!a.out_dir.empty()) {
    const auto removed = report::write_run_outputs(a.out_dir, w, r.outputs, report);
    spdlog::info("run: wrote {}/report.json, report.csv{}", a.out_dir, saved_npy_names(w, r.outputs));
    log_removed(a.out_dir, removed);
  }
  if (a.json) std::cout << report::report_text(report) << "\n";
  else std::cout << report::run_summary_table(w, arch, r.numerics);
  if (a.fail_on_overflow) check_no_overflow(report, "run");
  return kExitOk;
}

}  // namespace

Command add_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* c = app.add_subcommand("run", "run a workload through the datapath and report its numerics");
  c->fallthrough();  // -v/-q after the subcommand too
  add_input_options(c, a->in, {"arch", "", ": workload.rows=64, arch.formats.sumsq.bits=24", ""});
  c->add_option("--algorithm", a->algorithm, "LayerNorm variance algorithm: welford, two-pass, single-pass");
  c->add_option("--out", a->out_dir, "directory for report.json, report.csv (and .npy outputs)");
  c->add_flag("--json", a->json, "print the report as one JSON object on stdout");
  c->add_flag("--fail-on-overflow", a->fail_on_overflow,
              "exit 1 when any fixed-point stage saturated or wrapped (each such stage is a warning line either way)");
  c->add_flag("--save-outputs", a->asic.save_outputs, "also write y.npy (in the output's dtype; bf16 as uint16 bits), mean.npy, rstd.npy into --out");
  c->add_flag("--save-inputs", a->asic.save_inputs, "also write x.npy (in the input's dtype; z.npy, the sum the norm takes, for a residual workload) and y_ref.npy (the fp64 reference) into --out");
  add_int_option(c, "--threads", a->asic.threads, 1, 1024, "threads for the numerics, over rows (default: all cores; same bits for any count)");
  c->add_option("--path", a->asic.path, "input path of the ASIC model: " + config::kInputPaths.joined());
  c->add_flag("--no-numerics", a->asic.no_numerics, "timing only: same cycles and traffic, no arithmetic");
  c->add_flag("--no-fast-forward", a->asic.no_fast_forward, kNoFastForwardHelp);
  c->add_flag("--rtl", a->asic.rtl, "lock-step the verilated RTL pipeline: statistics, y and latencies checked bit for bit");
  c->add_flag("--rtl-full", a->asic.rtl_full,
              "run the verilated forward unit's control (separate adder, input path, lanes, re-read stream, normalise unit, memory ports) on the "
              "same design, clocked (asic.timing: cycle), and compare every request, hand-over and take edge for edge, and each request's bytes");
  c->add_option("--trace", a->asic.trace,
                "write a VCD of the first rows: a scope per unit (each port's valid/ready/fire), per FIFO (occupancy) and "
                "per memory port (request/outstanding/grant)");
  add_int_option(c, "--trace-rows", a->asic.trace_rows, 1, int64_t(1) << 32, "rows the --trace VCD covers, from the first (default 8)");
  return {c, [a] { return run(*a); }};
}

}  // namespace normsim::cli
