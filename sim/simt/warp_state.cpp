#include "sim/simt/warp_state.hpp"

#include <nlohmann/json.hpp>

namespace normsim::simt {

std::optional<WarpState> warp_state_of_ncu_reason(std::string_view reason) {
  for (const WarpStateInfo& i : kWarpStateInfo)
    if (i.state != WarpState::other && i.name == reason) return i.state;
  // ncu's other reasons on sm_90 (Nsight Compute's Kernel Profiling Guide, Warp Stall Reasons).
  static constexpr std::string_view kOther[] = {"branch_resolving", "dispatch_stall", "imc_miss",   "membar",
                                                "math_pipe_throttle", "no_instruction", "sleeping", "tex_throttle",
                                                "misc"};
  for (std::string_view o : kOther)
    if (o == reason) return WarpState::other;
  return std::nullopt;
}

WarpState WarpProfile::dominant() const {
  size_t best = 0;
  for (size_t i = 1; i < kWarpStates; ++i)
    if (share[i] > share[best]) best = i;
  return static_cast<WarpState>(best);
}

nlohmann::json warp_profile_json(const WarpProfile& p) {
  nlohmann::json shares = nlohmann::json::object();
  for (const WarpStateInfo& i : kWarpStateInfo) shares[std::string(i.name)] = p[i.state];
  return {{"stall_share", shares},
          {"dominant", std::string(to_string(p.dominant()))},
          {"warp_cycles_per_issue", p.warp_cycles_per_issue},
          {"achieved_occupancy", p.achieved_occupancy},
          {"issue_active", p.issue_active},
          {"dram_throughput", p.dram_throughput},
          {"local_memory_bytes", std::isnan(p.local_memory_bytes) ? nlohmann::json() : nlohmann::json(p.local_memory_bytes)}};
}

}  // namespace normsim::simt
