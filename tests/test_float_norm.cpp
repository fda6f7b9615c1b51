#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/core/counter_rng.hpp"
#include "sim/core/float_norm.hpp"
#include "sim/core/norm_datapath.hpp"

using namespace normsim::core;
using namespace normsim::rng;

namespace {
std::vector<float> row(const Distribution& d, int n, uint64_t seed = 1) {
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(sample(d, seed, kInput, i));
  return x;
}
// Statistics of one row through the fp32 datapath (lanes, tree, rsqrt).
RowStats fp32_stats(const std::vector<float>& x, VarianceAlgorithm alg, int lanes, bool clamp, bool* clamped) {
  DatapathConfig c;
  c.algorithm = alg;
  c.lanes = lanes;
  c.variance_clamp = clamp;
  c.hidden = static_cast<int64_t>(x.size());
  const std::vector<float> g(x.size(), 1.0f), b(x.size(), 0.0f);
  NormDatapath dp(c, g, b);
  std::vector<double> xd(x.begin(), x.end()), y(x.size());
  StageCounters counters;
  const RowStats s = dp.process_row(xd, y, counters);
  if (clamped) *clamped = counters.negative_variance_clamps > 0;
  return s;
}
double var_rel_error(const std::vector<float>& x, VarianceAlgorithm alg, int lanes) {
  std::vector<double> xd(x.begin(), x.end());
  const RowStats ref = reference_stats(xd, NormKind::layernorm, 0.0);
  return std::fabs(fp32_stats(x, alg, lanes, true, nullptr).var - ref.var) / ref.var;
}
}  // namespace

TEST(FloatNorm, AlgorithmsAgreeOnWellConditionedRows) {
  const auto x = row(Distribution::normal(0, 1), 4096);
  for (auto alg : {VarianceAlgorithm::two_pass, VarianceAlgorithm::single_pass, VarianceAlgorithm::welford})
    EXPECT_LT(var_rel_error(x, alg, 32), 1e-5) << to_string(alg);
}

TEST(FloatNorm, SinglePassCancelsAndWelfordDoesNot) {
  // Seed 001 section 5: mean 1e4, sigma 1.
  const auto x = row(Distribution::cancellation(), 768);
  EXPECT_GT(var_rel_error(x, VarianceAlgorithm::single_pass, 1), 0.1);
  EXPECT_LT(var_rel_error(x, VarianceAlgorithm::welford, 16), 1e-3);
}

TEST(FloatNorm, ClampCatchesNegativeVariance) {
  // A constant row: exact variance 0; single pass in fp32 rounds E[x^2]-E[x]^2 either way.
  int clamps = 0, negatives = 0;
  for (uint64_t s = 0; s < 200; ++s) {
    auto x = row(Distribution::normal(3000.0, 1e-3), 257, s);
    bool clamped = false;
    const RowStats r = fp32_stats(x, VarianceAlgorithm::single_pass, 1, true, &clamped);
    clamps += clamped;
    EXPECT_GE(r.var, 0.0);
    EXPECT_TRUE(std::isfinite(r.rstd));
    const RowStats u = fp32_stats(x, VarianceAlgorithm::single_pass, 1, false, nullptr);
    if (u.var < 0) {
      ++negatives;
      EXPECT_TRUE(clamped);
    }
  }
  EXPECT_GT(clamps, 0);
  EXPECT_EQ(clamps, negatives);
}

TEST(FloatNorm, WelfordLanesMergeToSequential) {
  const auto x = row(Distribution::normal(1, 2), 1000);
  const auto seq = welford_lanes<double>(std::span<const float>(x), 1);
  for (int lanes : {2, 4, 32, 1024}) {
    const auto par = welford_lanes<double>(std::span<const float>(x), lanes);
    EXPECT_EQ(par.count, 1000);
    EXPECT_NEAR(par.mean, seq.mean, 1e-12);
    EXPECT_NEAR(par.m2, seq.m2, 1e-9 * seq.m2);
  }
}

TEST(FloatNorm, RmsNormReference) {
  std::vector<double> x = {1, 2, 3, 4};
  const RowStats s = reference_stats(x, NormKind::rmsnorm, 0.0);
  EXPECT_DOUBLE_EQ(s.var, 7.5);
  EXPECT_DOUBLE_EQ(s.rstd, 1.0 / std::sqrt(7.5));
  std::vector<float> g = {1, 1, 1, 2};
  std::vector<double> y(4);
  reference_output(x, s, g, {}, y);
  EXPECT_DOUBLE_EQ(y[3], 8.0 / std::sqrt(7.5));
}

TEST(MergeStrides, AdjacentAndTheGpuButterfly) {
  using normsim::core::merge_strides;
  using normsim::core::MergeOrder;
  EXPECT_EQ(merge_strides(MergeOrder::adjacent, 16, 32), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(merge_strides(MergeOrder::butterfly, 32, 32), (std::vector<int>{16, 8, 4, 2, 1}));
  // A 256-thread block: each warp's butterfly, then the 8 warps' partials.
  EXPECT_EQ(merge_strides(MergeOrder::butterfly, 256, 32), (std::vector<int>{16, 8, 4, 2, 1, 128, 64, 32}));
  EXPECT_EQ(merge_strides(MergeOrder::butterfly, 8, 32), (std::vector<int>{4, 2, 1}));
  // A cluster of two 128-thread blocks: warps, the block's warps, then the two blocks.
  EXPECT_EQ(merge_strides(MergeOrder::butterfly, 256, 32, 2), (std::vector<int>{16, 8, 4, 2, 1, 64, 32, 128}));
}

TEST(DatapathConfig, LaneBlocksArePowersOfTwoWithinTheLanesAndFp32Only) {
  normsim::core::DatapathConfig c;
  c.hidden = 64;
  c.lanes = 8;
  c.lane_blocks = 2;
  EXPECT_EQ(c.validate(), "");
  c.lane_blocks = 3;
  EXPECT_NE(c.validate().find("lane_blocks 3 must be a power of two"), std::string::npos) << c.validate();
  c.lane_blocks = 16;
  EXPECT_NE(c.validate().find("lane_blocks 16"), std::string::npos) << c.validate();
  c.lane_blocks = 2;
  c.arithmetic = normsim::core::Arithmetic::fixed;
  EXPECT_NE(c.validate().find("lane_blocks applies to arithmetic fp32 only"), std::string::npos) << c.validate();
}
