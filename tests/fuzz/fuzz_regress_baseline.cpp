// The per-case baseline (gpu_ref/golden/*/regress_baseline.json) that `regress` reads.
#include <fstream>
#include <sstream>

#include "fuzz_target.hpp"
#include "sim/config/config_error.hpp"
#include "sim/validate/golden.hpp"

std::vector<std::string> fuzz_seeds() {
  // A few cases of the shipped baseline: its structure, not its size.
  std::ifstream in(std::string(NORMSIM_SOURCE_DIR) + "/gpu_ref/golden/h200/regress_baseline.json");
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  return {text.substr(0, std::min<size_t>(text.size(), 2000)),
          R"({"gpu": "h200", "cases": {"a": {"dram_bytes_read": 0.01, "dram_bytes_written": null, "l2_bytes": 0.2, "duration_us": 0.05}}})"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)normsim::validate::parse_regress_baseline(std::string(reinterpret_cast<const char*>(data), size),
                                                    "fuzz/regress_baseline.json");
  } catch (const normsim::config::ConfigError&) {
  }
  return 0;
}
