// Where a kernel's warps spend their cycles, in Nsight Compute's terms (the
// Warp State Statistics section): each resident warp, each cycle, is either
// issuing (selected), eligible but passed over (not_selected), or stalled
// for one reason. ncu samples these per issued instruction
// (smsp__average_warps_issue_stalled_<reason>_per_issue_active); the shares
// below are those ratios over their sum. The same profile holds what ncu
// measured (golden ncu_profile.json) and what the SIMT model predicts, so
// one limiter rule (limiter.hpp) reads both.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string_view>

namespace normsim::simt {

/// The warp states the model predicts; ncu's rarer reasons (branch
/// resolving, dispatch, instruction-cache misses, membar, math-pipe and
/// texture throttles, sleeping, no instruction) are `other`.
enum class WarpState {
  selected,          ///< issuing an instruction this cycle
  not_selected,      ///< eligible, another warp issued
  long_scoreboard,   ///< waiting on a global (L1TEX) load's result
  short_scoreboard,  ///< waiting on a shared-memory load, a shuffle or a MUFU result
  mio_throttle,      ///< the MIO queue (shared memory, shuffles) is full
  lg_throttle,       ///< the LSU's queue of global memory instructions is full
  barrier,           ///< at __syncthreads (or a cluster barrier) for the block's other warps
  wait,              ///< a fixed-latency dependency (FFMA, FADD chains)
  drain,             ///< exited, its stores and atomics still draining to memory
  other,
};
inline constexpr size_t kWarpStates = 10;

struct WarpStateInfo {
  WarpState state;
  std::string_view name;  ///< ncu's reason name ("long_scoreboard")
  std::string_view what;
};
inline constexpr std::array<WarpStateInfo, kWarpStates> kWarpStateInfo = {{
    {WarpState::selected, "selected", "issuing"},
    {WarpState::not_selected, "not_selected", "eligible, another warp issued"},
    {WarpState::long_scoreboard, "long_scoreboard", "waiting on global loads"},
    {WarpState::short_scoreboard, "short_scoreboard", "waiting on shared memory, shuffles or MUFU"},
    {WarpState::mio_throttle, "mio_throttle", "shared-memory/shuffle queue full"},
    {WarpState::lg_throttle, "lg_throttle", "global-memory instruction queue full"},
    {WarpState::barrier, "barrier", "waiting at a barrier"},
    {WarpState::wait, "wait", "fixed-latency dependency"},
    {WarpState::drain, "drain", "exited, stores draining"},
    {WarpState::other, "other", "branch, dispatch, instruction fetch, membar, other throttles"},
}};

constexpr std::string_view to_string(WarpState s) { return kWarpStateInfo[static_cast<size_t>(s)].name; }

/// The class of one of ncu's stall reasons (the <reason> of
/// smsp__average_warps_issue_stalled_<reason>_per_issue_active); nullopt for
/// a name ncu does not have.
std::optional<WarpState> warp_state_of_ncu_reason(std::string_view reason);

/// A launch's (or a plan's, duration-weighted) warp-state picture.
struct WarpProfile {
  std::array<double, kWarpStates> share{};  ///< of all resident warp cycles; sums to 1
  double warp_cycles_per_issue = 0;  ///< resident warp cycles per issued instruction (ncu: warp latency per instruction)
  double achieved_occupancy = 0;     ///< resident warps / the SM's maximum, over the SMs' active cycles (fraction)
  double issue_active = 0;           ///< scheduler cycles that issue an instruction (fraction)
  double dram_throughput = 0;        ///< DRAM bytes per second / the datasheet peak (fraction)
  /// Local-memory (register spill) bytes moved; NaN where not measured.
  double local_memory_bytes = NAN;

  double operator[](WarpState s) const { return share[static_cast<size_t>(s)]; }
  /// The state with the largest share (the first of equal ones, in kWarpStateInfo order).
  WarpState dominant() const;
};

/// {"stall_share": {state: share}, "dominant", "warp_cycles_per_issue",
/// "achieved_occupancy", "issue_active", "dram_throughput",
/// "local_memory_bytes" (null where not measured)}: fractions as fractions.
nlohmann::json warp_profile_json(const WarpProfile& p);

}  // namespace normsim::simt
