// Each fixed-point unit against exact (fp64/long double) arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sim/core/fixed_units.hpp"

using namespace normsim::core;

namespace {
StageFormats wide_formats() {
  StageFormats f;
  for (auto& x : f) x = FixedFormat{48, 30, true, Rounding::half_even, Overflow::saturate};
  f[static_cast<int>(Stage::recip)] = FixedFormat{40, 39, false, Rounding::half_even, Overflow::saturate};
  return f;
}
}  // namespace

TEST(RecipTable, EntriesAreRoundedReciprocals) {
  const FixedFormat rf{16, 15, false, Rounding::half_even, Overflow::saturate};
  const auto t = make_recip_table(1000, rf);
  for (int n = 1; n <= 1000; ++n) EXPECT_LE(std::fabs(to_double(t[n]) - 1.0 / n), rf.lsb() / 2 + 1e-18) << n;
  EXPECT_EQ(to_double(t[1]), 1.0);
  EXPECT_EQ(to_double(t[4]), 0.25);
}

TEST(WelfordLane, TracksExactMeanAndM2WithWideFormats) {
  const auto f = wide_formats();
  const auto table = make_recip_table(512, f[static_cast<int>(Stage::recip)]);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> nd(5.0, 2.0);
  FxWelford s{0, Fx{0, 30}, Fx{0, 30}};
  StageCounters c;
  long double sum = 0;
  std::vector<double> xs;
  for (int i = 0; i < 512; ++i) {
    const double x = std::ldexp(std::round(std::ldexp(nd(rng), 20)), -20);
    xs.push_back(x);
    sum += x;
    s = welford_update(s, quantize(x, f[0]), table[s.count + 1], f, c);
  }
  const long double mean = sum / 512;
  long double m2 = 0;
  for (double x : xs) m2 += (x - mean) * (x - mean);
  // 512 roundings of half an lsb (2^-31) each, at most: a few dozen lsb.
  EXPECT_NEAR(to_double(s.mean), static_cast<double>(mean), 64 * std::ldexp(1.0, -30));
  EXPECT_NEAR(to_double(s.m2) / static_cast<double>(m2), 1.0, 1e-8);
  for (int i = 0; i < kStageCount; ++i) EXPECT_EQ(c.overflows[i], 0u);
}

TEST(ChanMerge, EqualCountsUseShiftsAndMatchGeneralFormula) {
  const auto f = wide_formats();
  StageCounters c;
  FxWelford a{8, quantize(1.5, f[3]), quantize(4.0, f[4])};
  FxWelford b{8, quantize(3.5, f[3]), quantize(6.0, f[4])};
  const FxWelford r = chan_merge(a, b, f, c);
  EXPECT_EQ(r.count, 16);
  EXPECT_EQ(to_double(r.mean), 2.5);                        // (1.5 + 3.5) / 2
  EXPECT_EQ(to_double(r.m2), 4.0 + 6.0 + 4.0 * 8 / 2);      // d^2 n_a n_b / n = 4 * 4
  FxWelford u{3, quantize(1.0, f[3]), quantize(2.0, f[4])};
  FxWelford v{5, quantize(2.0, f[3]), quantize(1.0, f[4])};
  const FxWelford w = chan_merge(u, v, f, c);
  EXPECT_NEAR(to_double(w.mean), 1.0 + 5.0 / 8.0, 1e-9);
  EXPECT_NEAR(to_double(w.m2), 3.0 + 1.0 * 15.0 / 8.0, 1e-9);
}

TEST(ChanMerge, CountsOverflowOfNarrowM2) {
  auto f = wide_formats();
  f[static_cast<int>(Stage::m2)] = FixedFormat{12, 4, true, Rounding::half_even, Overflow::saturate};
  StageCounters c;
  FxWelford a{64, quantize(-60.0, f[3]), quantize(0.0, f[4])};
  FxWelford b{64, quantize(60.0, f[3]), quantize(0.0, f[4])};
  const FxWelford r = chan_merge(a, b, f, c);
  EXPECT_EQ(c.overflows[static_cast<int>(Stage::m2)], 1u);
  EXPECT_EQ(r.m2.raw, f[static_cast<int>(Stage::m2)].max_raw());
}

// The worst relative error of rsqrt_nr at `cfg` against fp64 over 20000
// inputs spread log-uniformly over 2^-20..2^10 (rstd within the output's range).
static double rsqrt_worst_error(const RsqrtConfig& cfg, uint64_t seed) {
  const auto table = make_rsqrt_table(cfg);
  const FixedFormat in{48, 30, false, Rounding::half_even, Overflow::saturate};
  const FixedFormat out{48, 36, false, Rounding::half_even, Overflow::saturate};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> e(-20, 10);
  double worst = 0;
  for (int i = 0; i < 20000; ++i) {
    const Fx v = quantize(std::exp2(e(rng)), in);
    if (v.raw == 0) continue;
    const double ref = 1.0 / std::sqrt(to_double(v));
    worst = std::max(worst, std::fabs(to_double(rsqrt_nr(v, cfg, table, out)) / ref - 1.0));
  }
  return worst;
}

class RsqrtAccuracy : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(RsqrtAccuracy, ErrorShrinksQuadraticallyWithNewtonSteps) {
  const auto [table_bits, iters] = GetParam();
  const double worst = rsqrt_worst_error(RsqrtConfig{table_bits, iters, 40}, 11);
  // Seed error ~2^-(table_bits+1); each Newton step squares the relative error (x1.5).
  double bound = std::ldexp(1.0, -(table_bits));
  for (int k = 0; k < iters; ++k) bound = 1.5 * bound * bound + std::ldexp(1.0, -38);
  EXPECT_LE(worst, bound + std::ldexp(1.0, -30)) << "table " << table_bits << " iters " << iters;
  if (iters == 2 && table_bits >= 8) {
    EXPECT_LT(worst, 1e-8);
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, RsqrtAccuracy,
                         ::testing::Combine(::testing::Values(4, 6, 8, 10), ::testing::Values(0, 1, 2, 3)));

// The linear seed: c0 + c1 t an interval, the interval's minimax line. Its
// relative error is about h^2 max|f''| / (16 f) <= 0.07 4^-(table_bits-1)
// (h the interval's width), so one Newton step takes it where two take a
// table seed.
class RsqrtLinearSeed : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(RsqrtLinearSeed, SeedErrorIsTheLinesAndOneStepSquaresIt) {
  const auto [table_bits, iters] = GetParam();
  const RsqrtConfig cfg{table_bits, iters, 40, RsqrtSeed::linear};
  ASSERT_EQ(static_cast<int64_t>(make_rsqrt_table(cfg).size()), cfg.rom_words());
  const double worst = rsqrt_worst_error(cfg, 12);
  double bound = 0.07 * std::ldexp(1.0, -2 * (table_bits - 1)) + std::ldexp(1.0, -38);
  for (int k = 0; k < iters; ++k) bound = 1.5 * bound * bound + std::ldexp(1.0, -38);
  EXPECT_LE(worst, bound + std::ldexp(1.0, -30)) << "table " << table_bits << " iters " << iters;  // +: the output lsb at rstd 2^-5
  if (iters == 0) {
    EXPECT_GT(worst, bound / 8) << "a bound so loose it tests nothing";
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, RsqrtLinearSeed, ::testing::Combine(::testing::Values(3, 5, 8, 10), ::testing::Values(0, 1)));

TEST(RsqrtLinearSeed, OneStepMatchesTwoAfterATableEveryInputOfANarrowFormat) {
  // Every rsqrt_in word of a 20-bit format against fp64: the linear seed and
  // one step at 8 table bits lands within what a table seed reaches in two.
  const FixedFormat in{20, 12, false, Rounding::half_even, Overflow::saturate};
  const FixedFormat out{40, 30, false, Rounding::half_even, Overflow::saturate};
  const RsqrtConfig two{8, 2, 28}, one{8, 1, 28, RsqrtSeed::linear};
  const auto t2 = make_rsqrt_table(two), t1 = make_rsqrt_table(one);
  double worst_two = 0, worst_one = 0;
  for (int64_t raw = 1; raw < (int64_t(1) << in.total_bits); ++raw) {
    const Fx v{raw, in.frac_bits};
    const double ref = 1.0 / std::sqrt(to_double(v));
    worst_two = std::max(worst_two, std::fabs(to_double(rsqrt_nr(v, two, t2, out)) / ref - 1.0));
    worst_one = std::max(worst_one, std::fabs(to_double(rsqrt_nr(v, one, t1, out)) / ref - 1.0));
  }
  EXPECT_LT(worst_one, 2e-8);
  EXPECT_LT(worst_two, 2e-8);
  // A table seed's one step is far off: the line is what buys the step.
  const RsqrtConfig table_one{8, 1, 28};
  const auto tt = make_rsqrt_table(table_one);
  double worst_table_one = 0;
  for (int64_t raw = 1; raw < (int64_t(1) << in.total_bits); raw += 7) {
    const Fx v{raw, in.frac_bits};
    worst_table_one = std::max(worst_table_one, std::fabs(to_double(rsqrt_nr(v, table_one, tt, out)) * std::sqrt(to_double(v)) - 1.0));
  }
  EXPECT_GT(worst_table_one, 1e-6);
}

TEST(RsqrtLinearSeed, StagesAndRomFollowTheSeed) {
  const RsqrtConfig table{8, 2, 28}, line{8, 1, 28, RsqrtSeed::linear};
  EXPECT_EQ(table.stages(), 4);  // normalise + seed, two steps, round
  EXPECT_EQ(line.stages(), 4);   // normalise + ROM, multiply-add, one step, round
  EXPECT_EQ(table.rom_words(), 256);
  EXPECT_EQ(line.rom_words(), 512);
  EXPECT_NE(RsqrtConfig({1, 1, 28, RsqrtSeed::linear}).validate(), "");  // no mantissa bits to interpolate over
  EXPECT_EQ(RsqrtConfig({2, 1, 28, RsqrtSeed::linear}).validate(), "");
}

TEST(Rsqrt, ZeroAndTinyInputsSaturateAndAreFlagged) {
  RsqrtConfig cfg;
  const auto table = make_rsqrt_table(cfg);
  const FixedFormat out{16, 8, false, Rounding::half_even, Overflow::saturate};
  QuantFlags fl;
  EXPECT_EQ(rsqrt_nr(Fx{0, 20}, cfg, table, out, &fl).raw, out.max_raw());
  EXPECT_TRUE(fl.overflow);
  EXPECT_EQ(rsqrt_nr(Fx{1, 30}, cfg, table, out, &fl).raw, out.max_raw());  // 2^15 > 255.99
  EXPECT_TRUE(fl.overflow);
  EXPECT_NEAR(to_double(rsqrt_nr(quantize(4.0, FixedFormat{16, 8, false}), cfg, table, out, &fl)), 0.5, 1.0 / 256);
  EXPECT_FALSE(fl.overflow);
}

TEST(NormalizeAffine, RoundsOnceAtEachRegister) {
  StageFormats f = wide_formats();
  f[static_cast<int>(Stage::xhat)] = FixedFormat{16, 8, true, Rounding::half_even, Overflow::saturate};
  f[static_cast<int>(Stage::output)] = FixedFormat{16, 4, true, Rounding::truncate, Overflow::saturate};
  StageCounters c;
  const Fx y = normalize_affine(quantize(3.0, f[0]), quantize(1.0, f[3]), quantize(0.3, f[8]),
                                quantize(1.5, f[10]), quantize(0.25, f[11]), f, c);
  // xhat = q8(2 * 0.3) = 154/256; y = trunc4(154/256 * 1.5 + 0.25) = trunc4(1.15234) = 18/16
  EXPECT_EQ(to_double(y), 18.0 / 16.0);
  EXPECT_EQ(c.quantizations[static_cast<int>(Stage::xhat)], 1u);
  EXPECT_EQ(c.quantizations[static_cast<int>(Stage::output)], 1u);
}
