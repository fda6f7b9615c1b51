// The ASIC model's closed-form L2 in front of its DRAM (sim/asic/l2_model.hpp):
// LRU's cliff, the measured reuse curves with the requests' priorities,
// and the written lines still dirty at the end.
#include <gtest/gtest.h>

#include "sim/asic/l2_model.hpp"
#include "sim/core/reuse_curve.hpp"

using namespace normsim;

TEST(AsicL2, MeasuredReplacementFollowsTheCurvesAndTheHints) {
  asic::L2Config l2;
  l2.capacity_bytes = core::Bytes(62914560);
  l2.replacement = asic::L2Replacement::measured;
  l2.reuse.sweep = {46.6e6, 19.4};
  l2.reuse.steady = {45e6, 6.0};
  l2.reuse.evict_first_pool_bytes = 11.9e6;
  l2.reuse.store_weight = 0.632;
  l2.store_priority = asic::L2Priority::evict_first;
  // One wave of 20 MB (x) with __stcs stores: D = 20 + 11.9 MB, below the
  // sweep's half: all but 0.1% hit.
  auto t = asic::l2_traffic(l2, true, 800, 6250, 4, 4, 800, 0, 0);
  EXPECT_GT(t.reread_hit, 0.999);
  EXPECT_NEAR(t.dram_bytes_read, 20e6, 0.02e6);
  // One wave of 100 MB: a plain re-read re-inserts every line and misses
  // throughout; an evict-first (__ldcs) one keeps the first pass's tail --
  // the same numbers as the SIMT model's shared curve functions.
  t = asic::l2_traffic(l2, true, 4000, 6250, 4, 4, 4000, 0, 0);
  EXPECT_LT(t.reread_hit, 0.01);
  EXPECT_NEAR(t.dram_bytes_read, 200e6, 2e6);
  l2.reread_priority = asic::L2Priority::evict_first;
  const auto ef = asic::l2_traffic(l2, true, 4000, 6250, 4, 4, 4000, 0, 0);
  EXPECT_NEAR(ef.reread_hit, core::lockstep_reread_hit({{1, 0}, {0, 2}}, 100e6, 11.9e6, l2.reuse.sweep), 1e-12);
  EXPECT_GT(ef.reread_hit, 0.2);
  EXPECT_DOUBLE_EQ(ef.dram_bytes_read, 100e6 * (2 - ef.reread_hit));
  // Rounds: 16 of them with 34 MB in flight -- the first in lock step (hits),
  // the rest on the softer steady curve, where the LRU closed form sees a
  // 34 MB x 2.5 distance past 60 MiB and misses everything.
  l2.reread_priority = asic::L2Priority::normal;
  const auto rounds = asic::l2_traffic(l2, true, 16384, 8448, 4, 4, 1024, 0, 0);
  EXPECT_NEAR(rounds.reread_hit,
              core::rounds_reread_hit(core::lockstep_reread_hit({{1, 1}, {0, 1}}, 1024 * 33792.0, 11.9e6, l2.reuse.sweep),
                                      core::out_of_phase_reread_hit({{1, 1}, {0, 1}}, 1024 * 33792.0, {1, 1}, 11.9e6,
                                                                    l2.reuse.steady_curve(1024)),
                                      16384, 1024),
              1e-12);
  EXPECT_GT(rounds.reread_hit, 0.3);
  EXPECT_LT(rounds.reread_hit, 0.99);
  l2.replacement = asic::L2Replacement::lru;
  EXPECT_EQ(asic::l2_traffic(l2, true, 16384, 8448, 4, 4, 1024, 0, 0).reread_hit, 0.0);  // D = 1024 x 3 x 33792 B = 104 MB
}

TEST(AsicL2, LruReuseCliffAndDirtyLinesLeft) {
  asic::L2Config l2;
  l2.capacity_bytes = core::Bytes(60e6);
  // DRAM re-read, 100 rows of 100 KB in flight, y as large as x: D = 100 x 300 KB = 30 MB < 60 MB: hits.
  auto t = asic::l2_traffic(l2, true, 1000, 25000, 4, 4, 100, 0, 0);
  EXPECT_EQ(t.reread_hit, 1.0);
  EXPECT_DOUBLE_EQ(t.reuse_distance_bytes, 30e6);
  EXPECT_DOUBLE_EQ(t.dram_bytes_read, 100e6);
  // 300 rows in flight: D = 90 MB: every re-read misses (LRU's cliff): x twice.
  t = asic::l2_traffic(l2, true, 1000, 25000, 4, 4, 300, 0, 0);
  EXPECT_EQ(t.reread_hit, 0.0);
  EXPECT_DOUBLE_EQ(t.dram_bytes_read, 200e6);
  // One wave (every row in flight): D = the whole input.
  EXPECT_EQ(asic::l2_traffic(l2, true, 500, 25000, 4, 4, 1000, 0, 0).reread_hit, 1.0);  // 50 MB
  // SRAM replay: x once; of the L2's last 60 MB, y's half is still dirty: 30 MB never written.
  t = asic::l2_traffic(l2, false, 1000, 25000, 4, 4, 100, 0, 0);
  EXPECT_DOUBLE_EQ(t.dram_bytes_read, 100e6);
  EXPECT_DOUBLE_EQ(t.dirty_resident_bytes, 30e6);
  EXPECT_DOUBLE_EQ(t.dram_bytes_written, 70e6);
  // An output that fits stays dirty entirely.
  EXPECT_DOUBLE_EQ(asic::l2_traffic(l2, false, 100, 25000, 4, 4, 100, 0, 0).dram_bytes_written, 0.0);
}
