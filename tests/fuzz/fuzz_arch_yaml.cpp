// The arch parser (formats, rsqrt, merge, fuse, the asic section and its nested
// tables) on any text.
#include "fuzz_target.hpp"
#include "sim/config/arch.hpp"
#include "sim/config/config_error.hpp"

std::vector<std::string> fuzz_seeds() {
  return shipped_files("workloads/arch", ".yaml") + std::vector<std::string>{
      "name: t\narithmetic: fixed\nlanes: 4\nformats: {sum: {bits: 24, frac: 8, rounding: half_even, overflow: wrap}}\n",
      "arithmetic: fp32\nlanes: 8\nasic: {clock_ghz: 1.0, path: partial-replay, replay_fraction: 0.5, sram: {capacity_bytes: 65536}}\n",
      "lanes: 4\nfuse: {mode: residual_dropout, add_format: {bits: 20, frac: 10, overflow: wrap}}\n",
      "lanes: 4\nfuse: {mode: residual, add_format: fp32}\n",
  };
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)normsim::config::parse_arch_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
  } catch (const normsim::config::ConfigError&) {
  }
  return 0;
}
