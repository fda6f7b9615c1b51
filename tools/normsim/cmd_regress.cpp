// `normsim regress`: the models against the golden GPU data (sim/validate);
// exit 1 past the thresholds (sim/validate/thresholds.hpp).
#include <cstdio>
#include <iostream>

#include "command.hpp"
#include "sim/validate/fit.hpp"
#include "sim/validate/regress.hpp"

namespace normsim::cli {

namespace {

struct RegressArgs {
  std::string golden = "gpu_ref/golden/h200", gpu;
  bool json = false, fit = false;
};

int regress_command(const RegressArgs& a) {
  const auto cases = validate::load_golden(a.golden);
  simt::GpuArch gpu = load_gpu(a.gpu, {});
  if (a.fit) {
    std::string log;
    gpu = validate::fit_arch(cases, gpu, &log);
    std::fprintf(stderr, "%s", log.c_str());
    std::fprintf(stderr, "fitted on the training cases (copy into the arch file):\n%s",
                 validate::fitted_parameters(gpu).c_str());
  }
  const validate::RegressResult r = validate::regress(cases, gpu, a.golden);
  if (a.json) std::cout << validate::to_json(r).dump(1) << "\n";
  else
    std::cout << "normsim regress: " << cases.size() << " golden cases from " << a.golden << " against " << gpu.name
              << "\n\n" << validate::format_text(r);
  return r.pass ? kExitOk : kExitCheckFailed;
}

}  // namespace

Command add_regress(CLI::App& app) {
  auto a = std::make_shared<RegressArgs>();
  auto* c = app.add_subcommand("regress", "compare the SIMT model with golden GPU measurements; exit 1 past the thresholds");
  c->fallthrough();
  c->add_option("golden", a->golden, "golden directory with index.json (default gpu_ref/golden/h200)");
  c->add_option("--gpu", a->gpu, "GPU arch YAML (default: the embedded h200)");
  c->add_flag("--json", a->json, "print cases, summaries and pass/fail as one JSON object");
  c->add_flag("--fit", a->fit, "first fit the arch's fitted parameters on the training cases (printed on stderr)");
  return {c, [a] { return regress_command(*a); }};
}

}  // namespace normsim::cli
