// Fixed-point numbers with formats chosen at run time.
//
// A FixedFormat is (total bits, fraction bits, signedness, rounding mode,
// overflow mode) -- the five parameters of SystemC's sc_fix/sc_ufix
// (wl, iwl = wl - fwl, q_mode, o_mode). Arithmetic is done exactly on a
// sign-magnitude 128-bit intermediate (`Exact`) and rounded once, when the
// result is quantised into the destination format, exactly as sc_fix does
// for `c = a op b`. The mapping of modes to SystemC is:
//   truncate   -> SC_TRN      (towards -inf, i.e. drop bits of a two's complement word)
//   half_even  -> SC_RND_CONV (round half to even)
//   half_away  -> SC_RND_INF  (round half away from zero)
//   saturate   -> SC_SAT,  wrap -> SC_WRAP (n_bits = 0)
// Every quantisation that overflows is counted, never silent.
#pragma once

#include <array>
#include <bit>
#include <stdexcept>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace normsim::core {

using i128 = __int128;
using u128 = unsigned __int128;

enum class Rounding : uint8_t { truncate, half_even, half_away };
enum class Overflow : uint8_t { saturate, wrap };

std::string_view to_string(Rounding r);
std::string_view to_string(Overflow o);
std::optional<Rounding> parse_rounding(std::string_view s);
std::optional<Overflow> parse_overflow(std::string_view s);
inline constexpr std::string_view kRoundingNames = "truncate, half-even, half-away";
inline constexpr std::string_view kOverflowNames = "saturate, wrap";

inline constexpr int kMaxFixedBits = 64;

/// n is a power of two (2^k, k >= 0): a divide by n is a shift, a count of
/// lanes or a merge group halves evenly.
inline constexpr bool is_pow2(int64_t n) { return n > 0 && std::has_single_bit(static_cast<uint64_t>(n)); }

struct FixedFormat {
  int total_bits = 32;
  int frac_bits = 16;
  bool is_signed = true;
  Rounding rounding = Rounding::half_even;
  Overflow overflow = Overflow::saturate;

  int int_bits() const { return total_bits - frac_bits; }  ///< includes the sign bit
  double lsb() const;                                       ///< value of one raw step
  i128 max_raw() const {
    return is_signed ? (i128(1) << (total_bits - 1)) - 1 : (i128(1) << total_bits) - 1;
  }
  i128 min_raw() const { return is_signed ? -(i128(1) << (total_bits - 1)) : 0; }
  double max_value() const;
  double min_value() const;
  /// Empty when valid, else why not (1 <= total <= 64, 0 <= frac <= total).
  std::string validate() const;
  std::string describe() const;  ///< e.g. "s24.16 half-even saturate"
  bool operator==(const FixedFormat&) const = default;
};

/// A quantised value of some format: value = raw * 2^-frac.
struct Fx {
  i128 raw = 0;
  int frac = 0;
};

/// An exact intermediate: value = (neg ? -1 : 1) * mag * 2^-frac.
struct Exact {
  bool neg = false;
  u128 mag = 0;
  int frac = 0;
};

/// Result flags of one quantisation.
struct QuantFlags {
  bool overflow = false;  ///< value was outside the format's range
  bool inexact = false;   ///< rounding discarded non-zero bits
};

/// A value's raw bits as the `bits`-wide two's-complement register word a
/// hardware unit holds (the inverse of from_word).
inline uint64_t to_word(Fx v, int bits) {
  const uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  return static_cast<uint64_t>(static_cast<int64_t>(v.raw)) & mask;
}
/// A register word read back in format `f` (sign-extended when signed).
inline Fx from_word(uint64_t w, const FixedFormat& f) {
  int64_t raw = static_cast<int64_t>(w);
  if (f.is_signed && f.total_bits < 64 && ((w >> (f.total_bits - 1)) & 1))
    raw = static_cast<int64_t>(w) - (int64_t(1) << f.total_bits);
  return Fx{raw, f.frac_bits};
}

/// Exact value of a finite double; throws std::domain_error on NaN/Inf.
Exact exact_from_double(double v);
int compare(const Exact& a, const Exact& b);  ///< -1, 0, 1
double to_double(const Exact& a);
double to_double(Fx v);

/// Rounds and range-limits an exact value into `f`.
Fx quantize(const Exact& v, const FixedFormat& f, QuantFlags* flags = nullptr);
/// Quantises a double (NaN saturates to 0 and is flagged as overflow; +-Inf saturate).
Fx quantize(double v, const FixedFormat& f, QuantFlags* flags = nullptr);

// --- exact arithmetic (inline: every datapath stage runs through these) ----

namespace detail {
inline int bit_length(u128 v) {
  const uint64_t hi = static_cast<uint64_t>(v >> 64);
  if (hi) return 128 - std::countl_zero(hi);
  return 64 - std::countl_zero(static_cast<uint64_t>(v));
}

inline u128 checked_shl(u128 v, int n) {
  if (v == 0 || n == 0) return v;
  if (n >= 128 || bit_length(v) + n > 128)
    throw std::overflow_error("fixed point: exact intermediate exceeds 128 bits");
  return v << n;
}

inline Exact normalized(Exact e) {
  if (e.mag == 0) e.neg = false;
  return e;
}

// Aligns two exact values to the larger fraction count.
inline void align(Exact& a, Exact& b) {
  if (a.frac < b.frac) {
    a.mag = checked_shl(a.mag, b.frac - a.frac);
    a.frac = b.frac;
  } else if (b.frac < a.frac) {
    b.mag = checked_shl(b.mag, a.frac - b.frac);
    b.frac = a.frac;
  }
}
}  // namespace detail

inline Exact exact(Fx v) {
  Exact e;
  e.neg = v.raw < 0;
  e.mag = e.neg ? static_cast<u128>(-v.raw) : static_cast<u128>(v.raw);
  e.frac = v.frac;
  return e;
}

inline Exact exact_from_int(int64_t v) { return exact(Fx{v, 0}); }


/// Multiplies by 2^n (n may be negative): exact, only the binary point moves.
inline Exact add(const Exact& a0, const Exact& b0) {
  Exact a = a0, b = b0;
  detail::align(a, b);
  Exact r;
  r.frac = a.frac;
  if (a.neg == b.neg) {
    r.neg = a.neg;
    r.mag = a.mag + b.mag;
    if (r.mag < a.mag) throw std::overflow_error("fixed point: exact sum exceeds 128 bits");
  } else if (a.mag >= b.mag) {
    r.neg = a.neg;
    r.mag = a.mag - b.mag;
  } else {
    r.neg = b.neg;
    r.mag = b.mag - a.mag;
  }
  return detail::normalized(r);
}

inline Exact negate(Exact a) {
  a.neg = !a.neg;
  return detail::normalized(a);
}

inline Exact sub(const Exact& a, const Exact& b) { return add(a, negate(b)); }

inline Exact mul(const Exact& a, const Exact& b) {
  if (a.mag == 0 || b.mag == 0) return Exact{false, 0, a.frac + b.frac};
  if (detail::bit_length(a.mag) + detail::bit_length(b.mag) > 128)
    throw std::overflow_error("fixed point: exact product exceeds 128 bits");
  return detail::normalized(Exact{a.neg != b.neg, a.mag * b.mag, a.frac + b.frac});
}

inline Exact shift(Exact a, int n) {
  a.frac -= n;
  return a;
}

}  // namespace normsim::core
