// `normsim simt`: a gpu_ref kernel's predicted DRAM/L2 traffic and duration
// on a GPU (the SIMT model, docs/SIMT.md).
#include <filesystem>
#include <iostream>

#include "command.hpp"
#include "sim/report/report_stamp.hpp"
#include "sim/config/config_error.hpp"
#include "sim/report/simt_report.hpp"
#include "sim/simt/kernels/kernel_registry.hpp"
#include "sim/validate/golden.hpp"
#include "sim/validate/ncu_profile.hpp"

namespace normsim::cli {

namespace {

struct SimtArgs {
  std::string kernel, workload, dtype = "fp32", gpu;
  int64_t rows = 0, hidden = 0;
  int block = 0;
  bool json = false, explain = false;
  std::string golden;  ///< where --explain looks for ncu's profile of the same launch
  std::vector<std::string> sets;
};

// "rms_warp, rms_block, fast_rms": the kernels that compute the norm a workload asks for.
std::string kernels_of(core::NormKind norm) {
  std::string names;
  for (const auto& k : simt::kernel_infos())
    if (k.layernorm == (norm == core::NormKind::layernorm)) names += (names.empty() ? "" : ", ") + std::string(k.name);
  return names;
}

// A golden folder's cases and ncu's profiles of them, read whole before any work.
struct GoldenProfiles {
  std::string dir;  ///< where they were looked for
  bool found = false;
  std::vector<validate::GoldenCase> cases;
  validate::NcuProfiles profiles;
};

// --explain's golden folder: the one named (refused unless it holds an
// index), else the default one when present; nothing without --explain.
GoldenProfiles read_golden_profiles(const SimtArgs& a) {
  if (!a.golden.empty() && !a.explain) throw config::ConfigError("simt: --golden: only with --explain (allowed: --explain --golden DIR)");
  if (!a.explain) return {};
  GoldenProfiles g;
  g.dir = a.golden.empty() ? data_path(kGoldenH200) : a.golden;
  if (!std::filesystem::is_regular_file(std::filesystem::path(g.dir) / "index.json")) {
    if (a.golden.empty()) return g;
    throw config::ConfigError("simt: --golden: " + g.dir + "/index.json: missing (allowed: a golden folder such as " +
                              data_path(kGoldenH200) + ")");
  }
  g.found = true;
  g.profiles = validate::load_ncu_profile(g.dir);
  g.cases = validate::load_golden(g.dir);
  return g;
}

// ncu's profile of the golden case that ran this launch (kernel, shape, dtype, block), if one did.
std::optional<report::MeasuredWarps> measured_beside(const simt::Prediction& p, const GoldenProfiles& golden) {
  for (const validate::GoldenCase& g : golden.cases) {
    if (g.kernel != p.plan.kernel || g.rows != p.plan.rows || g.hidden != p.plan.hidden || g.dtype != p.plan.dtype ||
        g.block != p.plan.block)
      continue;
    if (const auto it = golden.profiles.find(g.id); it != golden.profiles.end())
      return report::MeasuredWarps{g.id, it->second.warps};
  }
  return std::nullopt;
}

int simt_command(const SimtArgs& a) {
  if (a.kernel.empty())
    throw config::ConfigError("simt: --kernel: missing (allowed: " + normref::kernel_names() + ")");
  const simt::KernelId kernel = simt::parse_kernel(a.kernel);
  int64_t rows = a.rows, hidden = a.hidden;
  std::string dtype = a.dtype;
  if (!a.workload.empty()) {
    if (a.rows || a.hidden) throw config::ConfigError("simt: --workload and --rows/--hidden: give one of them");
    const config::Workload w = config::load_workload(a.workload);
    report::record_config({"workload", w.name, w.source, w.sha256, {}});
    rows = w.rows;
    hidden = w.hidden;
    dtype = std::string(core::to_string(w.input.dtype));
    if (dtype != "fp32" && dtype != "bf16")
      throw config::ConfigError("simt: " + a.workload + ": input dtype " + dtype +
                                " has no gpu_ref kernel (allowed: fp32, bf16)");
    // A backward workload is a backward kernel's job, and a forward one a forward kernel's.
    const bool backward_kernel = normref::kernel_info(kernel).kind == normref::KernelKind::backward;
    if (backward_kernel != w.is_backward())
      throw config::ConfigError("simt: --kernel " + a.kernel + " is a " + (backward_kernel ? "backward" : "forward") +
                                " kernel but " + a.workload + " is a " + std::string(core::kPasses.name(w.pass)) +
                                " pass (allowed: a kernel of the workload's pass)");
    const bool layernorm = normref::kernel_info(kernel).layernorm;
    if (layernorm != (w.norm == core::NormKind::layernorm))
      throw config::ConfigError("simt: --kernel " + a.kernel + " computes " + (layernorm ? "LayerNorm" : "RMSNorm") +
                                " but " + a.workload + " is " + std::string(core::to_string(w.norm)) +
                                " (allowed: " + kernels_of(w.norm) + ")");
  } else if (!rows || !hidden) {
    throw config::ConfigError("simt: give --workload W or both --rows N and --hidden C");
  }
  if (a.block % 32)
    throw config::ConfigError("simt: --block: value " + std::to_string(a.block) + " is not a whole number of warps (allowed: 32, 64, ..., 1024)");
  const simt::GpuArch gpu = load_gpu(a.gpu, a.sets);
  const GoldenProfiles golden = read_golden_profiles(a);
  const simt::Prediction p = simt::predict(simt::plan_launch(kernel, rows, hidden, simt::parse_dtype(dtype), a.block, gpu), gpu);
  const std::optional<report::MeasuredWarps> ncu = a.explain ? measured_beside(p, golden) : std::nullopt;
  nlohmann::json report = report::simt_report_json(p, gpu);
  const std::string no_ncu =
      !golden.found ? "no golden folder at " + golden.dir + " (--golden DIR names one)"
                    : "none of the " + std::to_string(golden.cases.size()) + " golden cases in " + golden.dir +
                          " with an ncu profile ran this launch (kernel, rows, hidden, dtype and block)";
  if (a.explain) report["explain"] = report::simt_explain_json(p, ncu, no_ncu);
  check_report(report, "simt");
  if (a.json) std::cout << report::report_text(report, 2) << "\n";
  else std::cout << report::simt_report_text(p, gpu) << (a.explain ? report::simt_explain_text(p, ncu, no_ncu) : "");
  return kExitOk;
}

}  // namespace

Command add_simt(CLI::App& app) {
  auto a = std::make_shared<SimtArgs>();
  auto* c = app.add_subcommand("simt", "predict a gpu_ref kernel's DRAM/L2 traffic and duration on a GPU");
  c->fallthrough();
  c->add_option("--kernel", a->kernel, normref::kernel_names());
  c->add_option("--workload", a->workload, name_or_path_help(config::ShippedKind::workload, "take rows, hidden and dtype from a workload", "default: --rows/--hidden/--dtype"));
  add_int_option(c, "--rows", a->rows, 1, int64_t(1) << 31, "rows N");
  add_int_option(c, "--hidden", a->hidden, 1, int64_t(1) << 24, "hidden size C");
  c->add_option("--dtype", a->dtype, "fp32 or bf16 (default fp32)");
  add_int_option(c, "--block", a->block, 32, 1024, "threads per block, a multiple of 32 (default: the kernel's, 256)");
  c->add_option("--gpu", a->gpu, "GPU arch: a shipped name (" + config::shipped_names(config::ShippedKind::gpu) + ") or a YAML path (default h200)");
  c->add_option("--set", a->sets, "override a GPU key: gpu.l2.bytes=52428800 (repeatable)");
  c->add_flag("--json", a->json, "print the prediction as one JSON object on stdout");
  c->add_flag("--explain", a->explain,
              "also where the warps spend their cycles (ncu's warp states), occupancy, issue activity, DRAM throughput, "
              "the limiter and the optimisation it implies; ncu's measurement beside it when a golden case ran the same launch");
  c->add_option("--golden", a->golden, "golden folder whose ncu_profile.json --explain shows beside (default: the H200's, shipped with normsim)");
  return {c, [a] { return simt_command(*a); }};
}

}  // namespace normsim::cli
