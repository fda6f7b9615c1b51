// The design of each input path that `compare` puts side by side: at an SRAM
// budget, the rows in flight (and, for partial replay, the replay fraction)
// that fit it in the fewest cycles; at a target, the smallest SRAM that meets
// it. The whole space is searched, by two arguments the tests prove:
//
// * Rows in flight saturate. A design whose input path never found every row
//   buffer busy runs the same schedule with any more of them (the free pool
//   is the only place the count enters the timing: every other FIFO it sizes
//   holds at most the buffers in use), so from its peak of buffers held up
//   only the SRAM grows. One design at the most rows that fit (probed at 16,
//   then 4x up) tells, per replay fraction, the counts that can matter:
//   1 .. its peak, or all of them if it waited. Below that every count is
//   evaluated, because the cycles are not monotonic in them (on llama2-7b at
//   3..7 rows: 1049652, 1049486, 1049492, 1049620, 1049652 -- more rows
//   shift when the re-fills meet the normalise pass's DRAM writes).
// * The replay fraction has one valley. It is searched at the hardware's
//   granularity (whole DRAM bursts of a row, partial_replay_steps): each
//   kept burst takes DRAM bytes off the row and puts SRAM bytes on it, so
//   the cycles fall while the DRAM binds and rise once the SRAM port does --
//   found by a ternary search at each row count (and, at a target, the
//   fewest bursts below it by bisection). Ties go to fewer bursts (less
//   SRAM, less area), so the order searched is strict.
//
// tests/test_path_fit.cpp holds both searches to an exhaustive evaluation
// of every fraction at every row count up to where it saturates, checks the
// saturation on each, and evaluates every design of the whole space outright
// on short workloads. The caller evaluates the designs (compare runs the
// model, timing only, in child processes); the rest is arithmetic on the
// on-chip bytes of traffic_identity.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/asic/asic_config.hpp"
#include "sim/config/arch.hpp"
#include "sim/config/workload.hpp"

namespace normsim::asic {

/// The steps of partial replay's kept part: whole DRAM bursts of a row, at
/// most kMaxReplaySteps a row (a longer row's step is the fewest whole
/// bursts that keep the count under it). A row of `steps` steps is kept in
/// 1 .. steps - 1 of them (all of it is SRAM replay, none DRAM re-read).
inline constexpr int kMaxReplaySteps = 256;
struct ReplaySteps {
  int64_t hidden = 1;
  int64_t step_elems = 1;  ///< elements a step
  int steps = 1;           ///< steps a row (the last may be short)
  /// The fraction that keeps k steps: round(f C) = min(k step_elems, C) elements.
  double fraction(int k) const;
};
ReplaySteps partial_replay_steps(const config::Workload& w, const config::Arch& a);
/// The fractions partial replay is searched at: every step, 1 .. steps - 1.
std::vector<double> partial_replay_fractions(const config::Workload& w, const config::Arch& a);

/// The first row count a fraction's saturation is probed at; then 4x up to the most.
inline constexpr int kFirstRowsProbe = 16;

/// One design of a path: its arch (rows in flight, replay fraction, and the
/// SRAM capacity set to what it needs) and those on-chip bytes.
struct PathCandidate {
  config::Arch arch;
  int rows_in_flight = 0;
  double replay_fraction = 0;  ///< partial replay only
  uint64_t sram_bytes = 0;     ///< row buffers, re-read FIFO, parameters
};

/// What a candidate costs, timing only, and whether more rows in flight
/// would change it (the run's row_buffers_peak and row_buffer_waits).
struct CandidateCost {
  double cycles = 0;
  double area_mm2 = 0;
  double energy_uj = 0;
  int row_buffers_peak = -1;        ///< the most row buffers held at once; -1: not known
  bool waited_for_row_buffer = true;  ///< the input path found every row buffer busy
  /// The rows in flight past which the design runs the same schedule: its
  /// peak when it never waited, else (or not known) `rows`, its own.
  int saturating_rows(int rows) const {
    return row_buffers_peak < 0 || waited_for_row_buffer ? rows : std::min(rows, row_buffers_peak);
  }
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
  /// Rows in flight searched: every count 1 .. this. Past it, at a budget,
  /// every design runs a schedule already seen (or does not fit); at a
  /// target, every design holds more bytes than the pick.
  int rows_searched = 0;
  int rows_that_fit = 0;       ///< budget: the most rows in flight the budget holds at the chosen fraction
};

/// The costs of a batch of candidate archs, in order (a caller may run them
/// at once).
using CostsOf = std::function<std::vector<CandidateCost>(const std::vector<config::Arch>& archs)>;

/// The fastest design that fits `budget_bytes`: fewest cycles, then least
/// area, then least energy, then fewest on-chip bytes. Rows in flight from
/// 1 up to where the designs saturate (or the most that fit); for partial
/// replay, at each, the fraction's valley below the most steps that fit.
/// DRAM re-read has no row buffers to trade, but its rows in flight still
/// change its cycles (how far the re-read stream runs ahead): it is
/// searched over them the same way.
PathFit fit_sram_budget(const config::Workload& w, const config::Arch& a, InputPath path, uint64_t budget_bytes,
                        const CostsOf& costs_of);

/// The smallest design that finishes in at most `target_cycles`: fewest
/// on-chip bytes, then fewest cycles, then least area, then least energy.
/// Rows in flight from 1 up to where the designs saturate (at most the
/// workload's rows, at most 65536), fewest first, until a count's smallest
/// design holds more bytes than one that meets the target; for partial
/// replay, at each, the fewest steps that meet the target left of the
/// fraction's valley.
PathFit fit_target_cycles(const config::Workload& w, const config::Arch& a, InputPath path, double target_cycles,
                          const CostsOf& costs_of);

/// The on-chip bytes of `path` at `rows` rows in flight and replay fraction `f`.
uint64_t path_onchip_bytes(const config::Workload& w, const config::Arch& a, InputPath path, int rows, double f);

}  // namespace normsim::asic
