// ncu's per-case profile of the golden launches (gpu_ref/scripts/
// build_profile.py writes GOLDEN_DIR/ncu_profile.json): the Warp State
// Statistics' stall reasons, achieved occupancy, issue activity and DRAM
// throughput, each averaged over a case's launches weighted by their
// durations -- read into the warp profile the SIMT model predicts.
#pragma once

#include <map>
#include <string>

#include "sim/simt/warp_state.hpp"

namespace normsim::validate {

struct NcuProfile {
  simt::WarpProfile warps;
  double duration_ns = 0;    ///< the case's launches together
  double inst_executed = 0;  ///< warp instructions (smsp__inst_executed.sum)
};

/// Case id -> profile.
using NcuProfiles = std::map<std::string, NcuProfile>;

/// GOLDEN_DIR/ncu_profile.json; an empty map when the file does not exist.
NcuProfiles load_ncu_profile(const std::string& dir);

/// The same from the file's text. ConfigError (exit 2) naming the file, the
/// case, the metric, the value and what is allowed: an unknown metric, a
/// missing one (occupancy, issue activity, DRAM throughput, a stall
/// reason), a percentage outside 0..100, a negative or non-finite value, a
/// duplicate key.
NcuProfiles parse_ncu_profile(const std::string& text, const std::string& file);

}  // namespace normsim::validate
