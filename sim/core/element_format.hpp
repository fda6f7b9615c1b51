// Element formats at the datapath boundary: fp32, bf16, fp16 and int8 with a
// scale. Conversions round to nearest, ties to even, and keep NaN/Inf, as the
// IEEE 754 convertFormat operation and CUDA's __float2bfloat16_rn /
// __float2half_rn do.
#pragma once

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
uint32_t fp32_bits(float f);
float fp32_from_bits(uint32_t u);

uint16_t fp32_to_bf16_bits(float f);  ///< RNE; NaN stays quiet NaN
float bf16_bits_to_fp32(uint16_t b);
uint16_t fp32_to_fp16_bits(float f);  ///< RNE incl. subnormals and overflow to Inf
float fp16_bits_to_fp32(uint16_t h);

/// int8 with a per-tensor scale: value = code * scale. Quantisation rounds
/// half to even and saturates to [-128, 127]; `saturated` reports clipping.
struct Int8Scale {
  double scale = 1.0;
};
int8_t quantize_int8(double value, Int8Scale s, bool* saturated = nullptr);
inline double dequantize_int8(int8_t code, Int8Scale s) { return code * s.scale; }

/// Rounds an fp32 value to the nearest value of `t` and returns it widened
/// back to double (int8 uses `s`). This is "what the tensor stores".
double round_to_elem(double value, ElemType t, Int8Scale s = {});

/// Spacing of `t` at magnitude |ref| (the ULP used by error metrics):
/// 2^(floor(log2|ref|) - mantissa bits), floored at the smallest subnormal;
/// for int8 it is the scale.
double ulp_of(ElemType t, double ref, Int8Scale s = {});

}  // namespace normsim::core
