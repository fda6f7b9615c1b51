// The golden index (gpu_ref/golden/*/index.json) that `regress` reads.
#include <nlohmann/json.hpp>

#include "fuzz_target.hpp"
#include "sim/config/config_error.hpp"
#include "sim/validate/golden.hpp"

std::vector<std::string> fuzz_seeds() {
  // Four cases of the shipped index (one with outputs): the whole 300 kB file
  // would make every mutant as large, for no new structure.
  std::ifstream in(std::string(NORMSIM_SOURCE_DIR) + "/gpu_ref/golden/h200/index.json");
  const nlohmann::json all = nlohmann::json::parse(in);
  nlohmann::json some = nlohmann::json::array();
  for (const auto& c : all)
    if (some.size() < 3 || (some.size() == 3 && c.contains("outputs") && c["outputs"].is_object())) some.push_back(c);
  return {some.dump(1),
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
