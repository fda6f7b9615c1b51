// The merge tree's schedule on `units` merge units: how many cycles a row's
// log2(L) levels of merges take, and how long the units are held. The
// arithmetic does not depend on it (the same merges in the same order; see
// NormDatapath::merge); the time and the area do.
//
// A dedicated tree (units = L - 1, one unit per node) is pipelined: a level
// takes `level_cycles`, and a new row can enter every cycle. Fewer units are
// time-shared by a sequencer (rtl_models/chan_merge_seq.v) that captures the
// row's L lane states, issues level l's L/2^(l+1) merges U at a time, one
// issue a cycle into units of `level_cycles` latency, and starts level l+1 when
// level l's last result is back:
//   latency = sum over l of (ceil(m_l / U) - 1 + level_cycles),  m_l = L / 2^(l+1),
// and it captures the next row in the cycle this one's root is out
// (occupancy = latency + 1: the capture cycle and the latency).
#pragma once

#include <bit>

namespace normsim::core {

struct MergeSchedule {
  int lanes = 1;  ///< the tree's width L, a power of two
  int units = 0;  ///< merge units; 0 or >= L - 1: a dedicated tree

  bool shared() const { return units > 0 && units < lanes - 1; }
  int levels() const { return std::countr_zero(static_cast<unsigned>(lanes)); }
  int merges(int level) const { return lanes >> (level + 1); }
  /// Cycles in which level `level` issues its merges.
  int issue_cycles(int level) const { return shared() ? (merges(level) + units - 1) / units : 1; }
  /// Lane states in -> the root's state out.
  int latency_cycles(int level_cycles) const {
    int t = 0;
    for (int l = 0; l < levels(); ++l) t += issue_cycles(l) - 1 + level_cycles;
    return t;
  }
  /// Cycles from taking one row to being able to take the next.
  int occupancy_cycles(int level_cycles) const { return shared() ? latency_cycles(level_cycles) + 1 : 1; }
  /// The units that exist: L - 1 for a dedicated tree.
  int instances() const { return shared() ? units : lanes - 1; }
};

}  // namespace normsim::core
