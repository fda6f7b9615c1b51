// The golden index (gpu_ref/golden/*/index.json) that `regress` reads.
#include "fuzz_target.hpp"
#include "sim/config/config_error.hpp"
#include "sim/validate/golden.hpp"

std::vector<std::string> fuzz_seeds() {
  std::ifstream in(std::string(NORMSIM_SOURCE_DIR) + "/gpu_ref/golden/h200/index.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return {ss.str(),
          R"([{"id": "a", "kernel": "v1", "rows": 4, "hidden": 8, "dtype": "fp32", "block": 32, "time_us": 1.5,
               "ncu": {"dram_bytes_read": 1, "dram_bytes_written": 1, "lts_bytes": 1, "duration_us": 1, "sm_cycles": 1},
               "outputs": {"y": "outputs/a_y.npy"}}])"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)normsim::validate::parse_golden_index(std::string(reinterpret_cast<const char*>(data), size), "fuzz/index.json",
                                                "/nonexistent-golden-dir");
  } catch (const normsim::config::ConfigError&) {
  }
  return 0;
}
