#include "sim/core/fixed_point.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace normsim::core {

std::string_view to_string(Rounding r) {
  switch (r) {
    case Rounding::truncate: return "truncate";
    case Rounding::half_even: return "half-even";
    case Rounding::half_away: return "half-away";
  }
  return "?";
}
std::string_view to_string(Overflow o) { return o == Overflow::saturate ? "saturate" : "wrap"; }

std::optional<Rounding> parse_rounding(std::string_view s) {
  if (s == "truncate") return Rounding::truncate;
  if (s == "half-even") return Rounding::half_even;
  if (s == "half-away") return Rounding::half_away;
  return std::nullopt;
}
std::optional<Overflow> parse_overflow(std::string_view s) {
  if (s == "saturate") return Overflow::saturate;
  if (s == "wrap") return Overflow::wrap;
  return std::nullopt;
}

double FixedFormat::lsb() const { return std::ldexp(1.0, -frac_bits); }
double FixedFormat::max_value() const { return std::ldexp(static_cast<double>(max_raw()), -frac_bits); }
double FixedFormat::min_value() const { return std::ldexp(static_cast<double>(min_raw()), -frac_bits); }

std::string FixedFormat::validate() const {
  if (total_bits < 1 || total_bits > kMaxFixedBits)
    return "total bits " + std::to_string(total_bits) + " outside 1..64";
  if (frac_bits < 0 || frac_bits > total_bits)
    return "fraction bits " + std::to_string(frac_bits) + " outside 0..total bits (" +
           std::to_string(total_bits) + ")";
  if (is_signed && total_bits < 2) return "a signed format needs at least 2 bits";
  return {};
}

std::string FixedFormat::describe() const {
  return std::string(is_signed ? "s" : "u") + std::to_string(total_bits) + "." + std::to_string(frac_bits) +
         " " + std::string(to_string(rounding)) + " " + std::string(to_string(overflow));
}

Exact exact_from_double(double v) {
  if (!std::isfinite(v)) throw std::domain_error("fixed point: cannot represent NaN or Inf exactly");
  Exact e;
  if (v == 0.0) return e;
  // Straight from the IEEE fields: v = m * 2^(exp - 1075), m < 2^53.
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  uint64_t m = bits & ((uint64_t(1) << 52) - 1);
  int exp2 = biased - 1075;
  if (biased == 0) exp2 = -1074;  // subnormal
  else m |= uint64_t(1) << 52;
  // Strip trailing zeros so large/small doubles need fewer bits when aligned.
  const int tz = std::countr_zero(m);
  e.neg = (bits >> 63) != 0;
  e.mag = static_cast<u128>(m >> tz);
  e.frac = -(exp2 + tz);
  return e;
}

int compare(const Exact& a0, const Exact& b0) {
  const Exact d = sub(a0, b0);
  if (d.mag == 0) return 0;
  return d.neg ? -1 : 1;
}

namespace {
// 2^k as a double, exact for normal results; ldexp handles the rest.
double pow2(int k) {
  if (k >= -1022 && k <= 1023) return std::bit_cast<double>(static_cast<uint64_t>(k + 1023) << 52);
  return std::ldexp(1.0, k);
}
}  // namespace

double to_double(const Exact& a) {
  const uint64_t hi = static_cast<uint64_t>(a.mag >> 64);
  // One rounding (u128 -> double), then an exact power-of-two scale.
  const double m = hi ? static_cast<double>(a.mag) : static_cast<double>(static_cast<uint64_t>(a.mag));
  const double v = m * pow2(-a.frac);
  if (v == 0.0 && a.mag != 0) return (a.neg ? -1.0 : 1.0) * std::ldexp(m, -a.frac);  // underflow path
  return a.neg ? -v : v;
}

double to_double(Fx v) { return to_double(exact(v)); }

namespace {
// Range limiting of an exact two's-complement result (shared by both paths).
Fx limit(i128 val, bool neg, u128 q, bool too_big, const FixedFormat& f, QuantFlags& fl) {
  const i128 lo = f.min_raw(), hi = f.max_raw();
  if (too_big || val < lo || val > hi) {
    fl.overflow = true;
    if (f.overflow == Overflow::saturate) {
      val = neg ? lo : hi;
    } else {
      // Keep the low total_bits bits, then reinterpret with the format's sign.
      const u128 mask = (u128(1) << f.total_bits) - 1;
      const u128 bits = (neg ? (~q + 1) : q) & mask;
      if (f.is_signed && (bits >> (f.total_bits - 1)) & 1) {
        val = static_cast<i128>(bits) - (i128(1) << f.total_bits);
      } else {
        val = static_cast<i128>(bits);
      }
    }
  }
  return Fx{val, f.frac_bits};
}
// True when the magnitude q with sign `neg` fits the format (64-bit arithmetic).
inline bool fits(uint64_t q, bool neg, const FixedFormat& f) {
  if (f.is_signed) {
    const uint64_t lim = uint64_t(1) << (f.total_bits - 1);  // total_bits <= 64
    return neg ? q <= lim : q < lim;
  }
  if (neg) return q == 0;
  return f.total_bits == 64 || q < (uint64_t(1) << f.total_bits);
}

inline Fx fast_result(uint64_t q, bool neg, const FixedFormat& f, QuantFlags& fl) {
  const i128 val = neg ? -static_cast<i128>(q) : static_cast<i128>(q);
  if (fits(q, neg, f)) return Fx{val, f.frac_bits};
  return limit(val, neg, q, false, f, fl);
}
}  // namespace

Fx quantize(const Exact& v, const FixedFormat& f, QuantFlags* flags) {
  QuantFlags fl;
  const int s = v.frac - f.frac_bits;  // bits to drop (>0) or append (<0)
  // Fast path: a magnitude of at most 64 bits losing 1..63 bits (the common
  // case of every datapath stage); same rules as the general path below.
  if ((v.mag >> 64) == 0 && s > 0 && s < 64) {
    const uint64_t m = static_cast<uint64_t>(v.mag);
    uint64_t q = m >> s;
    const uint64_t rem = m & ((uint64_t(1) << s) - 1);
    const uint64_t half = uint64_t(1) << (s - 1);
    fl.inexact = rem != 0;
    switch (f.rounding) {
      case Rounding::truncate: if (v.neg && rem != 0) ++q; break;
      case Rounding::half_away: if (rem >= half) ++q; break;
      case Rounding::half_even: if (rem > half || (rem == half && (q & 1))) ++q; break;
    }
    const Fx r = fast_result(q, v.neg, f, fl);
    if (flags) *flags = fl;
    return r;
  }
  if ((v.mag >> 64) == 0 && s <= 0 && s > -64 && (static_cast<uint64_t>(v.mag) >> (63 + s)) == 0) {
    // Exact: only zeros are appended.
    const uint64_t q = static_cast<uint64_t>(v.mag) << -s;
    const Fx r = fast_result(q, v.neg, f, fl);
    if (flags) *flags = fl;
    return r;
  }
  u128 q = 0;
  bool too_big = false;  // magnitude does not even fit 127 bits
  if (s <= 0) {
    const int n = -s;
    if (v.mag != 0 && (n >= 128 || detail::bit_length(v.mag) + n > 127)) {
      too_big = true;
      q = n >= 128 ? 0 : v.mag << n;  // low bits still right for wrap
    } else {
      q = v.mag << n;
    }
  } else {
    u128 rem, half;
    if (s >= 128) {
      q = 0;
      rem = v.mag;
      half = s == 128 ? (u128(1) << 127) : 0;  // s > 128: rem < half always
      const bool above_half = s > 128 ? false : rem > half;
      const bool at_half = s > 128 ? false : rem == half;
      fl.inexact = rem != 0;
      switch (f.rounding) {
        case Rounding::truncate: if (v.neg && rem != 0) q = 1; break;
        case Rounding::half_away: if (above_half || at_half) q = 1; break;
        case Rounding::half_even: if (above_half) q = 1; break;
      }
    } else {
      q = v.mag >> s;
      rem = v.mag & ((u128(1) << s) - 1);
      half = u128(1) << (s - 1);
      fl.inexact = rem != 0;
      switch (f.rounding) {
        // Floor of a negative value: the magnitude rounds up.
        case Rounding::truncate: if (v.neg && rem != 0) ++q; break;
        case Rounding::half_away: if (rem >= half) ++q; break;
        case Rounding::half_even: if (rem > half || (rem == half && (q & 1))) ++q; break;
      }
    }
    if (detail::bit_length(q) > 127) too_big = true;
  }

  // Two's complement value (exact unless too_big, where only low bits matter).
  // Negated as unsigned: q may be 2^127, whose signed negation overflows.
  const i128 val = static_cast<i128>(v.neg ? u128(0) - q : q);
  const Fx r = limit(val, v.neg, q, too_big, f, fl);
  if (flags) *flags = fl;
  return r;
}

Fx quantize(double v, const FixedFormat& f, QuantFlags* flags) {
  if (std::isnan(v)) {
    if (flags) *flags = QuantFlags{true, true};
    return Fx{0, f.frac_bits};
  }
  if (std::isinf(v)) {
    if (flags) *flags = QuantFlags{true, true};
    return Fx{v > 0 ? f.max_raw() : f.min_raw(), f.frac_bits};
  }
  return quantize(exact_from_double(v), f, flags);
}

}  // namespace normsim::core
