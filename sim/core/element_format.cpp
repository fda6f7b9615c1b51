#include "sim/core/element_format.hpp"

#include <bit>
#include <cmath>
#include <limits>

namespace normsim::core {

std::string_view to_string(ElemType t) {
  switch (t) {
    case ElemType::fp32: return "fp32";
    case ElemType::bf16: return "bf16";
    case ElemType::fp16: return "fp16";
    case ElemType::int8: return "int8";
  }
  return "?";
}

std::optional<ElemType> parse_elem_type(std::string_view s) {
  if (s == "fp32") return ElemType::fp32;
  if (s == "bf16") return ElemType::bf16;
  if (s == "fp16") return ElemType::fp16;
  if (s == "int8") return ElemType::int8;
  return std::nullopt;
}

int elem_bytes(ElemType t) {
  switch (t) {
    case ElemType::fp32: return 4;
    case ElemType::bf16:
    case ElemType::fp16: return 2;
    case ElemType::int8: return 1;
  }
  return 0;
}

uint16_t fp32_to_fp16_bits(float f) {
  const uint32_t u = fp32_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // NaN
  if (abs == 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u);                           // Inf
  const int exp = static_cast<int>(abs >> 23) - 127;
  if (exp > 15) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> Inf (RNE)
  uint32_t mant = (abs & 0x7fffffu) | (abs >= 0x00800000u ? 0x800000u : 0u);
  // Number of low mantissa bits dropped: 13 for normals; more for fp16
  // subnormals (exp < -14).
  int shift = 13;
  uint32_t base_exp = 0;
  if (exp < -14) {
    shift = 13 + (-14 - exp);
    if (shift > 24) return sign;  // below half the smallest subnormal
  } else {
    base_exp = static_cast<uint32_t>(exp + 15);
  }
  const uint32_t kept = mant >> shift;
  const uint32_t rem = mant & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  uint32_t result;
  if (exp < -14) {
    result = kept;  // subnormal: exponent field 0, implicit bit is inside `kept`
  } else {
    result = (base_exp << 10) | (kept & 0x3ffu);
  }
  if (rem > half || (rem == half && (kept & 1u))) ++result;  // carry may bump exponent: correct
  return static_cast<uint16_t>(sign | result);
}

float fp16_bits_to_fp32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return fp32_from_bits(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  return fp32_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
}

int8_t quantize_int8(double value, Int8Scale s, bool* saturated) {
  const double q = std::nearbyint(value / s.scale);  // default FE mode: ties to even
  bool sat = false;
  double c = q;
  if (q > 127.0) { c = 127.0; sat = true; }
  if (q < -128.0) { c = -128.0; sat = true; }
  if (std::isnan(q)) { c = 0.0; sat = true; }
  if (saturated) *saturated = sat;
  return static_cast<int8_t>(c);
}

}  // namespace normsim::core
