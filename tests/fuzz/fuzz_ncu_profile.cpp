// ncu's golden profile (gpu_ref/golden/*/ncu_profile.json) that `regress` and `simt --explain` read.
#include <fstream>
#include <sstream>

#include "fuzz_target.hpp"
#include "sim/config/config_error.hpp"
#include "sim/validate/ncu_profile.hpp"

std::vector<std::string> fuzz_seeds() {
  // The start of the shipped profile (its structure, not its size) and one whole small case.
  std::ifstream in(std::string(NORMSIM_SOURCE_DIR) + "/gpu_ref/golden/h200/ncu_profile.json");
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  return {text.substr(0, std::min<size_t>(text.size(), 3000)),
          R"({"a": {"sm__warps_active.avg.pct_of_peak_sustained_active": 50, "smsp__issue_active.avg.pct_of_peak_sustained_active": 20,
"dram__throughput.avg.pct_of_peak_sustained_elapsed": 70, "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": 9,
"smsp__average_warps_issue_stalled_selected_per_issue_active.ratio": 1, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum": 4}})"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)normsim::validate::parse_ncu_profile(std::string(reinterpret_cast<const char*>(data), size),
                                               "fuzz/ncu_profile.json");
  } catch (const normsim::config::ConfigError&) {
  }
  return 0;
}
