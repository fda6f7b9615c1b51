#include "sim/core/fixed_wide.hpp"

#include <algorithm>
#include <cmath>

namespace normsim::core {

int64_t DoubleQuantizer::slow(double x, QuantFlags& fl) const {
  return static_cast<int64_t>(quantize(exact_from_double(x), f_, &fl).raw);  // fits: <= 62 bits
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
    b.quantize(b.mul(b.add(x, b.stage(Stage::mean)), b.stage(Stage::rsqrt_out)), Stage::xhat);
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
