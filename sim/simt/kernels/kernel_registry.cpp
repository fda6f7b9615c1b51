#include "sim/simt/kernels/kernel_registry.hpp"

#include <array>
#include <stdexcept>

#include "sim/config/config_error.hpp"

namespace normsim::simt {

namespace {

// Every family's entries by KernelId; a kernel missing from every family, or
// in two, is a programming error caught the first time the table is built
// (and by a test).
const std::array<KernelEntry, normref::kKernelCount>& entries() {
  static const std::array<KernelEntry, normref::kKernelCount> table = [] {
    std::array<KernelEntry, normref::kKernelCount> t{};
    std::array<bool, normref::kKernelCount> seen{};
    for (auto family : {ladder_kernels(), welford_kernels(), rms_kernels(), frontier_kernels(), backward_kernels()})
      for (const KernelEntry& e : family) {
        const auto i = static_cast<size_t>(e.id);
        if (seen[i]) throw std::logic_error(std::string("kernel registry: two entries for ") + normref::kernel_info(e.id).name);
        seen[i] = true;
        t[i] = e;
      }
    for (size_t i = 0; i < t.size(); ++i)
      if (!seen[i] || !t[i].plan)
        throw std::logic_error(std::string("kernel registry: no plan for ") + normref::kKernelTable[i].name);
    return t;
  }();
  return table;
}

}  // namespace

const KernelEntry& kernel_entry(KernelId id) { return entries()[static_cast<size_t>(id)]; }

std::string_view kernel_name(KernelId id) { return normref::kernel_info(id).name; }

KernelId parse_kernel(std::string_view name) {
  if (const normref::KernelInfo* k = normref::find_kernel(name)) return k->id;
  throw config::ConfigError("simt: --kernel: unknown kernel '" + std::string(name) + "' (allowed: " +
                            normref::kernel_names() + ")");
}

DType parse_dtype(std::string_view name) {
  if (name == "fp32") return DType::fp32;
  if (name == "bf16") return DType::bf16;
  throw config::ConfigError("simt: --dtype: unknown value '" + std::string(name) + "' (allowed: fp32, bf16)");
}

std::span<const normref::KernelInfo> kernel_infos() { return normref::kKernelTable; }

}  // namespace normsim::simt
