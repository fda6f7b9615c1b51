// The command line's expressions: each line of the input is a `--set`
// (applied to the embedded workload and arch), or, after "grid " or "zip ",
// a sweep axis; then the axes are checked together.
#include "fuzz_target.hpp"
#include "sim/config/arch.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/sweep_grid.hpp"
#include "sim/config/workload.hpp"

std::vector<std::string> fuzz_seeds() {
  return {
      "workload.rows=64\narch.formats.sum.bits=24\n",
      "arch.asic.sram.capacity_bytes=65536\nworkload.input.distribution={kind: normal, mean: 0, sigma: 2}\n",
      "grid arch.lanes=4,8,16\nzip arch.asic.rows_in_flight=2,4,arch.asic.sram.capacity_bytes=65536,131072\n",
      "grid arch.lanes=4,8\ngrid arch.asic.replay_fraction=0.25,0.5 if arch.lanes=4\n",
      "workload.batch=2\nworkload.rows=8\n",
  };
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace normsim::config;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<Override> ov;
  Grid grid;
  std::istringstream in(text);
  std::string line;
  try {
    while (std::getline(in, line)) {
      if (line.rfind("grid ", 0) == 0) add_grid_axis(grid, line.substr(5));
      else if (line.rfind("zip ", 0) == 0) add_zip_axis(grid, line.substr(4));
      else ov.push_back(parse_override(line));
    }
    if (!grid.axes.empty()) {
      check_grid(grid);
      size_t bound = 1;
      for (const auto& a : grid.axes) bound *= a.values.size() + 1;
      if (bound <= 4096) (void)grid.points();
    }
  } catch (const ConfigError&) {
    return 0;
  }
  try {
    (void)default_workload(ov);
  } catch (const ConfigError&) {
  }
  try {
    (void)default_arch(ov);
  } catch (const ConfigError&) {
  }
  return 0;
}
