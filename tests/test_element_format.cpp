#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "sim/core/element_format.hpp"

using namespace normsim::core;

// Reference RNE conversion through double arithmetic on the value itself.
static double rne_reference(double v, int mant_bits, int min_exp, int max_exp) {
  if (v == 0 || !std::isfinite(v)) return v;
  const int e = std::max(std::ilogb(std::fabs(v)), min_exp);
  const double q = std::ldexp(1.0, e - mant_bits);
  const double r = std::nearbyint(v / q) * q;  // ties-to-even in the default FP mode
  const double max = std::ldexp(2.0 - std::ldexp(1.0, -mant_bits), max_exp);
  // IEEE RNE overflows to Inf once |v| >= max + half an ulp of max
  if (std::fabs(v) >= max + std::ldexp(1.0, max_exp - mant_bits - 1)) return std::copysign(INFINITY, v);
  return r;
}

TEST(ElementFormat, Bf16AndFp16MatchRoundToNearestEven) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000000; ++i) {
    const float f = fp32_from_bits(static_cast<uint32_t>(rng()));
    if (!std::isfinite(f)) continue;
    const float b = bf16_bits_to_fp32(fp32_to_bf16_bits(f));
    ASSERT_EQ(b, static_cast<float>(rne_reference(f, 7, -126, 127))) << f;
    const float h = fp16_bits_to_fp32(fp32_to_fp16_bits(f));
    const double hr = rne_reference(f, 10, -14, 15);
    if (std::isinf(hr)) {
      ASSERT_TRUE(std::isinf(h) && std::signbit(h) == std::signbit(f)) << f;
    }
    else ASSERT_EQ(h, static_cast<float>(hr)) << f;
  }
}

TEST(ElementFormat, SpecialValues) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(bf16_bits_to_fp32(fp32_to_bf16_bits(nan))));
  EXPECT_TRUE(std::isnan(fp16_bits_to_fp32(fp32_to_fp16_bits(nan))));
  // A signalling NaN with only low payload bits must not become Inf.
  EXPECT_TRUE(std::isnan(bf16_bits_to_fp32(fp32_to_bf16_bits(fp32_from_bits(0x7f800001u)))));
  EXPECT_TRUE(std::isinf(bf16_bits_to_fp32(fp32_to_bf16_bits(INFINITY))));
  EXPECT_EQ(fp32_to_fp16_bits(65504.0f), 0x7bffu);
  EXPECT_EQ(fp32_to_fp16_bits(65520.0f), 0x7c00u);  // ties to even: overflows to Inf
  EXPECT_EQ(fp32_to_fp16_bits(std::ldexp(1.0f, -24)), 0x0001u);  // smallest subnormal
  EXPECT_EQ(fp32_to_fp16_bits(std::ldexp(1.0f, -25)), 0x0000u);  // tie to even -> 0
  EXPECT_EQ(fp32_to_fp16_bits(std::ldexp(1.5f, -25)), 0x0001u);
  EXPECT_EQ(fp32_to_fp16_bits(-0.0f), 0x8000u);
  EXPECT_EQ(fp32_to_bf16_bits(1.00390625f), 0x3f80u);  // 1 + 2^-8: tie to even -> 1
  EXPECT_EQ(fp32_to_bf16_bits(1.01171875f), 0x3f82u);  // 1 + 3*2^-8: tie -> up
  for (uint32_t h = 0; h < 0x7c00u; ++h)  // every finite fp16 round-trips
    ASSERT_EQ(fp32_to_fp16_bits(fp16_bits_to_fp32(static_cast<uint16_t>(h))), h);
}

TEST(ElementFormat, Int8WithScale) {
  bool sat = false;
  EXPECT_EQ(quantize_int8(0.5 * 0.1, {0.1}, &sat), 0);  // 0.5 ties to even
  EXPECT_EQ(quantize_int8(1.5 * 0.1, {0.1}, &sat), 2);
  EXPECT_FALSE(sat);
  EXPECT_EQ(quantize_int8(1000.0, {0.1}, &sat), 127);
  EXPECT_TRUE(sat);
  EXPECT_EQ(quantize_int8(-1000.0, {0.1}, &sat), -128);
  EXPECT_DOUBLE_EQ(round_to_elem(0.26, ElemType::int8, {0.25}), 0.25);
}

TEST(ElementFormat, UlpOf) {
  EXPECT_EQ(ulp_of(ElemType::fp32, 1.0), std::ldexp(1.0, -23));
  EXPECT_EQ(ulp_of(ElemType::fp32, 1.9), std::ldexp(1.0, -23));
  EXPECT_EQ(ulp_of(ElemType::bf16, 3.0), std::ldexp(1.0, -6));
  EXPECT_EQ(ulp_of(ElemType::fp16, 0.0), std::ldexp(1.0, -24));
  EXPECT_EQ(ulp_of(ElemType::int8, 5.0, {0.5}), 0.5);
  // The floor: below the smallest normal, the spacing there (the subnormals' spacing).
  EXPECT_EQ(ulp_of(ElemType::fp32, 1e-40), std::ldexp(1.0, -149));
  EXPECT_EQ(ulp_of(ElemType::fp32, std::ldexp(1.0, -126)), std::ldexp(1.0, -149));
  EXPECT_EQ(ulp_of(ElemType::fp32, std::ldexp(1.0, -125)), std::ldexp(1.0, -148));
  EXPECT_EQ(ulp_of(ElemType::bf16, -1e-40), std::ldexp(1.0, -133));
  EXPECT_EQ(ulp_of(ElemType::fp16, 1e-6), std::ldexp(1.0, -24));
  EXPECT_EQ(ulp_of(ElemType::fp16, std::ldexp(1.0, -13)), std::ldexp(1.0, -23));
  EXPECT_EQ(elem_bytes(ElemType::bf16), 2);
}
