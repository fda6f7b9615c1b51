// sim/core/reuse_curve: the re-read hit fractions the SIMT model's L2 and the
// ASIC model's GPU-like L2 share.
#include "sim/core/reuse_curve.hpp"

#include <gtest/gtest.h>

using namespace normsim::core;

TEST(ReuseCurve, HalfHitsAtTheHalfAndFallsPastIt) {
  const ReuseCurve c{40e6, 6};
  EXPECT_EQ(reuse_hit_fraction(0, c), 1.0);
  EXPECT_NEAR(reuse_hit_fraction(40e6, c), 0.5, 1e-12);
  EXPECT_GT(reuse_hit_fraction(20e6, c), 0.98);
  EXPECT_LT(reuse_hit_fraction(80e6, c), 0.02);
  // steeper: closer to a cliff at the half
  EXPECT_GT(reuse_hit_fraction(30e6, {40e6, 20}), reuse_hit_fraction(30e6, c));
  EXPECT_LT(reuse_hit_fraction(50e6, {40e6, 20}), reuse_hit_fraction(50e6, c));
}

TEST(ReuseCurve, LockstepDistanceIsTheRestOfOnePassAndTheStartOfTheNext) {
  // Two plain passes over X: every byte's distance is X, so the mean hit is h(X).
  const ReuseCurve sweep{46e6, 19};
  for (double X : {20e6, 46e6, 60e6})
    EXPECT_NEAR(lockstep_reread_hit({{1, 1}, {0, 0}}, X, 12e6, sweep), reuse_hit_fraction(X, sweep), 1e-12) << X;
  // An evict-first re-read inserts nothing at normal priority: the byte at f
  // waits (1 - f) X + min(pool, f X); past the cliff, the tail of the first
  // pass (f near 1) still hits.
  const double X = 100e6;
  const double ef = lockstep_reread_hit({{1, 0}, {0, 1}}, X, 12e6, sweep);
  EXPECT_GT(ef, 0.3);
  EXPECT_LT(ef, 0.5);
  EXPECT_LT(lockstep_reread_hit({{1, 1}, {0, 0}}, X, 12e6, sweep), 1e-4);
  // A single pass re-reads nothing: nothing to miss.
  EXPECT_EQ(lockstep_reread_hit({{1}, {0}}, X, 12e6, sweep), 1.0);
}

TEST(ReuseCurve, OutOfPhaseSpreadsTheDistanceByThePassTimes) {
  const ReuseCurve steady{45e6, 6};
  const PassInsertions plain{{1, 1}, {0, 0}};
  // Equal passes: every byte waits one pass, F (1 + 1) / 2 = F.
  EXPECT_NEAR(out_of_phase_reread_hit(plain, 30e6, {1, 1}, 0, steady), reuse_hit_fraction(30e6, steady), 1e-12);
  // Time units cancel.
  EXPECT_NEAR(out_of_phase_reread_hit(plain, 30e6, {5, 5}, 0, steady),
              out_of_phase_reread_hit(plain, 30e6, {1, 1}, 0, steady), 1e-12);
  // Unequal passes: the same mean distance, spread from 2F T1/(T1+T2) to
  // 2F T2/(T1+T2); below the half the spread costs hits, above it gains them.
  EXPECT_LT(out_of_phase_reread_hit(plain, 30e6, {3, 1}, 0, steady), out_of_phase_reread_hit(plain, 30e6, {1, 1}, 0, steady));
  EXPECT_GT(out_of_phase_reread_hit(plain, 70e6, {3, 1}, 0, steady), out_of_phase_reread_hit(plain, 70e6, {1, 1}, 0, steady));
  EXPECT_EQ(out_of_phase_reread_hit(plain, 30e6, {0, 0}, 0, steady), 1.0);
}

TEST(ReuseCurve, RoundsBlendTheFirstRoundsSweepWithTheRest) {
  EXPECT_EQ(rounds_reread_hit(0.9, 0.1, 100, 100), 0.9);  // one wave
  EXPECT_EQ(rounds_reread_hit(0.9, 0.1, 50, 100), 0.9);
  EXPECT_NEAR(rounds_reread_hit(0.9, 0.1, 400, 100), 0.25 * 0.9 + 0.75 * 0.1, 1e-12);
}

TEST(ReuseCurve, MoreRowsInFlightSoftenTheSteadyCurve) {
  const ReuseCurve c{45e6, 6.2};
  EXPECT_EQ(with_rows_in_flight(c, -0.67, 1056, 1056).steepness, 6.2);
  EXPECT_NEAR(with_rows_in_flight(c, -0.67, 1056, 4224).steepness, 6.2 - 2 * 0.67, 1e-12);  // two doublings
  EXPECT_EQ(with_rows_in_flight(c, -0.67, 1056, 4224).half_bytes, 45e6);
  EXPECT_EQ(with_rows_in_flight(c, -3, 1056, 1 << 20).steepness, 1.0);  // never below 1
}
