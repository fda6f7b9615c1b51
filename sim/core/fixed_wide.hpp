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
#include "sim/core/vector_build.hpp"

namespace normsim::core {

/// Quantisation into one format of values with a fixed number of fraction
/// bits: the rules of quantize(const Exact&, ...) on a two's-complement
/// value, with the shift, range and masks computed once for a whole loop.
/// Drops `shift` bits by an arithmetic shift (floor), then rounds up by the
/// mode's test on the remainder; see fixed_point.cpp for the sign-magnitude
/// form these are equal to. Branch-free: the mode and the overflow handling
/// are masks, so a per-element loop has no data-dependent branch.
template <class I>
class Requant {
 public:
  Requant(int from_frac, const FixedFormat& f)
      : shift_(from_frac - f.frac_bits),
        lo_(static_cast<I>(f.min_raw())),
        hi_(static_cast<I>(f.max_raw())),
        round_(f.rounding != Rounding::truncate),
        tie_even_(f.rounding == Rounding::half_even),
        wrap_(f.overflow == Overflow::wrap),
        signed_(f.is_signed),
        total_bits_(f.total_bits) {
    if (shift_ > 0) {
      mask_ = (I(1) << shift_) - 1;
      half_ = I(1) << (shift_ - 1);
    } else {
      up_ = -shift_;
      half_ = 1;  // the remainder is always 0: never a tie, never above half
    }
  }

  NORMSIM_INLINE I operator()(I v, QuantFlags& fl) const {
    I q;
    bool inexact, inc;
    if (shift_ > 0) {
      q = v >> shift_;  // floor
      // The remainder v - floor(v / 2^s) 2^s in [0, 2^s): the low s bits,
      // one machine word whenever s < 64.
      if constexpr (sizeof(I) > 8) {
        if (shift_ < 64) {
          inc = round_up(q, static_cast<uint64_t>(v) & static_cast<uint64_t>(mask_), static_cast<uint64_t>(half_), v >= 0);
          inexact = (static_cast<uint64_t>(v) & static_cast<uint64_t>(mask_)) != 0;
        } else {
          inc = round_up(q, v & mask_, half_, v >= 0);
          inexact = (v & mask_) != 0;
        }
      } else {
        inc = round_up(q, v & mask_, half_, v >= 0);
        inexact = (v & mask_) != 0;
      }
      q += inc;
    } else {
      q = v << up_;  // appends zeros, exact within the bound wide_fits checked
      inexact = false;
    }
    fl.inexact = inexact;
    const bool over = q < lo_ || q > hi_;
    fl.overflow = over;
    // Saturate or wrap, selected without a branch.
    const I sat = q < lo_ ? lo_ : (q > hi_ ? hi_ : q);
    return wrap_ ? (over ? wrapped(q) : q) : sat;
  }

 private:
  template <class R>
  NORMSIM_INLINE bool round_up(I q, R rem, R half, bool non_negative) const {
    // truncate: never (towards -inf, as SC_TRN); half-even: above half, or a
    // tie with q odd; half-away: above half, or a tie of a non-negative value.
    const bool tie_up = tie_even_ ? static_cast<bool>(q & 1) : non_negative;
    return round_ & ((rem > half) | ((rem == half) & tie_up));
  }

  I wrapped(I q) const {
    using U = std::make_unsigned_t<I>;
    const U bits = static_cast<U>(q) & ((U(1) << total_bits_) - 1);  // total_bits < bits of I (wide_fits)
    return (signed_ && ((bits >> (total_bits_ - 1)) & 1)) ? static_cast<I>(bits) - (I(1) << total_bits_)
                                                          : static_cast<I>(bits);
  }

  int shift_;
  int up_ = 0;
  I lo_, hi_;
  I mask_ = 0, half_ = 0;
  bool round_, tie_even_, wrap_, signed_;
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

  NORMSIM_INLINE int64_t operator()(double x, QuantFlags& fl) const {
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

  /// A whole row: out[i] = (*this)(x[i]); returns the overflow count. The
  /// rounding mode is chosen once for the loop.
  uint64_t row(const double* x, size_t n, int64_t* out) const;

 private:
  template <Rounding R>
  uint64_t row_as(const double* x, size_t n, int64_t* out) const;
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
