// The GPU arch parser (workloads/arch/h200.yaml's keys, the reuse curves).
#include "fuzz_target.hpp"
#include "sim/config/config_error.hpp"
#include "sim/simt/gpu_arch.hpp"

std::vector<std::string> fuzz_seeds() {
  std::vector<std::string> seeds;
  std::ifstream in(std::string(NORMSIM_SOURCE_DIR) + "/workloads/arch/h200.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  seeds.push_back(ss.str());
  seeds.push_back("name: tiny\nsms: 1\n");
  return seeds;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)normsim::simt::parse_gpu_arch_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
  } catch (const normsim::config::ConfigError&) {
  }
  return 0;
}
