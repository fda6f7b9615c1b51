// `normsim regress`: the models against the golden GPU data (sim/validate);
// exit 1 past the thresholds (sim/validate/thresholds.hpp).
#include <cstdio>
#include <filesystem>
#include <optional>
#include <iostream>

#include "command.hpp"
#include "progress.hpp"
#include "sim/report/report_stamp.hpp"
#include "sim/validate/fit.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/regress_report.hpp"
#include "sim/validate/regress.hpp"

namespace normsim::cli {

namespace {

struct RegressArgs {
  std::string golden, gpu, baseline, write_baseline;  ///< golden: empty for the shipped H200's
  bool json = false, fit = false, no_baseline = false;
  std::vector<std::string> sets;
};

int regress_command(const RegressArgs& given) {
  RegressArgs a = given;
  const std::string shown = a.golden.empty() ? kGoldenH200 : a.golden;  // the report names the shipped data by its name
  if (a.golden.empty()) {
    a.golden = data_path(kGoldenH200);
    if (!std::filesystem::is_regular_file(std::filesystem::path(a.golden) / "index.json"))
      throw config::ConfigError("regress: no golden data at " + a.golden +
                                " (allowed: a golden folder with index.json as the argument, e.g. the source tree's " +
                                kGoldenH200 + "; make install installs it under PREFIX/share/normsim)");
  }
  const auto cases = validate::load_golden(a.golden);
  simt::GpuArch gpu = load_gpu(a.gpu, a.sets);
  if (a.fit) {
    std::string log;
    gpu = validate::fit_arch(cases, gpu, &log);
    std::fprintf(stderr, "%s", log.c_str());
    std::fprintf(stderr, "fitted on the training cases (copy into the arch file):\n%s",
                 validate::fitted_parameters(gpu).c_str());
  }
  // The baseline beside the golden index unless another is named or none is wanted.
  std::string baseline_file = a.baseline;
  if (baseline_file.empty() && !a.no_baseline) {
    const auto beside = std::filesystem::path(a.golden) / "regress_baseline.json";
    if (std::filesystem::exists(beside)) baseline_file = beside.string();
  }
  std::optional<validate::RegressBaseline> baseline;
  if (!baseline_file.empty() && a.write_baseline.empty()) baseline = validate::load_regress_baseline(baseline_file);
  ProgressLine::get().phase("regressing " + std::to_string(cases.size()) + " golden cases");
  const validate::RegressResult r =
      validate::regress(cases, gpu, a.golden, baseline ? &*baseline : nullptr, baseline ? baseline_file : "");
  if (!a.write_baseline.empty()) {
    report::write_file_atomic(a.write_baseline, validate::baseline_json(r, gpu.name).dump(1) + "\n");
    std::fprintf(stderr, "wrote %s (%zu cases)\n", a.write_baseline.c_str(), r.cases.size());
  }
  const nlohmann::json body = validate::to_json(r);
  if (a.json) std::cout << report::report_text(body, 1) << "\n";
  else
    std::cout << "normsim regress: " << cases.size() << " golden cases from " << shown << " against "
              << gpu.describe() << "\n\n" << report::regress_report_text(body);
  return r.pass ? kExitOk : kExitCheckFailed;
}

}  // namespace

Command add_regress(CLI::App& app) {
  auto a = std::make_shared<RegressArgs>();
  auto* c = app.add_subcommand("regress", "compare the SIMT model with golden GPU measurements; exit 1 past the thresholds");
  c->fallthrough();
  c->add_option("golden", a->golden, "golden directory with index.json (default: the H200's, gpu_ref/golden/h200, shipped with normsim)");
  c->add_option("--gpu", a->gpu, "GPU arch: a shipped name (" + config::shipped_names(config::ShippedKind::gpu) + ") or a YAML path (default h200)");
  c->add_option("--set", a->sets, "override a GPU key: gpu.l2.reuse_half_bytes=54e6 (repeatable)");
  auto* baseline = c->add_option("--baseline", a->baseline,
                                 "per-case errors no case may exceed by more than 1 point (default: GOLDEN/regress_baseline.json when present)");
  c->add_flag("--no-baseline", a->no_baseline, "skip the per-case baseline check")->excludes(baseline);
  c->add_option("--write-baseline", a->write_baseline, "write this run's per-case errors as a baseline file (no baseline is checked)");
  c->add_flag("--json", a->json, "print cases, summaries and pass/fail as one JSON object");
  c->add_flag("--fit", a->fit, "first fit the arch's fitted parameters on the training cases (printed on stderr)");
  return {c, [a] { return regress_command(*a); }};
}

}  // namespace normsim::cli
