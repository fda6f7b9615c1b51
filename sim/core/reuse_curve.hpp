// Re-read hit fractions of a cache whose replacement is not simulated line
// by line but described by measured reuse curves: a GPU's L2, whose policy
// (hashed sets, insertion priorities, the cache hints' evict-first class) is
// not LRU and is not documented. The curves are measured by gpu_ref's
// l2_sweep_probe (docs/SIMT.md, Traffic); the SIMT model and the ASIC
// model's GPU-like memory system (asic/l2_model.hpp) share these functions.
//
// A re-read pass reads again the row bytes an earlier pass read. The byte at
// fraction f of the row has reuse distance D(f): the bytes that went into
// the cache between its two accesses, every one pushing it towards
// eviction. h(D) = 1 / (1 + (D / half)^steepness) is the chance it is still
// there.
#pragma once

#include <vector>

namespace normsim::core {

struct ReuseCurve {
  double half_bytes = 0;  ///< reuse distance with a 50% hit chance
  double steepness = 1;   ///< how sharply hits fall off past it
};

/// The curve with `rows` rows in flight out of phase, its steepness changed
/// by `per_doubling` for each doubling past `reference_rows` (more rows,
/// more spread phases: a softer curve), never below 1.
ReuseCurve with_rows_in_flight(const ReuseCurve& curve, double per_doubling, double reference_rows, double rows);

/// A GPU L2's measured reuse (gpu_ref's l2_sweep_probe; the defaults are the
/// H200's): the curve of rows in lock step, the curve of rows out of phase
/// and how it softens with more of them, what evict-first lines displace of
/// normal ones, and a plain store's line against a load's. The SIMT model's
/// L2 (h200.yaml `l2`) and the ASIC model's GPU-like L2 (`asic.l2`) read the
/// same keys into it (config/l2_reuse_keys.hpp).
struct L2Reuse {
  ReuseCurve sweep{46.6e6, 19.4};
  ReuseCurve steady{45e6, 6.242};             ///< at steady_steepness_rows rows in flight
  double steady_steepness_per_doubling = -0.6682;
  double steady_steepness_rows = 1056;
  double evict_first_pool_bytes = 11.9e6;     ///< normal lines evict-first ones displace at most
  double store_weight = 0.632;                ///< a plain store's line against a plain load's
  /// The steady curve with `rows_in_flight` rows out of phase.
  ReuseCurve steady_curve(double rows_in_flight) const;
};

/// h(D); 1 for D <= 0.
double reuse_hit_fraction(double distance_bytes, const ReuseCurve& curve);

/// Bytes each pass over a row inserts, per byte of the row's x: at normal
/// priority (plain or read-only loads, a hit refreshing its line, plain
/// stores at their measured weight) and at evict-first priority (__ldcs,
/// __stcs lines: the first victims, so together they displace at most
/// `evict_first_pool_bytes` of normal lines). Pass 0 is the first read;
/// every later pass re-reads the row.
struct PassInsertions {
  std::vector<double> normal, evict_first;
};

/// The hit fraction of every re-read pass j >= 1 averaged over f, where the
/// byte at f has distance (1 - f) a[j-1] + f a[j] + min(pool, (1 - f) b[j-1]
/// + f b[j]): the rest of the previous pass and the start of this one (a[p],
/// b[p]: the bytes pass p inserts at normal and evict-first priority over a
/// whole row's length, across every row in flight).
double mean_hit_between_passes(const std::vector<double>& a, const std::vector<double>& b, double pool_bytes,
                               const ReuseCurve& curve);

/// Rows in lock step (one wave, or a round that starts together): every
/// pass sweeps all `x_bytes` in flight before the next begins.
double lockstep_reread_hit(const PassInsertions& p, double x_bytes, double pool_bytes, const ReuseCurve& sweep);

/// Rows out of phase: `x_bytes` of rows in flight insert at a steady rate,
/// pass p taking `pass_time[p]` of a row's time (any unit), so the byte at f
/// of pass j waits (1 - f) T[j-1] + f T[j] for its re-read.
double out_of_phase_reread_hit(const PassInsertions& p, double x_bytes, const std::vector<double>& pass_time,
                               double pool_bytes, const ReuseCurve& steady);

/// rows > rows_in_flight: the first round starts together (a sweep), the
/// later rows start as slots free, out of phase.
double rounds_reread_hit(double lockstep_hit, double out_of_phase_hit, double rows, double rows_in_flight);

}  // namespace normsim::core
