#include "sim/core/rng_batch.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#endif

namespace normsim::rng {

namespace {

// bits64(seed, stream, first + i) for i < n: Philox4x32-10 on counters
// (lo(index), hi(index), stream, 0), lanes independent.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define NORMSIM_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define NORMSIM_VECTOR_CLONES
#endif

NORMSIM_VECTOR_CLONES
void philox_bits_auto(uint64_t seed, uint32_t stream, uint64_t first, size_t n, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = bits64(seed, stream, first + i);  // inlined: lanes independent
}

#if defined(__GNUC__) && defined(__x86_64__)
// GCC 12 warns inside its own AVX-512 headers (_mm512_undefined_epi32 used as
// the pass-through of unmasked intrinsics): not this code's values.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// Sixteen counters per step in 32-bit lanes. A 32x32->64 multiply exists only
// for even lanes (vpmuludq), so each Philox multiply is done for even and odd
// lanes and the high and low halves are blended back into place.
__attribute__((target("avx512f"))) void philox_bits_avx512(uint64_t seed, uint32_t stream, uint64_t first, size_t n,
                                                           uint64_t* out) {
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i m0 = _mm512_set1_epi32(static_cast<int>(0xD2511F53u));
  const __m512i m1 = _mm512_set1_epi32(static_cast<int>(0xCD9E8D57u));
  const __m512i lo_pairs = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi_pairs = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  constexpr __mmask16 kOdd = 0xAAAA;
  // hi and lo 32 bits of m * c in every lane.
  auto mul_hilo = [](__m512i m, __m512i c, __m512i& hi, __m512i& lo) __attribute__((target("avx512f"))) {
    const __m512i pe = _mm512_mul_epu32(m, c);                                         // even lanes
    const __m512i po = _mm512_mul_epu32(m, _mm512_srli_epi64(c, 32));                  // odd lanes
    hi = _mm512_mask_blend_epi32(kOdd, _mm512_srli_epi64(pe, 32), po);
    lo = _mm512_mask_blend_epi32(kOdd, pe, _mm512_slli_epi64(po, 32));
  };
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const uint64_t base = first + i;
    const __m512i base_lo = _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(base)));
    __m512i c0 = _mm512_add_epi32(base_lo, iota);
    const __mmask16 carry = _mm512_cmplt_epu32_mask(c0, base_lo);  // lo(index) wrapped past 2^32
    __m512i c1 = _mm512_mask_add_epi32(_mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(base >> 32))), carry,
                                       _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(base >> 32))),
                                       _mm512_set1_epi32(1));
    __m512i c2 = _mm512_set1_epi32(static_cast<int>(stream));
    __m512i c3 = _mm512_setzero_si512();
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    for (int round = 0; round < 10; ++round) {
      __m512i h0, l0, h1, l1;
      mul_hilo(m0, c0, h0, l0);
      mul_hilo(m1, c2, h1, l1);
      const __m512i n0 = _mm512_xor_si512(_mm512_xor_si512(h1, c1), _mm512_set1_epi32(static_cast<int>(k0)));
      const __m512i n2 = _mm512_xor_si512(_mm512_xor_si512(h0, c3), _mm512_set1_epi32(static_cast<int>(k1)));
      c1 = l1;
      c3 = l0;
      c0 = n0;
      c2 = n2;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    // out = (v0 << 32) | v1: 32-bit pairs (v1, v0) in little-endian order.
    _mm512_storeu_si512(out + i, _mm512_permutex2var_epi32(c1, lo_pairs, c0));
    _mm512_storeu_si512(out + i + 8, _mm512_permutex2var_epi32(c1, hi_pairs, c0));
  }
  for (; i < n; ++i) out[i] = bits64(seed, stream, first + i);
}
#pragma GCC diagnostic pop
#endif

// bits64(seed, stream, first + i) for i < n, with the widest vector unit present.
void philox_bits(uint64_t seed, uint32_t stream, uint64_t first, size_t n, uint64_t* out) {
#if defined(__GNUC__) && defined(__x86_64__)
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512) return philox_bits_avx512(seed, stream, first, n, out);
#endif
  philox_bits_auto(seed, stream, first, n, out);
}

// Uniforms and the central AS 241 branch for every element, branch-free so it
// vectorises; the few tail elements are redone exactly by the caller.
NORMSIM_VECTOR_CLONES
void central_pass(const uint64_t* bits, size_t n, double* u, double* central) {
  for (size_t i = 0; i < n; ++i) {
    // bits >> 11 < 2^53, split into two exactly convertible halves.
    const uint64_t b = bits[i] >> 11;
    const double d = static_cast<double>(static_cast<int32_t>(b >> 22)) * 0x1.0p22 +
                     static_cast<double>(static_cast<int32_t>(b & ((uint64_t(1) << 22) - 1)));
    u[i] = (d + 0.5) * 0x1.0p-53;
    central[i] = inverse_normal_central(u[i] - 0.5);
  }
}

// The tail branch of AS 241 (|q| > 0.425, r = sqrt(-log min(p, 1-p)) <= 5)
// over a compacted list of uniforms: the operations of inverse_normal_cdf and
// portable_log in the same order, with frexp done on the bit fields (exact
// for the normal doubles seen here: min(p, 1-p) >= 2^-54), so it vectorises
// and gives the same bits. Elements with r > 5 (p < 1e-11) are redone by
// the caller with the scalar code.
NORMSIM_VECTOR_CLONES
void tail_pass(const double* u, size_t n, double* v, double* r_of) {
  for (size_t i = 0; i < n; ++i) {
    const double p = u[i];
    const double q = p - 0.5;
    const double x = q < 0 ? p : 1.0 - p;
    uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    int e = static_cast<int>((bits >> 52) & 0x7ff) - 1022;
    const uint64_t mbits = (bits & ((uint64_t(1) << 52) - 1)) | (uint64_t(1022) << 52);
    double m;
    std::memcpy(&m, &mbits, sizeof m);  // frexp: x = m 2^e, m in [0.5, 1)
    const bool low = m < 0.70710678118654752440;
    m = low ? m * 2.0 : m;
    e = low ? e - 1 : e;
    const double t = (m - 1.0) / (m + 1.0);
    const double t2 = t * t;
    double s = 1.0 / 27.0;
#pragma GCC unroll 16
    for (int k = 25; k >= 1; k -= 2) s = s * t2 + 1.0 / k;
    const double ln2_hi = 0.693147180369123816490;
    const double ln2_lo = 1.90821492927058770002e-10;
    const double log_x = (e * ln2_hi + 2.0 * t * s) + e * ln2_lo;
    double r = std::sqrt(-log_x);
    r_of[i] = r;  // the caller redoes r > 5 (a byte flag here would stop vectorisation)
    r -= 1.6;
    const double w =
        (((((((7.7454501427834140764e-4 * r + 0.0227238449892691845833) * r + 0.24178072517745061177) * r +
             1.27045825245236838258) * r + 3.64784832476320460504) * r + 5.7694972214606914055) * r +
          4.6303378461565452959) * r + 1.42343711074968357734) /
        (((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r +
             0.14810397642748007459) * r + 0.68976733498510000455) * r + 1.6763848301838038494) * r +
          2.05319162663775882187) * r + 1.0);
    v[i] = q < 0 ? -w : w;
  }
}

}  // namespace

void sample_batch(const Distribution& d, uint64_t seed, uint32_t stream, uint64_t first, size_t n, double* out) {
  if (d.kind == Distribution::kConstant) {
    for (size_t i = 0; i < n; ++i) out[i] = d.a;
    return;
  }
  thread_local std::vector<uint64_t> bits;
  bits.resize(n);
  philox_bits(seed, stream, first, n, bits.data());
  switch (d.kind) {
    case Distribution::kNormal:
    case Distribution::kCancellation: {
      thread_local std::vector<double> u, central, tail_u, tail_v, tail_r;
      thread_local std::vector<size_t> tail_at;
      u.resize(n);
      central.resize(n);
      central_pass(bits.data(), n, u.data(), central.data());
      // Compact the tail elements (about 15%, at random places) without a
      // branch: always store, advance by the predicate.
      tail_at.resize(std::max(tail_at.size(), n));  // grows once; never cleared
      tail_u.resize(std::max(tail_u.size(), n));
      size_t k = 0;
      for (size_t i = 0; i < n; ++i) {
        out[i] = d.a + d.b * central[i];
        tail_at[k] = i;
        tail_u[k] = u[i];
        k += std::fabs(u[i] - 0.5) > 0.425;
      }
      tail_v.resize(std::max(tail_v.size(), k));
      tail_r.resize(std::max(tail_r.size(), k));
      tail_pass(tail_u.data(), k, tail_v.data(), tail_r.data());
      for (size_t j = 0; j < k; ++j)
        out[tail_at[j]] = d.a + d.b * (tail_r[j] > 5.0 ? inverse_normal_cdf(tail_u[j]) : tail_v[j]);
      return;
    }
    case Distribution::kUniform:
      for (size_t i = 0; i < n; ++i) out[i] = d.a + (d.b - d.a) * ((static_cast<double>(bits[i] >> 11) + 0.5) * 0x1.0p-53);
      return;
    case Distribution::kInt8: {
      const uint64_t span = static_cast<uint64_t>(d.b - d.a) + 1;
      for (size_t i = 0; i < n; ++i)
        out[i] = d.a + static_cast<double>(static_cast<uint64_t>((static_cast<unsigned __int128>(bits[i]) * span) >> 64));
      return;
    }
    case Distribution::kConstant:
      return;
  }
}

}  // namespace normsim::rng
