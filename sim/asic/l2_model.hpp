// An L2 cache in front of the ASIC model's DRAM (the memory system a GPU
// mapping needs, workloads/arch/gpu-*.yaml `asic.l2`), write-back, with one
// of two replacement models. Pure and closed-form: the input paths stream
// rows with R rows in flight, so every reuse distance follows from the row
// sizes.
//  * lru: fully associative LRU. Between a row's first read and its re-read
//    the other R rows each bring their first read, re-read and y write,
//    D = R (2 in + out) bytes (one wave, R >= N: every first read comes
//    first, D = N in); the re-read hits iff D < capacity (LRU's cliff).
//  * measured: the re-read hit fraction from measured reuse curves
//    (sim/core/reuse_curve; a GPU's L2 is not LRU: on the H200 a plain
//    re-read sweep falls off at about 46 MB of a 60 MiB L2, and evict-first
//    lines displace at most a pool of others): one wave or a round's start
//    in lock step, later rounds out of phase, lines at normal or
//    evict-first priority as the path's requests ask (a GPU kernel's cache
//    hints).
// Writes are written back only when evicted: at the end, the L2's capacity
// holds the latest touched lines, y's share of them still dirty. No timing:
// the ASIC model's cycles are unchanged (the L2 only recounts the DRAM
// bytes the identities give).
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/asic/asic_config.hpp"
#include "sim/core/reuse_curve.hpp"

namespace normsim::asic {

/// The share of a re-read the near caches serve: R rows in flight over
/// K / datapaths_per_cache caches, rows of row_bytes.
inline double l1_reread_hit(const L1Config& l1, double rows_in_flight, int datapaths, double row_bytes) {
  if (!(l1.capacity_bytes > core::Bytes(0))) return 0.0;
  const double caches = std::max(1.0, static_cast<double>(datapaths) / l1.datapaths_per_cache);
  return core::reuse_hit_fraction(rows_in_flight / caches * row_bytes, {l1.capacity_bytes.value(), l1.reuse_steepness});
}

struct L2Traffic {
  double dram_bytes_read = 0, dram_bytes_written = 0;
  double reread_hit = 1;            ///< fraction of the re-read that reached the L2 and hit there (1 without a re-read)
  double l1_hit = 0;                ///< fraction of the re-read the near caches served (it never reached the L2)
  double reuse_distance_bytes = 0;  ///< lru: D of the re-read; measured: x of the rows in flight
  double dirty_resident_bytes = 0;  ///< written bytes still in the L2 at the end
};

/// rows x hidden elements of in_bytes read (twice if `reread`), out_bytes
/// written, params/stats bytes once; R rows in flight; l1_hit of the
/// re-read served before the L2 (l1_reread_hit).
inline L2Traffic l2_traffic(const L2Config& l2, bool reread, double rows, double hidden, double in_bytes, double out_bytes,
                            double rows_in_flight, double param_bytes, double stats_bytes, double l1_hit = 0) {
  const double row_in = hidden * in_bytes, row_out = hidden * out_bytes;
  const double x = rows * row_in, y = rows * row_out;
  L2Traffic t;
  if (reread) {
    t.l1_hit = l1_hit;
    if (l2.replacement == L2Replacement::lru) {
      t.reuse_distance_bytes = rows_in_flight >= rows ? rows * row_in : rows_in_flight * (2 * row_in + row_out);
      t.reread_hit = core::Bytes(t.reuse_distance_bytes) < l2.capacity_bytes ? 1.0 : 0.0;
    } else {
      // Per byte of x: the first pass inserts x at normal priority; the
      // re-read and y's writes at their own priorities.
      core::PassInsertions ins{{1, 0}, {0, 0}};
      (l2.reread_priority == L2Priority::normal ? ins.normal : ins.evict_first)[1] += 1 - l1_hit;
      if (l2.store_priority == L2Priority::normal)
        ins.normal[1] += l2.reuse.store_weight * out_bytes / in_bytes;
      else
        ins.evict_first[1] += out_bytes / in_bytes;
      const double in_flight = std::min(rows, rows_in_flight);
      t.reuse_distance_bytes = in_flight * row_in;
      const core::L2Reuse& r = l2.reuse;
      const double lockstep = core::lockstep_reread_hit(ins, t.reuse_distance_bytes, r.evict_first_pool_bytes, r.sweep);
      // Out of phase with both passes equally long (the path streams both at the same rate).
      const double steady = core::out_of_phase_reread_hit(ins, t.reuse_distance_bytes, {1, 1}, r.evict_first_pool_bytes,
                                                          r.steady_curve(in_flight));
      t.reread_hit = core::rounds_reread_hit(lockstep, steady, rows, in_flight);
    }
  }
  t.dram_bytes_read = x + (reread ? x * (1 - t.l1_hit) * (1 - t.reread_hit) : 0.0) + param_bytes;
  // The last `capacity` bytes of distinct lines touched: per row, the x lines
  // (inserted, or re-touched by a hit) and the y lines (dirty).
  const double x_per_row = reread ? 2 * row_in : row_in;
  const double dirty = std::min(y + stats_bytes, l2.capacity_bytes.value() * (row_out / (x_per_row + row_out)));
  t.dirty_resident_bytes = std::max(0.0, dirty);
  t.dram_bytes_written = y + stats_bytes - t.dirty_resident_bytes;
  return t;
}

}  // namespace normsim::asic
