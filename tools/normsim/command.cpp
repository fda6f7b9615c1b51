#include "command.hpp"

#include <filesystem>
#include <thread>

#include "sim/config/config_error.hpp"
#include "sim/report/atomic_file.hpp"

namespace normsim::cli {

Inputs load_inputs(const InputArgs& a) {
  std::vector<config::Override> ov;
  for (const auto& s : a.sets) {
    ov.push_back(config::parse_override(s));
    if (ov.back().target == "gpu")
      throw config::ConfigError("--set: key '" + s + "': gpu keys belong to `normsim simt` (allowed: workload.KEY=VALUE, arch.KEY=VALUE)");
  }
  return Inputs{a.workload.empty() ? config::default_workload(ov) : config::load_workload(a.workload, ov),
                a.arch.empty() ? config::default_arch(ov) : config::load_arch(a.arch, ov)};
}

std::optional<config::InputPath> parse_path_flag(const std::string& p) {
  if (p.empty()) return std::nullopt;
  auto ip = config::parse_input_path(p);
  if (!ip)
    throw config::ConfigError("--path: unknown value '" + p + "' (allowed: " + std::string(config::kInputPathNames) + ")");
  return ip;
}

asic::AsicOptions asic_options(const AsicFlags& f) {
  asic::AsicOptions o;
  o.algorithm = f.algorithm;
  o.path = parse_path_flag(f.path);
  o.numerics = !f.no_numerics;
  o.keep_outputs = f.save_outputs || f.save_inputs;
  o.keep_inputs = f.save_inputs;
  o.threads = thread_count(f.threads);
  o.trace_file = f.trace;
  o.rtl = f.rtl;
  if (f.rtl && f.no_numerics)
    throw config::ConfigError("--rtl: the RTL computes the numerics (allowed: one of --rtl, --no-numerics)");
  if (f.no_numerics && (f.save_outputs || f.save_inputs))
    throw config::ConfigError(std::string(f.save_outputs ? "--save-outputs" : "--save-inputs") +
                              ": there are no outputs with --no-numerics (allowed: one of them)");
  return o;
}

int thread_count(int threads) {
  if (threads > 0) return threads;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

simt::GpuArch load_gpu(const std::string& path, const std::vector<std::string>& sets) {
  std::vector<config::Override> ov;
  for (const auto& s : sets) {
    ov.push_back(config::parse_override(s));
    if (ov.back().target != "gpu")
      throw config::ConfigError("--set: key '" + s + "': simt takes GPU keys only (allowed: gpu.KEY[.KEY]=VALUE)");
  }
  return path.empty() ? simt::default_gpu_arch(ov) : simt::load_gpu_arch(path, ov);
}

void write_report_file(const std::string& dir, const std::string& name, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  report::write_file_atomic(dir + "/" + name, text);
}

}  // namespace normsim::cli
