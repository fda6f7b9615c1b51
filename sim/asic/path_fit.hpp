// The design of each input path that `compare` puts side by side: at an SRAM
// budget, the rows in flight (and, for partial replay, the replay fraction)
// that fit it in the fewest cycles; at a target, the smallest SRAM that meets
// it. The search is exhaustive over a documented candidate set, because the
// cycles are not monotonic in the rows in flight (on llama2-7b at 3..7 rows:
// 1049652, 1049486, 1049492, 1049620, 1049652 -- more rows shift when the
// re-fills meet the normalise pass's DRAM writes). The caller evaluates the
// candidates (compare runs the model, timing only, in child processes); the
// rest is arithmetic on the on-chip bytes of traffic_identity.
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

/// Rows in flight tried up to `most`: every count to 16, then the powers of
/// two, then `most` itself.
std::vector<int> rows_in_flight_candidates(int most);

/// One design of a path: its arch (rows in flight, replay fraction, and the
/// SRAM capacity set to what it needs) and those on-chip bytes.
struct PathCandidate {
  config::Arch arch;
  int rows_in_flight = 0;
  double replay_fraction = 0;  ///< partial replay only
  uint64_t sram_bytes = 0;     ///< row buffers, re-read FIFO, parameters
};

/// What a candidate costs, timing only.
struct CandidateCost {
  double cycles = 0;
  double area_mm2 = 0;
  double energy_uj = 0;
};

struct PathFit {
  InputPath path = InputPath::sram_replay;
  bool feasible = false;
  std::string reason;      ///< why not, when infeasible
  config::Arch arch;       ///< the chosen candidate's arch
  int rows_in_flight = 0;
  double replay_fraction = 0;  ///< partial replay only
  uint64_t sram_bytes = 0;     ///< on-chip bytes the design needs
  CandidateCost cost;          ///< of the chosen design
  int candidates_run = 0;      ///< designs the search evaluated
  int rows_that_fit = 0;       ///< budget: the most rows in flight the budget holds at the chosen fraction
};

/// The costs of a batch of candidate archs, in order (a caller may run them
/// at once).
using CostsOf = std::function<std::vector<CandidateCost>(const std::vector<config::Arch>& archs)>;

/// The path's designs whose on-chip bytes fit `budget_bytes` (rows in flight
/// from rows_in_flight_candidates up to the most that fit, times the replay
/// fractions). DRAM re-read has no row buffers to trade, but its rows in
/// flight still change its cycles (how far the re-read stream runs ahead):
/// it is searched over them the same way.
std::vector<PathCandidate> sram_budget_candidates(const config::Workload& w, const config::Arch& a, InputPath path,
                                                  uint64_t budget_bytes);

/// The path's designs a target is searched over: rows in flight up to the
/// workload's rows (at most 65536), times the replay fractions; every path.
std::vector<PathCandidate> target_cycles_candidates(const config::Workload& w, const config::Arch& a, InputPath path);

/// The fastest design that fits `budget_bytes`: fewest cycles, then least
/// area, then least energy, then fewest on-chip bytes.
PathFit fit_sram_budget(const config::Workload& w, const config::Arch& a, InputPath path, uint64_t budget_bytes,
                        const CostsOf& costs_of);

/// The smallest design that finishes in at most `target_cycles`: fewest
/// on-chip bytes, then fewest cycles, then least area, then least energy.
PathFit fit_target_cycles(const config::Workload& w, const config::Arch& a, InputPath path, double target_cycles,
                          const CostsOf& costs_of);

/// The on-chip bytes of `path` at `rows` rows in flight and replay fraction `f`.
uint64_t path_onchip_bytes(const config::Workload& w, const config::Arch& a, InputPath path, int rows, double f);

}  // namespace normsim::asic
