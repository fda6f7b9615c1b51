#include "sim/simt/kernel_desc.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "sim/config/config_error.hpp"
#include "sim/simt/kernels/kernel_registry.hpp"

namespace normsim::simt {

// Instructions and registers of every function of the golden build
// (tools/simt/sass_table.py; a test recounts the SASS). ncu's DRAM read
// counters include the launch's code: with the caches flushed before a
// profiled kernel, the whole function comes from DRAM (residuals of the
// 256 x 768 cases: code size + a constant 2.5 KB).
SassFacts sass_facts(const std::string& function) {
  static const std::map<std::string, SassFacts> table = {
#include "sim/simt/sass_instructions.inc"
  };
  const auto it = table.find(function);
  if (it == table.end()) throw std::logic_error("sass_facts: the golden build has no function " + function);
  return it->second;
}

int SubKernel::global_passes() const {
  int n = 0;
  for (const auto& p : passes) n += is_global(p.source);
  return n;
}

std::string_view to_string(RowMapping m) {
  switch (m) {
    case RowMapping::thread: return "thread-per-row";
    case RowMapping::warp: return "warp-per-row";
    case RowMapping::block: return "block-per-row";
    case RowMapping::element: return "thread-per-element";
  }
  return "?";
}

std::string_view to_string(Source s) {
  switch (s) {
    case Source::global: return "global";
    case Source::global_streaming: return "global (evict-first)";
    case Source::shared: return "shared";
    case Source::registers: return "registers";
    case Source::params: return "gamma/beta (L2)";
  }
  return "?";
}

LaunchPlan plan_launch(KernelId kernel, int64_t rows, int64_t hidden, DType dtype, int block, const GpuArch& gpu) {
  auto bad = [](const std::string& msg) {
    // normref's messages start "normref: --flag: ..."; name the simt command instead.
    const std::string m = msg.rfind("normref: ", 0) == 0 ? msg.substr(9) : msg;
    return config::ConfigError("simt: " + m);
  };
  const normref::KernelInfo& info = normref::kernel_info(kernel);
  if (rows < 1 || rows > (int64_t(1) << 31)) throw bad("--rows: must be 1..2^31, got " + std::to_string(rows));
  if (hidden < 1 || hidden > (int64_t(1) << 24)) throw bad("--hidden: must be 1..2^24, got " + std::to_string(hidden));
  if (auto why = normref::check_supported(info, hidden, dtype, block)) throw bad(*why);

  PlanRequest req{kernel, rows, hidden, dtype, normref::effective_block(info, hidden, dtype, block), &gpu};
  LaunchPlan plan{kernel, kernel, rows, hidden, dtype, req.block, {}};
  kernel_entry(kernel).plan(req, plan);
  // Code size and registers of every launch from the golden build's SASS.
  for (SubKernel& k : plan.launches) {
    if (k.function.empty()) k.function = k.name;  // not a template
    const SassFacts f = sass_facts(k.function);
    k.code_bytes = 16 * static_cast<int64_t>(f.instructions);
    k.registers_per_thread = f.registers_per_thread;
    k.mean_stall_cycles = f.mean_stall_cycles;
  }
  return plan;
}

LaunchPlan plan_launch(std::string_view kernel, int64_t rows, int64_t hidden, std::string_view dtype, int block,
                       const GpuArch& gpu) {
  const KernelId k = parse_kernel(kernel);
  return plan_launch(k, rows, hidden, parse_dtype(dtype), block, gpu);
}

}  // namespace normsim::simt
