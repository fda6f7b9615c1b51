// normsim command line. Logs go to stderr; `--json` prints exactly one JSON
// object on stdout. Exit codes: 0 ok, 1 a check failed, 2 bad input.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <unistd.h>

#include <sys/wait.h>

#include "sim/asic/asic_run.hpp"
#include "sim/config/config_error.hpp"
#include "sim/report/asic_report.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/run_report.hpp"
#include "sim/run/functional_run.hpp"
#include "sim/area/area_energy.hpp"
#include "sim/rtl/synthesis.hpp"
#include "sim/config/embedded_configs.hpp"
#include "sim/simt/regress.hpp"

#ifndef NORMSIM_VERSION
#define NORMSIM_VERSION "0.0.0"
#endif

namespace {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;

struct RunArgs {
  std::string workload, arch, algorithm, out_dir, path, trace;
  std::vector<std::string> sets;
  bool json = false, save_outputs = false, no_numerics = false, rtl = false;
};

// Memory a run may use for kept outputs: half the physical memory.
uint64_t output_memory_budget_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2 : (uint64_t(1) << 32);
}

struct Inputs {
  normsim::config::Workload workload;
  normsim::config::Arch arch;
};

// The workload and arch a command names (or the embedded defaults), with --set applied.
Inputs load_inputs(const RunArgs& a) {
  using namespace normsim;
  std::vector<config::Override> ov;
  for (const auto& s : a.sets) {
    ov.push_back(config::parse_override(s));
    if (ov.back().target == "gpu")
      throw config::ConfigError("--set: key '" + s + "': gpu keys belong to `normsim simt` (allowed: workload.KEY=VALUE, arch.KEY=VALUE)");
  }
  return Inputs{a.workload.empty() ? config::default_workload(ov) : config::load_workload(a.workload, ov),
                a.arch.empty() ? config::default_arch(ov) : config::load_arch(a.arch, ov)};
}

std::optional<normsim::asic::InputPath> parse_path_flag(const std::string& p) {
  if (p.empty()) return std::nullopt;
  auto ip = normsim::asic::parse_input_path(p);
  if (!ip)
    throw normsim::config::ConfigError("--path: unknown value '" + p + "' (allowed: " +
                                       std::string(normsim::asic::kInputPathNames) + ")");
  return ip;
}

normsim::asic::AsicOptions asic_options(const RunArgs& a, const normsim::run::RunOptions& opt) {
  normsim::asic::AsicOptions o;
  o.algorithm = opt.algorithm;
  o.path = parse_path_flag(a.path);
  o.numerics = !a.no_numerics;
  o.keep_outputs = opt.keep_outputs;
  o.trace_file = a.trace;
  o.rtl = a.rtl;
  if (a.rtl && a.no_numerics)
    throw normsim::config::ConfigError("--rtl: the RTL computes the numerics (allowed: one of --rtl, --no-numerics)");
  if (a.no_numerics && a.save_outputs)
    throw normsim::config::ConfigError("--save-outputs: there are no outputs with --no-numerics (allowed: one of them)");
  return o;
}

int run_asic_model(const RunArgs& a, const normsim::config::Workload& w, const normsim::config::Arch& arch,
                   const normsim::run::RunOptions& opt) {
  using namespace normsim;
  const asic::AsicOptions o = asic_options(a, opt);
  const asic::AsicResult r = asic::run_asic(w, arch, o);
  const nlohmann::json report = report::asic_report_json(r);
  if (!a.out_dir.empty()) {
    report::write_run_outputs(a.out_dir, r.run, report);
    spdlog::info("run: wrote {}/report.json, report.csv", a.out_dir);
  }
  if (!a.trace.empty()) spdlog::info("run: wrote trace {}", a.trace);
  if (a.json) std::cout << report.dump() << "\n";
  else std::cout << report::asic_summary_table(r, report);
  return kExitOk;
}

// SystemC elaborates once per process: every simulation of `compare` and
// `sweep` runs in a forked child (which also skips the process start) and
// sends its report back through a pipe. Returns the child's exit code.
int report_from_child(const std::function<nlohmann::json()>& simulate, const std::string& what, nlohmann::json& out) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(what + ": pipe failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(what + ": fork failed");
  if (pid == 0) {
    close(fds[0]);
    int rc = 0;
    try {
      const std::string text = simulate().dump();
      size_t off = 0;
      while (off < text.size()) {
        const ssize_t n = write(fds[1], text.data() + off, text.size() - off);
        if (n <= 0) break;
        off += static_cast<size_t>(n);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "normsim: %s: %s\n", what.c_str(), e.what());
      rc = 2;
    }
    close(fds[1]);
    _exit(rc);
  }
  close(fds[1]);
  std::string text;
  char buf[65536];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  out = nlohmann::json::parse(text);
  return 0;
}

int cmd_compare(const RunArgs& a) {
  using namespace normsim;
  const auto [w, arch] = load_inputs(a);
  run::RunOptions opt;
  std::vector<nlohmann::json> reports;
  for (auto path : {asic::InputPath::sram_replay, asic::InputPath::dram_reread, asic::InputPath::partial_replay}) {
    asic::AsicOptions o = asic_options(a, opt);
    o.path = path;
    (void)asic::resolve_asic_config(w, arch, o);  // exit 2 in the parent, with the path's reason
    nlohmann::json report;
    const std::string name(asic::to_string(path));
    if (int rc = report_from_child([&] { return report::asic_report_json(asic::run_asic(w, arch, o)); },
                                   "compare (" + name + ")", report))
      return rc;
    reports.push_back(std::move(report));
    spdlog::info("compare: {} done", name);
  }
  const nlohmann::json all = {{"paths", reports}};
  if (!a.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.out_dir, ec);
    report::write_file_atomic(a.out_dir + "/compare.json", all.dump(2) + "\n");
    report::write_file_atomic(a.out_dir + "/compare.txt", report::compare_table(reports));
  }
  if (a.json) std::cout << all.dump() << "\n";
  else std::cout << report::compare_table(reports);
  return kExitOk;
}

struct SweepArgs {
  RunArgs run;
  std::vector<std::string> grids;
  bool numerics = false;
};

// `sweep`: every point of the grid (the Cartesian product of the --grid
// values, on top of --set) through the ASIC model, timing only unless
// --numerics; one row per point.
int cmd_sweep(const SweepArgs& a) {
  using namespace normsim;
  using Clock = std::chrono::steady_clock;
  if (a.grids.empty()) throw config::ConfigError("sweep: --grid: missing (allowed: KEY=V1,V2,... with KEY workload.* or arch.*)");
  struct Axis {
    std::string key;
    std::vector<std::string> values;
  };
  std::vector<Axis> axes;
  size_t points = 1;
  for (const auto& g : a.grids) {
    const auto eq = g.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == g.size())
      throw config::ConfigError("sweep: --grid '" + g + "': expected KEY=V1,V2,... (allowed: workload.* or arch.* keys)");
    Axis ax{g.substr(0, eq), {}};
    std::string rest = g.substr(eq + 1);
    for (size_t start = 0;;) {
      const size_t comma = rest.find(',', start);
      ax.values.push_back(rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    for (const auto& v : ax.values) {
      if (v.empty()) throw config::ConfigError("sweep: --grid '" + g + "': empty value (allowed: KEY=V1,V2,...)");
      if (config::parse_override(ax.key + "=" + v).target == "gpu")
        throw config::ConfigError("sweep: --grid '" + g + "': gpu keys belong to `normsim simt` (allowed: workload.*, arch.*)");
    }
    points *= ax.values.size();
    if (points > 1000000) throw config::ConfigError("sweep: more than 1000000 points (allowed: up to 1000000)");
    axes.push_back(std::move(ax));
  }
  std::vector<nlohmann::json> rows;
  double sim_seconds = 0;
  for (size_t p = 0; p < points; ++p) {
    RunArgs ra = a.run;
    ra.no_numerics = !a.numerics;
    nlohmann::json point = nlohmann::json::object();
    size_t idx = p;
    for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
      const std::string& v = it->values[idx % it->values.size()];
      idx /= it->values.size();
      ra.sets.push_back(it->key + "=" + v);
      point[it->key] = v;
    }
    // Every point is validated here, in the parent: bad input is exit 2 before a child runs.
    Inputs in;
    try {
      in = load_inputs(ra);
    } catch (const config::ConfigError& e) {
      throw config::ConfigError("sweep point " + point.dump() + ": " + e.what());
    }
    run::RunOptions opt;
    const asic::AsicOptions o = asic_options(ra, opt);
    try {
      (void)asic::resolve_asic_config(in.workload, in.arch, o);
    } catch (const config::ConfigError& e) {
      throw config::ConfigError("sweep point " + point.dump() + ": " + e.what());
    }
    nlohmann::json report;
    const auto t0 = Clock::now();
    if (int rc = report_from_child([&] { return report::asic_report_json(asic::run_asic(in.workload, in.arch, o)); },
                                   "sweep point " + point.dump(), report))
      return rc;
    sim_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    rows.push_back({{"point", point}, {"report", report}});
  }
  spdlog::info("sweep: {} points, {:.2f} ms per point (forked child, {})", points, 1e3 * sim_seconds / points,
               a.numerics ? "bit-accurate" : "timing only");
  // One line per point: the grid values, then the figures users compare
  // (units in the column names), as a table and as CSV.
  struct Column {
    const char* table;  // table heading
    const char* csv;    // CSV heading
    const char* group;  // report section
    const char* key;
    const char* format;
  };
  std::vector<Column> cols = {{"cycles", "cycles", "timing", "cycles", "%-13.0f"},
                              {"time_us", "time_us", "timing", "time_us", "%-8.1f"},
                              {"DRAM_read_bytes", "dram_bytes_read", "traffic", "dram_bytes_read", "%-16.0f"},
                              {"DRAM_written_bytes", "dram_bytes_written", "traffic", "dram_bytes_written", "%-19.0f"},
                              {"DRAM_GB/s", "dram_gbps", "traffic", "dram_gbps", "%-10.2f"},
                              {"SRAM_bytes", "sram_capacity_bytes", "area", "sram_capacity_bytes", "%-10.0f"},
                              {"area_mm2", "area_total_mm2", "area", "total_mm2", "%-10.4f"},
                              {"energy_uJ", "energy_total_uj", "energy", "total_uj", "%-10.4g"}};
  if (a.numerics) {
    cols.push_back({"rel_l2_error", "rel_l2_error", "numerics", "rel_l2_error", "%-12.4g"});
    cols.push_back({"max_ulp", "max_ulp_error", "numerics", "max_ulp_error", "%-8.4g"});
  }
  std::string table, csv;
  char b[512];
  for (const auto& ax : axes) {
    std::snprintf(b, sizeof b, "%-24s ", ax.key.c_str());
    table += b;
    csv += ax.key + ",";
  }
  for (size_t c = 0; c < cols.size(); ++c) {
    std::snprintf(b, sizeof b, "%-*s ", std::atoi(cols[c].format + 2), cols[c].table);
    table += b;
    csv += std::string(cols[c].csv) + (c + 1 < cols.size() ? "," : "\n");
  }
  table += "\n";
  for (const auto& r : rows) {
    for (const auto& ax : axes) {
      const std::string v = r["point"][ax.key].get<std::string>();
      std::snprintf(b, sizeof b, "%-24s ", v.c_str());
      table += b;
      csv += v + ",";
    }
    for (size_t c = 0; c < cols.size(); ++c) {
      const double v = r["report"][cols[c].group][cols[c].key].get<double>();
      std::snprintf(b, sizeof b, cols[c].format, v);
      table += b;
      table += " ";
      std::snprintf(b, sizeof b, "%.15g", v);  // integers (cycles, bytes) exactly
      csv += std::string(b) + (c + 1 < cols.size() ? "," : "\n");
    }
    table += "\n";
  }
  const nlohmann::json all = {{"points", rows}, {"mode", a.numerics ? "bit-accurate" : "timing-only"}};
  if (!a.run.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.run.out_dir, ec);
    report::write_file_atomic(a.run.out_dir + "/sweep.json", all.dump(2) + "\n");
    report::write_file_atomic(a.run.out_dir + "/sweep.csv", csv);
  }
  if (a.run.json) std::cout << all.dump() << "\n";
  else std::cout << table;
  return kExitOk;
}

int cmd_run(const RunArgs& a) {
  using namespace normsim;
  const auto [w, arch] = load_inputs(a);
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

  if (arch.asic) return run_asic_model(a, w, arch, opt);
  if (!a.path.empty() || a.no_numerics || !a.trace.empty() || a.rtl)
    throw config::ConfigError(arch.source + ": key 'asic': missing: --path, --no-numerics, --trace and --rtl need the timing "
                                            "model (allowed: an arch with an 'asic' section, e.g. workloads/arch/asic-default.yaml)");
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

struct SimtArgs {
  std::string kernel, workload, dtype = "fp32", gpu;
  int64_t rows = 0, hidden = 0;
  int block = 0;
  bool json = false;
  std::vector<std::string> sets;
};

normsim::simt::GpuArch load_gpu(const std::string& path, const std::vector<std::string>& sets) {
  std::vector<normsim::config::Override> ov;
  for (const auto& s : sets) {
    ov.push_back(normsim::config::parse_override(s));
    if (ov.back().target != "gpu")
      throw normsim::config::ConfigError("--set: key '" + s + "': simt takes GPU keys only (allowed: gpu.KEY[.KEY]=VALUE)");
  }
  return path.empty() ? normsim::simt::default_gpu_arch(ov) : normsim::simt::load_gpu_arch(path, ov);
}

int cmd_simt(const SimtArgs& a) {
  using namespace normsim;
  if (a.kernel.empty())
    throw config::ConfigError("simt: --kernel: missing (allowed: " + [] {
      std::string n;
      for (const auto& k : simt::simt_kernel_names()) n += (n.empty() ? "" : ", ") + k;
      return n;
    }() + ")");
  int64_t rows = a.rows, hidden = a.hidden;
  std::string dtype = a.dtype;
  if (!a.workload.empty()) {
    if (a.rows || a.hidden) throw config::ConfigError("simt: --workload and --rows/--hidden: give one of them");
    const config::Workload w = config::load_workload(a.workload);
    rows = w.rows;
    hidden = w.hidden;
    dtype = std::string(core::to_string(w.input.dtype));
    if (dtype != "fp32" && dtype != "bf16")
      throw config::ConfigError("simt: " + a.workload + ": input dtype " + dtype +
                                " has no gpu_ref kernel (allowed: fp32, bf16)");
    const bool rms_kernel = a.kernel.rfind("rms_", 0) == 0;
    if (rms_kernel != (w.norm == core::NormKind::rmsnorm))
      throw config::ConfigError("simt: --kernel " + a.kernel + " computes " + (rms_kernel ? "RMSNorm" : "LayerNorm") +
                                " but " + a.workload + " is " + std::string(core::to_string(w.norm)) +
                                " (allowed: " + (rms_kernel ? "v1..v6, welford_warp_reg, welford_block_smem, block_reread" : "rms_warp, rms_block") + ")");
  } else if (!rows || !hidden) {
    throw config::ConfigError("simt: give --workload W or both --rows N and --hidden C");
  }
  const simt::GpuArch gpu = load_gpu(a.gpu, a.sets);
  const simt::Prediction p = simt::predict(simt::plan_launch(a.kernel, rows, hidden, dtype, a.block, gpu), gpu);
  if (a.json) {
    nlohmann::json launches = nlohmann::json::array();
    for (size_t i = 0; i < p.launches.size(); ++i) {
      const simt::LaunchPrediction& l = p.launches[i];
      const simt::SubKernel& k = p.plan.launches[i];
      launches.push_back({{"name", l.name}, {"global_passes", k.global_passes()}, {"input_bytes", k.input_bytes},
                          {"param_bytes", k.param_bytes}, {"warp_instructions", l.warp_instructions},
                          {"row_cycles", l.row_cycles}, {"rounds", l.rounds}, {"blocks_per_sm", l.occ.blocks_per_sm},
                          {"occupancy_limiter", l.occ.limiter},
                          {"warps_per_sm", l.occ.warps_per_sm}, {"rows_in_flight", l.occ.rows_in_flight},
                          {"waves", l.occ.waves}, {"x_in_flight_bytes", l.x_in_flight_bytes},
                          {"l1_hit", l.l1_hit}, {"l2_hit", l.l2_hit}, {"dram_read_elasticity", l.dram_read_elasticity},
                          {"dram_bytes_read", l.dram_bytes_read},
                          {"dram_bytes_written", l.dram_bytes_written}, {"l2_bytes", l.l2_bytes},
                          {"bounds_us", {{"dram", l.dram_us}, {"latency", l.latency_us}, {"issue", l.issue_us},
                                         {"shared_memory", l.smem_us}, {"l1_miss_requests", l.request_us}, {"block_dispatch", l.dispatch_us}}},
                          {"added_once_us", {{"pipeline_fill", l.fill_us}, {"epilogue", l.epilogue_us}}},
                          {"bound", l.bound}, {"duration_us", l.duration_us}});
    }
    nlohmann::json j = {{"kernel", a.kernel}, {"ran", p.plan.ran}, {"rows", rows}, {"hidden", hidden}, {"dtype", dtype},
                        {"block", p.plan.block}, {"gpu", gpu.name},
                        {"prediction", {{"dram_bytes_read", p.dram_bytes_read}, {"dram_bytes_written", p.dram_bytes_written},
                                        {"l2_bytes", p.l2_bytes}, {"duration_us", p.duration_us}, {"cycles", p.cycles},
                                        {"dram_read_elasticity", p.dram_read_elasticity}}},
                        {"launches", launches}};
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("normsim simt: %s%s on %s, %lld rows x %lld %s, block %d\n", a.kernel.c_str(),
              p.plan.ran != a.kernel ? (" (runs " + p.plan.ran + ": its shared memory does not fit)").c_str() : "",
              gpu.name.c_str(), static_cast<long long>(rows), static_cast<long long>(hidden), dtype.c_str(), p.plan.block);
  for (const auto& l : p.launches) {
    std::printf("\n  launch %s\n", l.name.c_str());
    std::printf("    occupancy            %d blocks/SM (%d warps, limited by %s), %lld rows in flight, %.2f waves\n",
                l.occ.blocks_per_sm, l.occ.warps_per_sm, l.occ.limiter.c_str(), static_cast<long long>(l.occ.rows_in_flight),
                l.occ.waves);
    std::printf("    re-read hit fraction L1 %.3f, L2 %.3f (x of the rows in flight %.1f MB)\n", l.l1_hit, l.l2_hit,
                l.x_in_flight_bytes / 1e6);
    std::printf("    DRAM-read elasticity %.2f (%% DRAM bytes read per %% of x in flight)\n", l.dram_read_elasticity);
    std::printf("    bounds               DRAM %.1f us, latency %.1f us, issue %.1f us, shared memory %.1f us, "
                "L1-miss requests %.1f us, dispatch %.1f us -> %s\n",
                l.dram_us, l.latency_us, l.issue_us, l.smem_us, l.request_us, l.dispatch_us, l.bound.c_str());
    std::printf("    added once           pipeline fill %.1f us, epilogue %.1f us; launch %.1f us\n", l.fill_us,
                l.epilogue_us, l.duration_us);
  }
  std::printf("\n  DRAM bytes read       %16.0f  bytes (elasticity %.2f: 10%% more x in flight: %+.1f%%)\n",
              p.dram_bytes_read, p.dram_read_elasticity, 100 * (std::pow(1.1, p.dram_read_elasticity) - 1));
  std::printf("  DRAM bytes written    %16.0f  bytes\n", p.dram_bytes_written);
  std::printf("  L2 bytes              %16.0f  bytes\n", p.l2_bytes);
  std::printf("  duration              %16.2f  us (%.0f SM cycles at %.0f MHz)\n", p.duration_us, p.cycles, gpu.sm_clock_mhz);
  return kExitOk;
}

struct AreaArgs {
  RunArgs in;
  bool synth = false;
  std::string rtl_dir = NORMSIM_RTL_DIR, synth_dir;
};

// Area of the configured datapath: sim/area's analytic model per unit and,
// with --synth, yosys's synthesis of the same units from rtl_models/.
int cmd_area(const AreaArgs& a) {
  using namespace normsim;
  const Inputs in = load_inputs(a.in);
  const core::DatapathConfig dp = run::make_datapath_config(in.workload, in.arch, run::RunOptions{});
  const std::string node = in.arch.asic ? in.arch.asic->node : "7nm";
  const double sram = in.arch.asic ? static_cast<double>(in.arch.asic->sram.capacity_bytes) : 0.0;
  const area::AreaReport ar = area::estimate_area(dp, sram, node);
  const area::NodeTable nt = *area::node_table(node);
  std::vector<rtl::DatapathUnitSynthesis> syn;
  if (a.synth) {
    const auto yosys = rtl::find_yosys();
    if (!yosys) throw config::ConfigError("area: --synth needs yosys on PATH (tools/bootstrap.sh installs it)");
    syn = rtl::synthesize_datapath(in.arch, dp, a.rtl_dir, *yosys, a.synth_dir);
  }
  auto synth_of = [&](const std::string& unit) -> const rtl::DatapathUnitSynthesis* {
    for (const auto& u : syn)
      if (u.area_unit == unit) return &u;
    return nullptr;
  };
  const double um2_per_ge = nt.nand2_um2 / area::kUtilisation;
  if (a.in.json) {
    nlohmann::json units = nlohmann::json::array();
    for (const auto& u : ar.units) {
      nlohmann::json j = {{"unit", u.unit}, {"instances", u.instances}, {"analytic_ge", u.ge}, {"table_bits", u.table_bits},
                          {"analytic_um2", u.um2}};
      if (const auto& v = u.per_instance)
        j["operators_per_instance"] = {{"adder_bits", v->adder_bits}, {"multiplier_bit_products", v->multiplier_bit_products},
                                       {"requant_bits", v->requant_bits}, {"shifter_bits", v->shifter_bits},
                                       {"flip_flops", v->flip_flops}};
      if (const auto* s = synth_of(u.unit)) {
        nlohmann::json cells = s->one.cells;
        j["synth"] = {{"instances", s->instances}, {"ge_per_instance", s->one.ge}, {"ge", s->ge()},
                      {"logic_um2", s->ge() * um2_per_ge}, {"flip_flops_per_instance", s->one.flip_flops},
                      {"cells_per_instance", cells}, {"yosys_seconds", s->one.seconds},
                      {"cmos_transistors_per_instance", s->one.cmos_transistors},
                      {"analytic_over_synth", u.ge / s->ge()}};
      }
      units.push_back(j);
    }
    const nlohmann::json j = {{"arch", in.arch.name}, {"workload", in.workload.name}, {"node", node},
                              {"nand2_um2", nt.nand2_um2}, {"utilisation", area::kUtilisation},
                              {"units", units}, {"datapath_um2", ar.datapath_um2}, {"sram_bytes", ar.sram_bytes},
                              {"sram_um2", ar.sram_um2}, {"total_mm2", ar.total_mm2()}};
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("normsim area: arch %s, workload %s (hidden %lld), %s: NAND2 %.4f um^2, utilisation %.2f\n\n",
              in.arch.name.c_str(), in.workload.name.c_str(), static_cast<long long>(dp.hidden), node.c_str(),
              nt.nand2_um2, area::kUtilisation);
  std::printf("  %-18s %14s %12s %14s", "unit", "analytic_GE", "table_bits", "analytic_um2");
  if (a.synth) std::printf(" %10s %14s %14s %10s", "instances", "synth_GE", "synth_um2", "ratio");
  std::printf("\n");
  for (const auto& u : ar.units) {
    std::printf("  %-18s %14.0f %12.0f %14.1f", u.unit.c_str(), u.ge, u.table_bits, u.um2);
    if (const auto* s = synth_of(u.unit))
      std::printf(" %10d %14.0f %14.1f %9.2fx", s->instances, s->ge(), s->ge() * um2_per_ge, u.ge / s->ge());
    else if (a.synth)
      std::printf(" %10s %14s %14s %10s", "-", "(no RTL)", "-", "-");
    std::printf("\n");
  }
  std::printf("\n  datapath          %14.1f um^2 (analytic, logic and tables)\n", ar.datapath_um2);
  std::printf("  SRAM              %14.1f um^2 (%.0f bytes)\n", ar.sram_um2, ar.sram_bytes);
  std::printf("  total             %14.4f mm^2\n", ar.total_mm2());
  if (!a.synth)
    std::printf("\n  %s\n", rtl::find_yosys() ? "yosys is installed: --synth adds each unit's synthesis beside the model"
                                               : "--synth needs yosys (tools/bootstrap.sh installs it)");
  if (a.synth)
    std::printf("\n  synth: yosys synth + abc -fast onto NOT/NAND/NOR/AND/OR/XOR/XNOR/MUX, GE = CMOS transistors / 4,\n"
                "  flip-flops %.1f GE; ROMs black-boxed (costed as table bits); ratio = analytic / synth GE\n",
                area::kGePerFlipFlop);
  return kExitOk;
}

struct RegressArgs {
  std::string golden = "gpu_ref/golden/h200", gpu;
  bool json = false, fit = false;
};

// asic_time: the ASIC model (SystemC, timing only, each case in a forked
// child) configured as the GPU -- workloads/arch/gpu-warp.yaml or
// gpu-block.yaml: the H200's clock, DRAM bandwidth and latency, as many
// datapaths as the GPU runs warps (blocks) at once -- on the golden cases of
// the mapped forward kernels that read x once and stream at >= 2/3 of the
// DRAM bandwidth; its time at the SM clock against ncu's duration.
constexpr double kAsicTimeMae = 0.15;
struct AsicTime {
  nlohmann::json cases = nlohmann::json::array();
  double mae = 0;
  std::string text;
};

AsicTime asic_time_cases(const std::vector<normsim::simt::GoldenCase>& cases, const normsim::simt::GpuArch& gpu) {
  using namespace normsim;
  AsicTime t;
  const std::vector<std::string> one_read = {"fast_ln", "fast_rms", "v6", "welford_warp_reg", "welford_block_smem"};
  double sum = 0;
  char line[256];
  t.text = "\nasic_time (the ASIC model as the GPU, timing only, at the SM clock, against ncu's duration):\n";
  for (const auto& g : cases) {
    if (std::find(one_read.begin(), one_read.end(), g.kernel) == one_read.end()) continue;
    const double streamed = (g.dram_bytes_read + g.dram_bytes_written) / (g.duration_us * 1e-6);
    if (streamed < (2.0 / 3.0) * gpu.dram.bytes_per_s) continue;  // not bandwidth-bound
    const bool block = g.kernel == "welford_block_smem";
    const bool rms = g.kernel == "fast_rms";
    const std::string wl = "name: " + g.id + "\nnorm: " + (rms ? "rmsnorm\nbeta: none" : "layernorm") +
                           "\nrows: " + std::to_string(g.rows) + "\nhidden: " + std::to_string(g.hidden) +
                           "\ninput: {dtype: " + g.dtype + "}\noutput: {dtype: " + g.dtype + "}\n";
    const config::Workload w = config::parse_workload_text(wl, "<" + g.id + ">");
    config::Arch arch =
        config::parse_arch_text(block ? config::embedded::kGpuBlockArchYaml : config::embedded::kGpuWarpArchYaml,
                                block ? config::embedded::kGpuBlockArchPath : config::embedded::kGpuWarpArchPath);
    // Rows in flight as the GPU kernel holds them: its occupancy in the SIMT
    // model (as the traffic cross-check takes them), within the arch's SRAM
    // (the registers and shared memory) beside gamma/beta.
    const simt::LaunchPlan plan = simt::plan_launch(g.kernel, g.rows, g.hidden, g.dtype, g.block, gpu);
    const int64_t row_bytes = g.hidden * (g.dtype == "bf16" ? 2 : 4);
    const int64_t room = static_cast<int64_t>(arch.asic->sram.capacity_bytes) - 2 * g.hidden * 4;
    arch.asic->rows_in_flight = static_cast<int>(std::max<int64_t>(
        1, std::min<int64_t>(simt::occupancy(plan.launches.front(), gpu).rows_in_flight, room / row_bytes)));
    asic::AsicOptions o;
    o.numerics = false;
    nlohmann::json rep;
    if (report_from_child([&] {
          const asic::AsicResult res = asic::run_asic(w, arch, o);
          return nlohmann::json{{"cycles", res.cycles}, {"clock_ghz", res.cfg.clock_ghz}};
        }, "regress (asic_time " + g.id + ")", rep) != 0)
      throw std::runtime_error("regress: the ASIC model failed on " + g.id);
    const double us = rep["cycles"].get<double>() / (rep["clock_ghz"].get<double>() * 1e3);
    const double err = (us - g.duration_us) / g.duration_us;
    sum += std::fabs(err);
    t.cases.push_back({{"id", g.id}, {"kernel", g.kernel}, {"arch", block ? "gpu-block" : "gpu-warp"},
                       {"asic_cycles", rep["cycles"]}, {"asic_us", us}, {"measured_us", g.duration_us},
                       {"rel_error", err}});
    std::snprintf(line, sizeof line, "  %-40s asic %9.1f us, measured %9.1f us: %+6.1f%%\n", g.id.c_str(), us,
                  g.duration_us, 100 * err);
    t.text += line;
  }
  t.mae = t.cases.empty() ? 0 : sum / static_cast<double>(t.cases.size());
  std::snprintf(line, sizeof line, "  %zu cases, mean absolute error %.1f%% (threshold %.0f%%)\n", t.cases.size(),
                100 * t.mae, 100 * kAsicTimeMae);
  t.text += line;
  return t;
}

int cmd_regress(const RegressArgs& a) {
  using namespace normsim;
  const auto cases = simt::load_golden(a.golden);
  simt::GpuArch gpu = load_gpu(a.gpu, {});
  if (a.fit) {
    std::string log;
    gpu = simt::fit_arch(cases, gpu, &log);
    std::fprintf(stderr, "%s", log.c_str());
    std::fprintf(stderr, "fitted on the training cases (copy into the arch file):\n%s",
                 simt::fitted_parameters(gpu).c_str());
  }
  const simt::RegressResult r = simt::regress(cases, gpu, a.golden);
  const AsicTime t = asic_time_cases(cases, gpu);
  if (a.json) {
    nlohmann::json j = simt::to_json(r);
    j["asic_time"] = t.cases;
    j["asic_time_summary"] = {{"cases", t.cases.size()}, {"mae", t.mae}, {"threshold_mae", kAsicTimeMae}};
    j["pass"] = r.pass && t.mae <= kAsicTimeMae;
    std::cout << j.dump(1) << "\n";
  } else {
    std::cout << "normsim regress: " << cases.size() << " golden cases from " << a.golden << " against " << gpu.name
              << "\n\n" << simt::format_text(r) << t.text;
  }
  return r.pass && t.mae <= kAsicTimeMae ? kExitOk : 1;
}

// libsystemc references sc_main; normsim has its own main and calls
// sc_start() directly (sc_elab_and_sim only stores argc/argv and calls sc_main).
int sc_main(int, char**) { return 0; }

int main(int argc, char** argv) {
  // SystemC prints a banner on stdout when its kernel starts; stdout is for results.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
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
  run->add_option("workload", ra.workload, "workload YAML (default: the embedded llama2-7b)");
  run->add_option("--arch", ra.arch, "architecture YAML (default: the embedded asic-default)");
  run->add_option("--algorithm", ra.algorithm, "LayerNorm variance algorithm: welford, two-pass, single-pass");
  run->add_option("--out", ra.out_dir, "directory for report.json, report.csv (and .npy outputs)");
  run->add_option("--set", ra.sets, "override a key: workload.rows=64, arch.formats.sumsq.bits=24 (repeatable)");
  run->add_flag("--json", ra.json, "print the report as one JSON object on stdout");
  run->add_flag("--save-outputs", ra.save_outputs, "also write y.npy, mean.npy, rstd.npy into --out");
  run->add_option("--path", ra.path, "input path of the ASIC model: sram-replay, dram-reread, partial-replay");
  run->add_flag("--no-numerics", ra.no_numerics, "timing only: same cycles and traffic, no arithmetic");
  run->add_flag("--rtl", ra.rtl, "lock-step the verilated RTL pipeline: statistics, y and latencies checked bit for bit");
  run->add_option("--trace", ra.trace, "write a VCD of the first rows' handshakes and counters");

  RunArgs ca;
  auto* compare = app.add_subcommand("compare", "run every input path of the ASIC model on one workload, one table");
  compare->fallthrough();
  compare->add_option("workload", ca.workload, "workload YAML (default: the embedded one)");
  compare->add_option("--arch", ca.arch, "architecture YAML with an asic section (default: the embedded one)");
  compare->add_option("--set", ca.sets, "override a key (repeatable)");
  compare->add_option("--out", ca.out_dir, "directory for compare.json and compare.txt");
  compare->add_flag("--json", ca.json, "print {\"paths\": [report, ...]} on stdout");
  compare->add_flag("--no-numerics", ca.no_numerics, "timing only");

  SweepArgs wa;
  auto* sweep = app.add_subcommand("sweep", "run the ASIC model over a grid of configs (timing only unless --numerics)");
  sweep->fallthrough();
  sweep->add_option("workload", wa.run.workload, "workload YAML (default: the embedded one)");
  sweep->add_option("--arch", wa.run.arch, "architecture YAML with an asic section (default: the embedded one)");
  sweep->add_option("--grid", wa.grids, "KEY=V1,V2,... (repeatable; the points are the Cartesian product)");
  sweep->add_option("--set", wa.run.sets, "override a key for every point (repeatable)");
  sweep->add_option("--path", wa.run.path, "input path: sram-replay, dram-reread, partial-replay");
  sweep->add_flag("--numerics", wa.numerics, "bit-accurate points (default: timing only)");
  sweep->add_option("--out", wa.run.out_dir, "directory for sweep.json and sweep.csv");
  sweep->add_flag("--json", wa.run.json, "print {\"points\": [{point, report}, ...]} on stdout");

  SimtArgs sa;
  auto* simt_cmd = app.add_subcommand("simt", "predict a gpu_ref kernel's DRAM/L2 traffic and duration on a GPU");
  simt_cmd->fallthrough();
  simt_cmd->add_option("--kernel", sa.kernel, "v1..v6, welford_warp_reg, welford_block_smem, block_reread, rms_warp, rms_block");
  simt_cmd->add_option("--workload", sa.workload, "take rows, hidden and dtype from a workload YAML");
  simt_cmd->add_option("--rows", sa.rows, "rows N");
  simt_cmd->add_option("--hidden", sa.hidden, "hidden size C");
  simt_cmd->add_option("--dtype", sa.dtype, "fp32 or bf16 (default fp32)");
  simt_cmd->add_option("--block", sa.block, "threads per block (default: the kernel's, 256)");
  simt_cmd->add_option("--gpu", sa.gpu, "GPU arch YAML (default: the embedded h200)");
  simt_cmd->add_option("--set", sa.sets, "override a GPU key: gpu.l2.bytes=52428800 (repeatable)");
  simt_cmd->add_flag("--json", sa.json, "print the prediction as one JSON object on stdout");

  AreaArgs aa;
  auto* area_cmd = app.add_subcommand("area", "area of the datapath units: the analytic model and, with --synth, yosys");
  area_cmd->fallthrough();
  area_cmd->add_option("workload", aa.in.workload, "workload YAML (default: the embedded llama2-7b; its hidden size sizes the 1/n table)");
  area_cmd->add_option("--arch", aa.in.arch, "architecture YAML (default: the embedded asic-default)");
  area_cmd->add_option("--set", aa.in.sets, "override a key: arch.formats.mean.bits=28 (repeatable)");
  area_cmd->add_flag("--synth", aa.synth, "also synthesise each unit's RTL with yosys (a minute or two)");
  area_cmd->add_option("--synth-dir", aa.synth_dir, "keep each unit's yosys script, ROM stubs and log in DIR/<unit>/");
  area_cmd->add_option("--rtl-dir", aa.rtl_dir, "directory of the Verilog units (default: this checkout's rtl_models)");
  area_cmd->add_flag("--json", aa.in.json, "print the report as one JSON object on stdout");

  RegressArgs ga;
  auto* regress_cmd = app.add_subcommand("regress", "compare the SIMT model with golden GPU measurements; exit 1 past the thresholds");
  regress_cmd->fallthrough();
  regress_cmd->add_option("golden", ga.golden, "golden directory with index.json (default gpu_ref/golden/h200)");
  regress_cmd->add_option("--gpu", ga.gpu, "GPU arch YAML (default: the embedded h200)");
  regress_cmd->add_flag("--json", ga.json, "print cases, summaries and pass/fail as one JSON object");
  regress_cmd->add_flag("--fit", ga.fit, "first fit the arch's fitted parameters on the training cases (printed on stderr)");

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
    if (*compare) return cmd_compare(ca);
    if (*sweep) return cmd_sweep(wa);
    if (*simt_cmd) return cmd_simt(sa);
    if (*regress_cmd) return cmd_regress(ga);
    if (*area_cmd) return cmd_area(aa);
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
