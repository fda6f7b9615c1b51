#include "sim/core/fixed_wide.hpp"
#include "sim/core/vector_build.hpp"

#include <algorithm>
#include <cmath>

namespace normsim::core {

int64_t DoubleQuantizer::slow(double x, QuantFlags& fl) const {
  return static_cast<int64_t>(quantize(x, f_, &fl).raw);  // fits: <= 62 bits; Inf saturates, NaN is 0
}

template <Rounding R>
uint64_t DoubleQuantizer::row_as(const double* x, size_t n, int64_t* out) const {
  uint64_t overflows = 0;
  QuantFlags fl;
  // Locals: a store to `out` may alias the members (int64_t), which would be
  // reloaded every element.
  const Requant<int64_t> range = range_;
  const double scale = scale_;
  for (size_t i = 0; i < n; ++i) {
    const double scaled = x[i] * scale;
    if (!(std::fabs(scaled) < 0x1.0p62)) [[unlikely]] {
      out[i] = slow(x[i], fl);
      overflows += fl.overflow;
      continue;
    }
    int64_t q = static_cast<int64_t>(scaled);
    const double r = scaled - static_cast<double>(q);
    if constexpr (R == Rounding::truncate) {
      q -= r < 0.0;
    } else if constexpr (R == Rounding::half_even) {
      q += (r > 0.5) | ((r == 0.5) & (q & 1));
      q -= (r < -0.5) | ((r == -0.5) & (q & 1));
    } else {
      q += r >= 0.5;
      q -= r <= -0.5;
    }
    out[i] = range(q, fl);
    overflows += fl.overflow;
  }
  return overflows;
}

namespace {
// The row loop without a branch, for a vector unit: every element as if it
// were in range and saturating; `unusual` counts the elements that are not
// (|x 2^frac| >= 2^62, NaN/Inf), for which the caller redoes the row exactly.
// One function per mode (target_clones takes no templates).

template <Rounding R>
NORMSIM_INLINE uint64_t saturating_row(const double* x, size_t n, int64_t* out, double scale, int64_t lo, int64_t hi,
                                       uint64_t& unusual) {
  // Flags as int64_t, not bool, and this file built without trapping math
  // (CMakeLists.txt): both keep the loop free of branches for the vectoriser.
  uint64_t overflows = 0, odd = 0;
  for (size_t i = 0; i < n; ++i) {
    const double scaled = x[i] * scale;
    const int64_t usual = std::fabs(scaled) < 0x1.0p62;
    const double v = usual ? scaled : 0.0;
    int64_t q = static_cast<int64_t>(v);
    const double r = v - static_cast<double>(q);
    if constexpr (R == Rounding::truncate) {
      q -= static_cast<int64_t>(r < 0.0);
    } else if constexpr (R == Rounding::half_even) {
      const int64_t q_odd = q & 1, above = r > 0.5, tie = r == 0.5, below = r < -0.5, tie_neg = r == -0.5;
      q += (above | (tie & q_odd)) - (below | (tie_neg & q_odd));
    } else {
      const int64_t up = r >= 0.5, down = r <= -0.5;
      q += up - down;
    }
    const int64_t over = (q < lo) | (q > hi);
    overflows += static_cast<uint64_t>(over);
    q = q < lo ? lo : q;
    q = q > hi ? hi : q;
    out[i] = q;
    odd += static_cast<uint64_t>(1 - usual);
  }
  unusual = odd;
  return overflows;
}

NORMSIM_ROW_CLONES uint64_t saturating_row_truncate(const double* x, size_t n, int64_t* out, double scale, int64_t lo,
                                                    int64_t hi, uint64_t& unusual) {
  return saturating_row<Rounding::truncate>(x, n, out, scale, lo, hi, unusual);
}
NORMSIM_ROW_CLONES uint64_t saturating_row_half_even(const double* x, size_t n, int64_t* out, double scale, int64_t lo,
                                                     int64_t hi, uint64_t& unusual) {
  return saturating_row<Rounding::half_even>(x, n, out, scale, lo, hi, unusual);
}
NORMSIM_ROW_CLONES uint64_t saturating_row_half_away(const double* x, size_t n, int64_t* out, double scale, int64_t lo,
                                                     int64_t hi, uint64_t& unusual) {
  return saturating_row<Rounding::half_away>(x, n, out, scale, lo, hi, unusual);
}
}  // namespace

uint64_t DoubleQuantizer::row(const double* x, size_t n, int64_t* out) const {
  // The branch-free loop, then the exact one where it cannot stand: an
  // element out of its reach, or a wrapping format that overflowed.
  const auto lo = static_cast<int64_t>(f_.min_raw()), hi = static_cast<int64_t>(f_.max_raw());
  uint64_t unusual = 0, overflows = 0;
  switch (f_.rounding) {
    case Rounding::truncate: overflows = saturating_row_truncate(x, n, out, scale_, lo, hi, unusual); break;
    case Rounding::half_even: overflows = saturating_row_half_even(x, n, out, scale_, lo, hi, unusual); break;
    case Rounding::half_away: overflows = saturating_row_half_away(x, n, out, scale_, lo, hi, unusual); break;
  }
  if (unusual == 0 && (overflows == 0 || f_.overflow == Overflow::saturate)) return overflows;
  switch (f_.rounding) {
    case Rounding::truncate: return row_as<Rounding::truncate>(x, n, out);
    case Rounding::half_even: return row_as<Rounding::half_even>(x, n, out);
    case Rounding::half_away: return row_as<Rounding::half_away>(x, n, out);
  }
  return 0;
}

namespace {
// Worst case of an intermediate: |value| < 2^bits, scaled by 2^-frac.
struct Bound {
  int bits = 0;
  int frac = 0;
};

class BoundCheck {
 public:
  BoundCheck(const StageFormats& f, int capacity) : f_(f), cap_(capacity) {}
  Bound stage(Stage s) {
    const FixedFormat& ff = f_[static_cast<int>(s)];
    ok_ &= ff.total_bits <= std::min(cap_, 62);  // raw values are stored in int64_t
    return {ff.total_bits, ff.frac_bits};
  }
  Bound add(Bound a, Bound b) {
    const int F = std::max(a.frac, b.frac);
    return keep({std::max(a.bits + F - a.frac, b.bits + F - b.frac) + 1, F});
  }
  Bound mul(Bound a, Bound b) {
    ok_ &= a.bits <= 62 && b.bits <= 62;  // factors of the kernels' 64 x 64 -> 128 multiply (wmul)
    return keep({a.bits + b.bits, a.frac + b.frac});
  }
  Bound quantize(Bound v, Stage s) {
    const int shift = v.frac - f_[static_cast<int>(s)].frac_bits;
    if (shift > 0) ok_ &= shift <= cap_;
    else ok_ &= v.bits - shift <= cap_;
    return stage(s);
  }
  bool ok() const { return ok_; }

 private:
  Bound keep(Bound b) {
    ok_ &= b.bits <= cap_;
    return b;
  }
  const StageFormats& f_;
  int cap_;
  bool ok_ = true;
};
}  // namespace

bool wide_fits(const StageFormats& f, NormKind kind, VarianceAlgorithm algorithm, ElementLoop loop, int bits) {
  // Two bits of headroom: the sign, and a rounding increment.
  BoundCheck b(f, bits - 2);
  const Bound x = b.stage(Stage::input);
  auto sum_of_squares = [&](Bound d, Stage acc) { b.quantize(b.add(b.stage(acc), b.mul(d, d)), acc); };
  if (loop == ElementLoop::xhat) {
    // RMSNorm has no mean to subtract: x rstd directly (normalize_row's no_mean).
    const Bound d = kind == NormKind::rmsnorm ? x : b.add(x, b.stage(Stage::mean));
    b.quantize(b.mul(d, b.stage(Stage::rsqrt_out)), Stage::xhat);
  } else if (loop == ElementLoop::affine) {
    b.quantize(b.add(b.mul(b.stage(Stage::xhat), b.stage(Stage::gamma)), b.stage(Stage::beta)), Stage::output);
  } else if (kind == NormKind::rmsnorm) {
    sum_of_squares(x, Stage::sumsq);
  } else {
    switch (algorithm) {
      case VarianceAlgorithm::welford: {
        const Bound delta = b.add(x, b.stage(Stage::mean));
        b.quantize(b.add(b.stage(Stage::mean), b.mul(delta, b.stage(Stage::recip))), Stage::mean);
        b.quantize(b.add(b.stage(Stage::m2), b.mul(delta, b.add(x, b.stage(Stage::mean)))), Stage::m2);
        break;
      }
      case VarianceAlgorithm::single_pass:
        b.quantize(b.add(b.stage(Stage::sum), x), Stage::sum);
        sum_of_squares(x, Stage::sumsq);
        break;
      case VarianceAlgorithm::two_pass:
        b.quantize(b.add(b.stage(Stage::sum), x), Stage::sum);
        sum_of_squares(b.add(x, b.stage(Stage::mean)), Stage::m2);
        break;
    }
  }
  return b.ok();
}

int wide_bits_for(const StageFormats& f, NormKind kind, VarianceAlgorithm algorithm, ElementLoop loop) {
  for (int bits : {64, 128})
    if (wide_fits(f, kind, algorithm, loop, bits)) return bits;
  return 0;
}

}  // namespace normsim::core
