// `normsim compare`: every input path of the ASIC model (SRAM replay, DRAM
// re-read, partial replay) on one workload, each in its own process, in
// one table.
#include <spdlog/spdlog.h>

#include <iostream>

#include "command.hpp"
#include "sim/asic/isolated_run.hpp"
#include "sim/report/asic_report.hpp"

namespace normsim::cli {

namespace {

struct CompareArgs {
  InputArgs in;
  AsicFlags asic;
  std::string out_dir;
  bool json = false;
};

int compare(const CompareArgs& a) {
  const auto [w, arch] = load_inputs(a.in);
  std::vector<nlohmann::json> reports;
  for (auto path : {config::InputPath::sram_replay, config::InputPath::dram_reread, config::InputPath::partial_replay}) {
    asic::AsicOptions o = asic_options(a.asic);
    o.path = path;
    (void)asic::resolve_asic_config(w, arch, o);  // exit 2 in the parent, with the path's reason
    const std::string name(config::to_string(path));
    std::string text;
    if (int rc = asic::run_isolated([&] { return report::asic_report_json(asic::run_asic(w, arch, o)).dump(); },
                                    "compare (" + name + ")", text))
      return rc;
    reports.push_back(nlohmann::json::parse(text));
    spdlog::info("compare: {} done", name);
  }
  const nlohmann::json all = {{"paths", reports}};
  if (!a.out_dir.empty()) {
    write_report_file(a.out_dir, "compare.json", all.dump(2) + "\n");
    write_report_file(a.out_dir, "compare.txt", report::compare_table(reports));
  }
  if (a.json) std::cout << all.dump() << "\n";
  else std::cout << report::compare_table(reports);
  return kExitOk;
}

}  // namespace

Command add_compare(CLI::App& app) {
  auto a = std::make_shared<CompareArgs>();
  auto* c = app.add_subcommand("compare", "run every input path of the ASIC model on one workload, one table");
  c->fallthrough();
  c->add_option("workload", a->in.workload, "workload YAML (default: the embedded one)");
  c->add_option("--arch", a->in.arch, "architecture YAML with an asic section (default: the embedded one)");
  c->add_option("--set", a->in.sets, "override a key (repeatable)");
  c->add_option("--out", a->out_dir, "directory for compare.json and compare.txt");
  c->add_flag("--json", a->json, "print {\"paths\": [report, ...]} on stdout");
  c->add_flag("--no-numerics", a->asic.no_numerics, "timing only");
  return {c, [a] { return compare(*a); }};
}

}  // namespace normsim::cli
