// Exact steady-state fast-forward of the timing model (docs/ASIC.md,
// "Fast-forward"). Rows of one workload are identical to the timing: once
// the accelerator's whole state -- every unit's, every channel's and every
// memory port's, with times taken relative to the current cycle and row
// indices relative to the row just finished -- is the same at two row
// completions P rows apart, the run from there on is the same one shifted
// by the period's T cycles, until a unit sees the end of the input. So the
// detector cuts the rows to issue by m whole periods before any unit has
// seen the end, the simulation finishes the shorter run, and every counter
// gains m times its period's delta (every time past the cut m T): the same
// numbers, bit for bit, as the full run, which a test checks over every
// shipped workload and arch. Timeloop extrapolates steady-state loop
// iterations the same way (NVlabs/timeloop, nest-analysis); here the period
// is found, not derived from a loop nest.
//
// Exactness in doubles: the model's times and counters are sums of
// increments; the extrapolated and the simulated sums agree bit for bit when
// no sum rounds. Every value seen is a multiple of 2^-k; the detector
// applies only when the run's largest value times 2^k stays below 2^53, so
// no sum of such values can round.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/asic/row_slot.hpp"

namespace normsim::asic {

/// One row completion's state, relative: what a unit appends must be equal
/// one period later in a steady state.
struct PeriodState {
  double now = 0;   ///< the cycle of the snapshot
  int64_t row = 0;  ///< the row just finished
  std::vector<double> values;
  /// A cycle; 0 is "not set yet" (no event of a run is at cycle 0 once rows flow).
  void time(double t) { values.push_back(t == 0 ? kUnset : t - now); }
  void row_index(int64_t r) { values.push_back(static_cast<double>(r - row)); }
  void value(double v) { values.push_back(v); }
  void grant(const Grant& g) {
    time(g.issue);
    time(g.first_byte);
    time(g.done);
  }
  void grants(const std::vector<Grant>& gs) {
    value(static_cast<double>(gs.size()));
    for (const Grant& g : gs) grant(g);
  }
  /// A row buffer: its row and times, not which buffer it is (they rotate).
  void slot(const RowSlot* s) {
    if (!s) return value(kUnset);
    row_index(s->row);
    time(s->t_ready);
    grants(s->sram_write);
  }
  void token(const ChunkToken& t) {
    slot(t.slot);
    value(t.chunk);
    grant(t.dram);
  }
  template <class T>
  void optional(const std::optional<T>& v) {
    value(v.has_value());
    if (v) add(*v);
  }
  template <class Container>
  void queue(const Container& q) {
    value(static_cast<double>(q.size()));
    for (const auto& v : q) add(v);
  }

 private:
  static constexpr double kUnset = std::numeric_limits<double>::lowest();
  void add(const Grant& g) { grant(g); }
  void add(const ChunkToken& t) { token(t); }
  void add(RowSlot* s) { slot(s); }
  void add(double t) { time(t); }
  template <class A, class B>
  void add(const std::pair<A, B>& p) {
    add(p.first);
    value(p.second);
  }
};

/// A unit or channel whose state the fast-forward compares.
class HasPeriodState {
 public:
  virtual void period_state(PeriodState& s) const = 0;

 protected:
  ~HasPeriodState() = default;
};

/// The rows the issuing units (the input path, the re-read stream) go up
/// to: the workload's rows until the fast-forward cuts whole periods.
class RowLimit {
 public:
  explicit RowLimit(int64_t rows) : rows_(rows) {}
  int64_t rows() const { return rows_; }
  void cut(int64_t rows) { rows_ = rows; }

 private:
  int64_t rows_;
};

/// What the fast-forward did, for the report.
struct FastForward {
  bool enabled = true;          ///< false: --no-fast-forward (or a run that cannot skip rows: see `reason`)
  bool applied = false;         ///< periods were skipped
  int64_t period_rows = 0;      ///< P
  double period_cycles = 0;     ///< T
  int64_t periods_skipped = 0;  ///< m
  int64_t rows_simulated = 0;   ///< rows the SystemC kernel simulated
  double cut_cycle = 0;         ///< the cycle of the cut (simulated time)
  std::string reason;           ///< why no period was skipped (empty when applied)
  std::vector<double> counter_delta;  ///< each counter's change over one period (SteadyStateDetector's order)
  int64_t rows_skipped() const { return periods_skipped * period_rows; }
  double cycles_skipped() const { return static_cast<double>(periods_skipped) * period_cycles; }
};

/// Finds the period from row completions and decides the cut.
class SteadyStateDetector {
 public:
  struct Config {
    int64_t rows = 0;            ///< the workload's rows
    int64_t first_row = 0;       ///< no cut before this row has finished (the rows a VCD traces)
    int max_period_rows = 16;    ///< periods tried: 1..this
    int repeats = 2;             ///< periods the state must repeat over before a cut
    int64_t dense_rows = 64;       ///< rows looked at one after another from the start
  };
  explicit SteadyStateDetector(const Config& c) : cfg_(c) {}

  /// At a row completion: its state, every counter (`peak`: which are maxima,
  /// whose delta must be zero) and the furthest row a unit has issued. Returns
  /// the row limit to cut to, or -1.
  int64_t observe(PeriodState&& state, std::vector<double>&& counters, const std::vector<bool>& peak, int64_t issued_rows);
  bool searching() const { return !done_; }
  /// Whether the completion of `row` is looked at: every row of the first
  /// `dense_rows`, then windows of (repeats + 1) x max_period_rows rows from
  /// each power of two on -- a long transient is found within 2x of its end,
  /// at a cost that grows with log2 of the rows, not the rows.
  bool looks_at(int64_t row) const;
  const FastForward& result() const { return ff_; }
  /// Ends the search with no cut, saying why (the run simulates every row).
  void stop(std::string reason);

 private:
  struct Snapshot {
    PeriodState state;
    std::vector<double> counters;
  };
  bool periodic(int p, const std::vector<bool>& peak) const;
  Config cfg_;
  std::deque<Snapshot> history_;  ///< the last (repeats + 1) x max_period_rows completions
  FastForward ff_;
  bool done_ = false;
};

}  // namespace normsim::asic
