#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/core/counter_rng.hpp"
#include "sim/core/rng_batch.hpp"

using namespace normsim::rng;

TEST(CounterRng, PhiloxKnownAnswer) {
  // Random123 kat_vectors: philox4x32_10, counter and key all zero / all ones / pi digits.
  auto r = philox4x32_10(0, 0, 0, 0, 0, 0);
  EXPECT_EQ(r.v[0], 0x6627e8d5u);
  EXPECT_EQ(r.v[1], 0xe169c58du);
  EXPECT_EQ(r.v[2], 0xbc57ac4cu);
  EXPECT_EQ(r.v[3], 0x9b00dbd8u);
  r = philox4x32_10(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu);
  EXPECT_EQ(r.v[0], 0x408f276du);
  EXPECT_EQ(r.v[1], 0x41c83b0eu);
  EXPECT_EQ(r.v[2], 0xa20bc7c6u);
  EXPECT_EQ(r.v[3], 0x6d5451fdu);
  r = philox4x32_10(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u);
  EXPECT_EQ(r.v[0], 0xd16cfe09u);
  EXPECT_EQ(r.v[1], 0x94fdccebu);
  EXPECT_EQ(r.v[2], 0x5001e420u);
  EXPECT_EQ(r.v[3], 0x24126ea1u);
}

TEST(CounterRng, DependsOnlyOnSeedStreamIndex) {
  const auto d = Distribution::normal(0, 1);
  std::vector<double> fwd, bwd;
  for (uint64_t i = 0; i < 1000; ++i) fwd.push_back(sample(d, 42, kInput, i));
  for (uint64_t i = 1000; i-- > 0;) bwd.push_back(sample(d, 42, kInput, i));
  for (size_t i = 0; i < 1000; ++i) EXPECT_EQ(fwd[i], bwd[999 - i]);
  EXPECT_NE(sample(d, 42, kInput, 5), sample(d, 43, kInput, 5));
  EXPECT_NE(sample(d, 42, kInput, 5), sample(d, 42, kGamma, 5));
}

TEST(CounterRng, PortableLogMatchesLibm) {
  for (double x = 1e-300; x < 1e300; x *= 1.37) EXPECT_NEAR(portable_log(x), std::log(x), 4e-16 * std::fabs(std::log(x)) + 1e-300);
  EXPECT_EQ(portable_log(1.0), 0.0);
}

TEST(CounterRng, InverseNormalKnownQuantiles) {
  EXPECT_NEAR(inverse_normal_cdf(0.975), 1.959963984540054, 1e-14);
  EXPECT_NEAR(inverse_normal_cdf(0.5), 0.0, 1e-16);
  EXPECT_NEAR(inverse_normal_cdf(1e-10), -6.361340902404056, 1e-12);
  EXPECT_NEAR(inverse_normal_cdf(0.001), -3.090232306167813, 1e-13);
}

TEST(CounterRng, MomentsOfEachDistribution) {
  const int n = 200000;
  auto moments = [&](const Distribution& d, double& mean, double& var) {
    double s = 0, s2 = 0;
    for (int i = 0; i < n; ++i) {
      const double v = sample(d, 9, kInput, static_cast<uint64_t>(i));
      s += v;
      s2 += v * v;
    }
    mean = s / n;
    var = s2 / n - mean * mean;
  };
  double m, v;
  moments(Distribution::normal(2.0, 3.0), m, v);
  EXPECT_NEAR(m, 2.0, 0.03);
  EXPECT_NEAR(v, 9.0, 0.1);
  moments(Distribution::uniform(-1.0, 3.0), m, v);
  EXPECT_NEAR(m, 1.0, 0.01);
  EXPECT_NEAR(v, 16.0 / 12.0, 0.01);
  moments(Distribution::int8_codes(), m, v);
  EXPECT_NEAR(m, -0.5, 0.2);
  EXPECT_NEAR(v, (256.0 * 256.0 - 1) / 12.0, 30.0);
  moments(Distribution::cancellation(), m, v);
  EXPECT_NEAR(m, 1.0e4, 0.01);
  EXPECT_NEAR(v, 1.0, 0.02);
  for (int i = 0; i < 10000; ++i) {
    const double c = sample(Distribution::int8_codes(-3, 5), 1, kInput, i);
    ASSERT_TRUE(c >= -3 && c <= 5 && c == std::floor(c));
  }
}

TEST(CounterRng, BatchIsBitIdenticalToSample) {
  for (const auto& d : {Distribution::normal(0.5, 2.0), Distribution::cancellation(), Distribution::uniform(-3, 1),
                        Distribution::int8_codes(-100, 27), Distribution::constant(4.0)}) {
    std::vector<double> out(5003);
    const uint64_t first = (uint64_t(1) << 32) - 2000;  // crosses the counter's 32-bit word
    sample_batch(d, 0x123456789abcull, kInput, first, out.size(), out.data());
    for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], sample(d, 0x123456789abcull, kInput, first + i)) << i;
  }
}
