// `normsim calibrate`: a GPU arch file from gpu_ref/scripts/calibrate_gpu.sh's
// records (sim/validate/calibrate.hpp, docs/FIDELITY.md).
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include <spdlog/spdlog.h>

#include "command.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/validate/calibrate.hpp"

namespace normsim::cli {

namespace {

struct CalibrateArgs {
  std::string dir, out, name, start;
  std::vector<std::string> sets;
  bool json = false;
};

int calibrate_command(const CalibrateArgs& a) {
  if (a.out.empty()) throw config::ConfigError("calibrate: -o: missing (allowed: the arch file to write, e.g. mygpu.yaml)");
  check_output_file("-o", a.out, ".yaml", "mygpu.yaml");
  const simt::GpuArch start = load_gpu(a.start, a.sets);
  std::string name = a.name;
  if (name.empty()) name = std::filesystem::path(a.out).stem().string();
  const validate::Calibration c = validate::calibrate(a.dir, start, name);
  const std::string text = validate::calibration_yaml(c, a.dir);
  // What it writes must read back as an arch file.
  (void)simt::parse_gpu_arch_text(text, a.out);
  report::write_file_atomic(a.out, text);
  spdlog::debug("calibrate: {}", c.log);
  spdlog::info("calibrate: wrote {} ({}, {} SMs, L2 {:.0f} MiB, {:.0f} GB/s)", a.out, name, c.arch.sms, c.arch.l2.bytes.value() / 1048576,
               c.arch.dram.bytes_per_s.value() / 1e9);
  if (a.json)
    std::cout << nlohmann::json{{"arch_file", a.out},         {"name", name},
                                {"records", a.dir},           {"sms", c.arch.sms},
                                {"l2_bytes", c.arch.l2.bytes.value()}, {"dram_bytes_per_s", c.arch.dram.bytes_per_s.value()}}
                     .dump()
              << "\n";
  return kExitOk;
}

}  // namespace

Command add_calibrate(CLI::App& app) {
  auto a = std::make_shared<CalibrateArgs>();
  auto* c = app.add_subcommand("calibrate", "write a GPU arch file from gpu_ref/scripts/calibrate_gpu.sh's records");
  c->fallthrough();
  c->add_option("records", a->dir, "the folder calibrate_gpu.sh wrote (or a golden folder, e.g. gpu_ref/golden/h200)")->required();
  c->add_option("-o,--out", a->out, "the arch file to write");
  c->add_option("--name", a->name, "the arch's name (default: the output file's stem)");
  c->add_option("--start", a->start, "the arch whose unmeasured values are kept and whose fitted values start the fit (default h200)");
  c->add_option("--set", a->sets, "override a key of the start arch: gpu.issue_per_scheduler=0.9 (repeatable)");
  c->add_flag("--json", a->json, "print {arch_file, name, records, sms, l2_bytes, dram_bytes_per_s} on stdout");
  return {c, [a] { return calibrate_command(*a); }};
}

}  // namespace normsim::cli
