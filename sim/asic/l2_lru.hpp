// An L2 cache in front of the ASIC model's DRAM (the memory system a GPU
// mapping needs, workloads/arch/gpu-*.yaml `asic.l2`): fully associative,
// LRU, write-back, `line_bytes` lines. Pure and closed-form: the input paths
// stream rows in lockstep (R rows in flight), so every reuse distance is
// known exactly:
//  * DRAM re-read: between a row's first read and its re-read the other
//    R rows each bring their first read, re-read and y write, D = R (2 in + out)
//    bytes (one wave, R >= N: every first read comes first, D = N in); the
//    re-read hits iff D < capacity (LRU's cliff).
//  * Writes are written back only when evicted: at the end, the L2's
//    capacity holds the latest touched lines, y's share of them still dirty.
// No timing: the ASIC model's cycles are unchanged (the L2 only recounts the
// DRAM bytes the identities give).
#pragma once

#include <algorithm>
#include <cstdint>

namespace normsim::asic {

struct L2Config {
  double capacity_bytes = 0;  ///< 0: no L2
  int line_bytes = 128;
};

struct L2Traffic {
  double dram_bytes_read = 0, dram_bytes_written = 0;
  bool reread_hits = false;         ///< the re-read found its row in the L2
  double reuse_distance_bytes = 0;  ///< D of the re-read (0 for SRAM replay)
  double dirty_resident_bytes = 0;  ///< written bytes still in the L2 at the end
};

/// rows x hidden elements of in_bytes read (twice if `reread`), out_bytes
/// written, params/stats bytes once; R rows in flight.
inline L2Traffic l2_lru_traffic(const L2Config& l2, bool reread, double rows, double hidden, double in_bytes,
                                double out_bytes, double rows_in_flight, double param_bytes, double stats_bytes) {
  const double row_in = hidden * in_bytes, row_out = hidden * out_bytes;
  const double x = rows * row_in, y = rows * row_out;
  L2Traffic t;
  double x_reads = x;
  if (reread) {
    t.reuse_distance_bytes = rows_in_flight >= rows ? rows * row_in : rows_in_flight * (2 * row_in + row_out);
    t.reread_hits = t.reuse_distance_bytes < l2.capacity_bytes;
    if (!t.reread_hits) x_reads += x;
  }
  t.dram_bytes_read = x_reads + param_bytes;
  // The last `capacity` bytes of distinct lines touched: per row, the x lines
  // (inserted, or re-touched by a hit) and the y lines (dirty).
  const double x_per_row = reread ? 2 * row_in : row_in;
  const double dirty = std::min(y + stats_bytes, l2.capacity_bytes * (row_out / (x_per_row + row_out)));
  t.dirty_resident_bytes = std::max(0.0, dirty);
  t.dram_bytes_written = y + stats_bytes - t.dirty_resident_bytes;
  return t;
}

}  // namespace normsim::asic
