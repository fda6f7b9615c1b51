// MergeSchedule's closed forms against a cycle-by-cycle run of the
// sequencer's policy (rtl_models/chan_merge_seq.v): level by level, at most
// `units` merges issued a cycle, a level starting when the previous level's
// last result is back.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/core/merge_schedule.hpp"

using normsim::core::MergeSchedule;

namespace {
// Cycles from the first issue to the root being back, issuing one cycle at a time.
int simulated_latency(int lanes, int units, int level_cycles) {
  int cycle = 0;  // the cycle of the next issue
  for (int width = lanes; width > 1; width /= 2) {
    int pending = width / 2, last_back = cycle;
    while (pending > 0) {
      const int now = std::min(pending, units);
      pending -= now;
      last_back = cycle + level_cycles;  // this cycle's merges are back level_cycles later
      ++cycle;
    }
    cycle = last_back;  // the next level reads this level's results
  }
  return cycle;
}
}  // namespace

TEST(MergeSchedule, SharedLatencyIsTheSequencersOverEveryShape) {
  for (int L = 4; L <= 4096; L *= 2)
    for (int U = 1; U < L - 1; U += (U < 64 ? 1 : 37))
      for (int P = 1; P <= 6; ++P) {
        const MergeSchedule s{L, U};
        ASSERT_TRUE(s.shared());
        ASSERT_EQ(s.latency_cycles(P), simulated_latency(L, U, P)) << "L " << L << " U " << U << " P " << P;
        ASSERT_EQ(s.occupancy_cycles(P), s.latency_cycles(P) + 1);
        ASSERT_EQ(s.instances(), U);
      }
}

TEST(MergeSchedule, DedicatedTreeIsLevelsTimesLevelCyclesAndPipelined) {
  for (int L = 1; L <= 4096; L *= 2)
    for (int P = 1; P <= 6; ++P)
      for (int U : {0, L - 1}) {
        const MergeSchedule s{L, U};
        EXPECT_FALSE(s.shared());
        EXPECT_EQ(s.latency_cycles(P), s.levels() * P);
        EXPECT_EQ(s.occupancy_cycles(P), 1);
        EXPECT_EQ(s.instances(), L - 1);
      }
}

TEST(MergeSchedule, EnoughUnitsForTheWidestLevelCostNoLatency) {
  // U >= L/2: every level issues in one cycle, as the dedicated tree.
  for (int L = 4; L <= 1024; L *= 2)
    for (int U = L / 2; U < L - 1; ++U) EXPECT_EQ((MergeSchedule{L, U}.latency_cycles(3)), (MergeSchedule{L, 0}.latency_cycles(3)));
  // Hand values: L = 16, one unit, 3-cycle merges: (8-1+3) + (4-1+3) + (2-1+3) + (1-1+3) = 23.
  EXPECT_EQ((MergeSchedule{16, 1}.latency_cycles(3)), 23);
  EXPECT_EQ((MergeSchedule{16, 3}.latency_cycles(3)), (3 - 1 + 3) + (2 - 1 + 3) + 3 + 3);
}
