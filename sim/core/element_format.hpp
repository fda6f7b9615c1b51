// Element formats at the datapath boundary: fp32, bf16, fp16 and int8 with a
// scale. Conversions round to nearest, ties to even, and keep NaN/Inf, as the
// IEEE 754 convertFormat operation and CUDA's __float2bfloat16_rn /
// __float2half_rn do.
#pragma once

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace normsim::core {

enum class ElemType { fp32, bf16, fp16, int8 };

std::string_view to_string(ElemType t);
std::optional<ElemType> parse_elem_type(std::string_view s);
inline constexpr std::string_view kElemTypeNames = "fp32, bf16, fp16, int8";

/// Bytes one element occupies in memory.
int elem_bytes(ElemType t);

// --- bit-level conversions -------------------------------------------------

uint16_t fp32_to_fp16_bits(float f);  ///< RNE incl. subnormals and overflow to Inf
float fp16_bits_to_fp32(uint16_t h);

/// int8 with a per-tensor scale: value = code * scale. Quantisation rounds
/// half to even and saturates to [-128, 127]; `saturated` reports clipping.
struct Int8Scale {
  double scale = 1.0;
};
int8_t quantize_int8(double value, Int8Scale s, bool* saturated = nullptr);
inline double dequantize_int8(int8_t code, Int8Scale s) { return code * s.scale; }

// --- inline: called once or twice per element -------------------------------

// memcpy, not std::bit_cast: gpu_ref's host code includes this as C++17.
inline uint32_t fp32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float fp32_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline float bf16_bits_to_fp32(uint16_t b) { return fp32_from_bits(static_cast<uint32_t>(b) << 16); }

/// RNE; NaN stays quiet NaN.
inline uint16_t fp32_to_bf16_bits(float f) {
  uint32_t u = fp32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);  // quiet NaN
  // Round to nearest even on the 16 discarded bits; a carry into the exponent
  // correctly produces the next binade or Inf.
  uint32_t lsb = (u >> 16) & 1u;
  u += 0x7fffu + lsb;
  return static_cast<uint16_t>(u >> 16);
}


/// Rounds to the nearest value of `t` (double -> fp32 first, as a kernel
/// storing a float does) and widens back: "what the tensor stores".
inline double round_to_elem(double value, ElemType t, Int8Scale s = {}) {
  const float f = static_cast<float>(value);
  switch (t) {
    case ElemType::fp32: return f;
    case ElemType::bf16: return bf16_bits_to_fp32(fp32_to_bf16_bits(f));
    case ElemType::fp16: return fp16_bits_to_fp32(fp32_to_fp16_bits(f));
    case ElemType::int8: return dequantize_int8(quantize_int8(value, s), s);
  }
  return value;
}

/// Spacing of `t` at magnitude |ref| (the ULP of the error metrics):
/// 2^(floor(log2|ref|) - mantissa bits), floored at the smallest subnormal;
/// the scale for int8.
inline double ulp_of(ElemType t, double ref, Int8Scale s = {}) {
  int mant_bits = 23, min_exp = -126;
  switch (t) {
    case ElemType::fp32: break;
    case ElemType::bf16: mant_bits = 7; break;
    case ElemType::fp16: mant_bits = 10; min_exp = -14; break;
    case ElemType::int8: return s.scale;
  }
  // floor(log2|ref|) from the double's exponent field (subnormal doubles and
  // zero fall below every min_exp here); 2^(e - mant_bits) built from bits.
  uint64_t bits;
  std::memcpy(&bits, &ref, sizeof bits);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  int e = biased == 0x7ff ? min_exp : std::max(biased - 1023, min_exp);
  e -= mant_bits;
  const uint64_t out = static_cast<uint64_t>(e + 1023) << 52;
  double r;
  std::memcpy(&r, &out, sizeof r);
  return r;
}

}  // namespace normsim::core
