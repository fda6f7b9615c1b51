// The fast form of the exact fixed-point arithmetic: a two's-complement
// intermediate held in one machine integer (int64_t or __int128) instead of
// the 128-bit sign-magnitude `Exact`, rounded by `Requant` with the same
// rules, so every result is bit-identical to the Exact path (tests compare
// them on random operands in every mode and on every shipped datapath). The
// per-element loops that use it are in fixed_kernels.hpp.
//
// It is only exact while no intermediate outgrows the integer, so a datapath
// uses it only after `wide_fits` has bounded every per-element expression of
// its algorithm from the stage formats alone (the widths a synthesis tool
// would give those wires); otherwise it keeps the Exact path.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "sim/core/fixed_stage.hpp"
#include "sim/core/norm_types.hpp"

namespace normsim::core {

/// Quantisation into one format of values with a fixed number of fraction
/// bits: the rules of quantize(const Exact&, ...) on a two's-complement
/// value, with the shift, range and masks computed once for a whole loop.
/// Drops `shift` bits by an arithmetic shift (floor), then rounds up by the
/// mode's test on the remainder; see fixed_point.cpp for the sign-magnitude
/// form these are equal to.
template <class I>
class Requant {
 public:
  Requant(int from_frac, const FixedFormat& f)
      : shift_(from_frac - f.frac_bits),
        lo_(static_cast<I>(f.min_raw())),
        hi_(static_cast<I>(f.max_raw())),
        rounding_(f.rounding),
        wrap_(f.overflow == Overflow::wrap),
        signed_(f.is_signed),
        total_bits_(f.total_bits) {
    if (shift_ > 0) {
      mask_ = (I(1) << shift_) - 1;
      half_ = I(1) << (shift_ - 1);
    }
  }

  I operator()(I v, QuantFlags& fl) const {
    I q;
    if (shift_ > 0) {
      q = v >> shift_;  // floor
      // The remainder v - floor(v / 2^s) 2^s in [0, 2^s): the low s bits,
      // one machine word whenever s < 64.
      if constexpr (sizeof(I) > 8) {
        if (shift_ < 64) {
          round_up(q, static_cast<uint64_t>(v) & static_cast<uint64_t>(mask_), static_cast<uint64_t>(half_), v >= 0, fl);
        } else {
          round_up(q, v & mask_, half_, v >= 0, fl);
        }
      } else {
        round_up(q, v & mask_, half_, v >= 0, fl);
      }
    } else {
      q = v << -shift_;  // appends zeros, exact within the bound wide_fits checked
      fl.inexact = false;
    }
    fl.overflow = q < lo_ || q > hi_;
    if (fl.overflow) [[unlikely]] q = limit(q);
    return q;
  }

 private:
  template <class R>
  void round_up(I& q, R rem, R half, bool non_negative, QuantFlags& fl) const {
    fl.inexact = rem != 0;
    switch (rounding_) {
      case Rounding::truncate: break;  // towards -inf, as SC_TRN
      case Rounding::half_even: q += (rem > half) | ((rem == half) & static_cast<bool>(q & 1)); break;
      // Away from zero: a tie rounds up only for a non-negative value.
      case Rounding::half_away: q += (rem > half) | ((rem == half) & non_negative); break;
    }
  }

  I limit(I q) const {
    if (!wrap_) return q < lo_ ? lo_ : hi_;
    using U = std::make_unsigned_t<I>;
    const U bits = static_cast<U>(q) & ((U(1) << total_bits_) - 1);  // total_bits < bits of I (wide_fits)
    return (signed_ && ((bits >> (total_bits_ - 1)) & 1)) ? static_cast<I>(bits) - (I(1) << total_bits_)
                                                          : static_cast<I>(bits);
  }

  int shift_;
  I lo_, hi_;
  I mask_ = 0, half_ = 0;
  Rounding rounding_;
  bool wrap_, signed_;
  int total_bits_;
};

/// quantize(exact_from_double(x), f)'s raw value for one format of at most
/// 62 bits, without the 128-bit detour: x 2^frac is exact in a double, its
/// integer part and remainder are exact, and the mode decides from the
/// remainder; scale and range are computed once (the input register's
/// loop). |x 2^frac| >= 2^62 (and NaN/Inf) take the Exact path.
class DoubleQuantizer {
 public:
  explicit DoubleQuantizer(const FixedFormat& f)
      : f_(f), scale_(static_cast<double>(int64_t(1) << f.frac_bits)), range_(f.frac_bits, f) {}

  int64_t operator()(double x, QuantFlags& fl) const {
    const double scaled = x * scale_;  // exact: a scale up by 2^frac
    if (!(std::fabs(scaled) < 0x1.0p62)) [[unlikely]] return slow(x, fl);
    int64_t q = static_cast<int64_t>(scaled);         // towards zero, exact
    const double r = scaled - static_cast<double>(q);  // exact, in (-1, 1)
    switch (f_.rounding) {
      case Rounding::truncate: q -= r < 0.0; break;
      case Rounding::half_even:
        q += (r > 0.5) | ((r == 0.5) & (q & 1));
        q -= (r < -0.5) | ((r == -0.5) & (q & 1));
        break;
      case Rounding::half_away: q += r >= 0.5; q -= r <= -0.5; break;
    }
    q = range_(q, fl);  // range only: no bits to drop
    fl.inexact = r != 0.0;
    return q;
  }

 private:
  int64_t slow(double x, QuantFlags& fl) const;  ///< the Exact path (NaN/Inf or |x 2^frac| >= 2^62)
  FixedFormat f_;
  double scale_;
  Requant<int64_t> range_;
};

/// DoubleQuantizer for a single value.
inline int64_t quantize_double_raw(double x, const FixedFormat& f, QuantFlags& fl) { return DoubleQuantizer(f)(x, fl); }

/// The per-element expressions of the datapath: the lane update (of the
/// configured algorithm), x_hat = (x - mean) rstd, and y = x_hat gamma + beta.
enum class ElementLoop { lanes, xhat, affine };

/// True when every per-element expression of `loop` for (kind, algorithm)
/// fits a `bits`-bit two's-complement integer (64 or 128) for every value
/// the stage formats can hold; then the machine-word loops give the Exact path's results.
bool wide_fits(const StageFormats& f, NormKind kind, VarianceAlgorithm algorithm, ElementLoop loop, int bits);

/// The narrowest of 64 and 128 that wide_fits allows, else 0 (Exact).
int wide_bits_for(const StageFormats& f, NormKind kind, VarianceAlgorithm algorithm, ElementLoop loop);

}  // namespace normsim::core
