// Counter-based random numbers: every value depends only on
// (seed, stream, element index), never on call order or thread count, so the
// simulator and the host side of gpu_ref build bit-identical inputs from this
// one header. Standalone on purpose (standard library only): gpu_ref compiles
// it with nvcc on a machine with no other dependency.
//
// Generator: Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random
// numbers: as easy as 1, 2, 3", SC 2011). Normal deviates use the inverse CDF
// (Wichura, "Algorithm AS 241", Applied Statistics 37, 1988, PPND16) with a
// logarithm written here from +,-,*,/ and IEEE sqrt only, so the bits do not
// depend on the C library's libm. Compile without FMA contraction.
#pragma once

#include <math.h>  // ::sqrt, ::frexp, ::fabs: callable from host and CUDA device code

#include <cstdint>

// Host and device: gpu_ref generates inputs on the GPU with this same code
// (compiled there with -fmad=false) and checks a sample against the host.
#if defined(__CUDACC__)
#define NORMSIM_HD __host__ __device__
#else
#define NORMSIM_HD
#endif

namespace normsim::rng {

/// Streams keep tensors of one workload independent.
enum Stream : uint32_t {
  kInput = 0,
  kGamma = 1,
  kBeta = 2,
  kResidual = 3,
  kGradOut = 4,
  kChannelScale = 5,     ///< the LLM-activation model's per-channel scales (llm_activation.hpp)
  kOutlierChannels = 6,  ///< ... which channels are outliers
  kMassiveChannels = 7,  ///< ... which hold the massive activations, and their signs
  kDropout = 8,          ///< a fused residual add's dropout mask (dropout_mask.hpp)
};

struct Philox4x32 {
  uint32_t v[4];
};

NORMSIM_HD inline Philox4x32 philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1) {
  constexpr uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
  constexpr uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(M0) * c0;
    const uint64_t p1 = static_cast<uint64_t>(M1) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += W0;
    k1 += W1;
  }
  return Philox4x32{{c0, c1, c2, c3}};
}

/// 64 random bits for (seed, stream, index).
NORMSIM_HD inline uint64_t bits64(uint64_t seed, uint32_t stream, uint64_t index) {
  const Philox4x32 r = philox4x32_10(static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), stream, 0u,
                                     static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
  return (static_cast<uint64_t>(r.v[0]) << 32) | r.v[1];
}

/// Uniform in the open interval (0, 1), 53 random bits.
NORMSIM_HD inline double uniform01(uint64_t seed, uint32_t stream, uint64_t index) {
  return (static_cast<double>(bits64(seed, stream, index) >> 11) + 0.5) * 0x1.0p-53;
}

/// Natural logarithm of x > 0 from basic IEEE operations: x = m * 2^e with
/// m in [sqrt(1/2), sqrt(2)), log m = 2 atanh((m-1)/(m+1)) by its series.
/// Accurate to a few units in the last place of double.
NORMSIM_HD inline double portable_log(double x) {
  int e = 0;
  double m = ::frexp(x, &e);  // exact: m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    e -= 1;
  }
  const double t = (m - 1.0) / (m + 1.0);
  const double t2 = t * t;
  // 2 * (t + t^3/3 + ... + t^27/27): |t| <= 0.1716, so the tail is < 1e-20.
  double s = 1.0 / 27.0;
  for (int k = 25; k >= 1; k -= 2) s = s * t2 + 1.0 / k;
  const double ln2_hi = 0.693147180369123816490;  // exact in 32 bits
  const double ln2_lo = 1.90821492927058770002e-10;
  return (e * ln2_hi + 2.0 * t * s) + e * ln2_lo;
}

/// The central branch of AS 241 (|q| <= 0.425, q = p - 0.5): a ratio of two
/// degree-7 polynomials in r = 0.180625 - q^2. Separate so that the batch
/// generator can run it over many elements at once, with the same bits.
NORMSIM_HD inline double inverse_normal_central(double q) {
  const double r = 0.180625 - q * q;
  return q *
         (((((((2509.0809287301226727 * r + 33430.575583588128105) * r + 67265.770927008700853) * r +
              45921.953931549871457) * r + 13731.693765509461125) * r + 1971.5909503065514427) * r +
           133.14166789178437745) * r + 3.387132872796366608) /
         (((((((5226.495278852545925 * r + 28729.085735721942674) * r + 39307.89580009271061) * r +
              21213.794301586595867) * r + 5394.1960214247511077) * r + 687.1870074920579083) * r +
           42.313330701600911252) * r + 1.0);
}

/// Inverse of the standard normal CDF for p in (0, 1): AS 241 PPND16
/// (relative accuracy about 1e-16).
NORMSIM_HD inline double inverse_normal_cdf(double p) {
  const double q = p - 0.5;
  if (::fabs(q) <= 0.425) return inverse_normal_central(q);
  double r = q < 0 ? p : 1.0 - p;
  r = ::sqrt(-portable_log(r));
  double v;
  if (r <= 5.0) {
    r -= 1.6;
    v = (((((((7.7454501427834140764e-4 * r + 0.0227238449892691845833) * r + 0.24178072517745061177) * r +
             1.27045825245236838258) * r + 3.64784832476320460504) * r + 5.7694972214606914055) * r +
          4.6303378461565452959) * r + 1.42343711074968357734) /
        (((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r +
             0.14810397642748007459) * r + 0.68976733498510000455) * r + 1.6763848301838038494) * r +
          2.05319162663775882187) * r + 1.0);
  } else {
    r -= 5.0;
    v = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 0.0012426609473880784386) * r +
             0.026532189526576123093) * r + 0.29656057182850489123) * r + 1.7848265399172913358) * r +
          5.4637849111641143699) * r + 6.6579046435011037772) /
        (((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r +
             7.868691311456132591e-4) * r + 0.0148753612908506148525) * r + 0.13692988092273580531) * r +
          0.59983220655588793769) * r + 1.0);
  }
  return q < 0 ? -v : v;
}

NORMSIM_HD inline double standard_normal(uint64_t seed, uint32_t stream, uint64_t index) {
  return inverse_normal_cdf(uniform01(seed, stream, index));
}

/// An input distribution; `kind` selects which parameters apply.
struct Distribution {
  enum Kind : uint32_t { kNormal, kUniform, kInt8, kCancellation, kConstant };
  Kind kind = kNormal;
  double a = 0.0;  ///< normal/cancellation: mean; uniform/int8: low; constant: value
  double b = 1.0;  ///< normal/cancellation: sigma; uniform/int8: high

  NORMSIM_HD static Distribution normal(double mean, double sigma) { return {kNormal, mean, sigma}; }
  static Distribution uniform(double lo, double hi) { return {kUniform, lo, hi}; }
  /// Integer codes uniform in [lo, hi] (an int8 tensor's stored codes).
  static Distribution int8_codes(int lo = -128, int hi = 127) { return {kInt8, double(lo), double(hi)}; }
  /// Seed 001 section 5: every value near a large mean, differing only slightly.
  static Distribution cancellation(double mean = 1.0e4, double sigma = 1.0) { return {kCancellation, mean, sigma}; }
  static Distribution constant(double v) { return {kConstant, v, 0.0}; }
};

/// The value of element `index` of a tensor drawn from `d` (before rounding
/// to the tensor's element type).
NORMSIM_HD inline double sample(const Distribution& d, uint64_t seed, uint32_t stream, uint64_t index) {
  switch (d.kind) {
    case Distribution::kNormal:
    case Distribution::kCancellation:
      return d.a + d.b * standard_normal(seed, stream, index);
    case Distribution::kUniform:
      return d.a + (d.b - d.a) * uniform01(seed, stream, index);
    case Distribution::kInt8: {
      const uint64_t span = static_cast<uint64_t>(d.b - d.a) + 1;
      // 64-bit multiply-high maps the bits onto [0, span) with bias < 2^-56.
      const uint64_t r = bits64(seed, stream, index);
#if defined(__CUDA_ARCH__)
      const uint64_t k = __umul64hi(r, span);
#else
      const uint64_t k = static_cast<uint64_t>((static_cast<unsigned __int128>(r) * span) >> 64);
#endif
      return d.a + static_cast<double>(k);
    }
    case Distribution::kConstant:
      return d.a;
  }
  return 0.0;
}

}  // namespace normsim::rng
