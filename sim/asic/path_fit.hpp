// The design of each input path that `compare` puts side by side: at an SRAM
// budget, the rows in flight (and, for partial replay, the replay fraction)
// that fit it in the fewest cycles; at a target, the smallest SRAM that meets
// it. The search asks `cycles_of` for a candidate's cycles (compare runs the
// model, timing only, in a child process); it is otherwise pure arithmetic on
// the on-chip bytes of traffic_identity.
//
// The search assumes more row buffers never cost cycles (more rows ahead of
// the normalise pass hide more DRAM latency): it takes the most buffers that
// fit, and binary-searches the fewest that meet a target.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/asic/asic_config.hpp"
#include "sim/config/arch.hpp"
#include "sim/config/workload.hpp"

namespace normsim::asic {

/// Replay fractions partial replay is tried at: 1/16 .. 15/16.
std::vector<double> partial_replay_fractions();

struct PathFit {
  InputPath path = InputPath::sram_replay;
  bool feasible = false;
  std::string reason;      ///< why not, when infeasible
  config::Arch arch;       ///< the arch with the chosen rows_in_flight, replay_fraction and SRAM capacity
  int rows_in_flight = 0;
  double replay_fraction = 0;  ///< partial replay only
  uint64_t sram_bytes = 0;     ///< on-chip bytes the design needs (row buffers, re-read FIFO, parameters)
  double cycles = 0;           ///< of the chosen design, timing only
  int candidates_run = 0;      ///< designs the search ran
};

/// Cycles of the workload on `arch` (its asic section fully set), timing only.
using CyclesOf = std::function<double(const config::Arch& arch)>;

/// The path's design with the fewest cycles whose on-chip bytes fit
/// `budget_bytes` (the SRAM capacity set to the budget).
PathFit fit_sram_budget(const config::Workload& w, const config::Arch& a, InputPath path, uint64_t budget_bytes,
                        const CyclesOf& cycles_of);

/// The path's design with the fewest on-chip bytes that finishes in at most
/// `target_cycles` (the SRAM capacity set to what it needs). DRAM re-read has
/// no buffers to trade: the arch's rows in flight, met or not.
PathFit fit_target_cycles(const config::Workload& w, const config::Arch& a, InputPath path, double target_cycles,
                          const CyclesOf& cycles_of);

/// The on-chip bytes of `path` at `rows` rows in flight and replay fraction `f`.
uint64_t path_onchip_bytes(const config::Workload& w, const config::Arch& a, InputPath path, int rows, double f);

}  // namespace normsim::asic
