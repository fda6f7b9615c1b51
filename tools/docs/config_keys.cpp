// Prints the key tables of workloads/README.md from the config layer's
// ParamTables (the keys are declared there once); tools/docs/key_tables.sh
// checks the README against it and rewrites it with --update.
//   config_keys workload|arch|asic|gpu
#include <cstdio>
#include <string>

#include "sim/config/arch.hpp"
#include "sim/config/workload.hpp"
#include "sim/simt/gpu_arch.hpp"

namespace {

std::string cell(const std::string& s) { return s.empty() ? "" : s; }

void print(const std::vector<normsim::config::DocRow>& rows, const std::string& skip_prefix = "") {
  std::printf("| key | type | default | unit | meaning |\n|---|---|---|---|---|\n");
  for (const auto& r : rows) {
    if (!skip_prefix.empty() && r.key.rfind(skip_prefix, 0) == 0) continue;
    std::printf("| `%s` | %s | %s | %s | %s |\n", r.key.c_str(), cell(r.type).c_str(), cell(r.default_value).c_str(),
                cell(r.unit).c_str(), cell(r.description).c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc == 2 ? argv[1] : "";
  if (what == "workload") print(normsim::config::workload_params().document());
  else if (what == "arch") print(normsim::config::arch_params().document(), "asic.");
  else if (what == "asic") print(normsim::config::asic_params().document());
  else if (what == "gpu") print(normsim::simt::gpu_arch_params().document());
  else {
    std::fprintf(stderr, "config_keys: '%s': allowed workload, arch, asic, gpu\n", what.c_str());
    return 2;
  }
  return 0;
}
