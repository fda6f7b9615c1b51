#include "sim/core/rng_batch.hpp"

#include <cmath>
#include <vector>

namespace normsim::rng {

namespace {

// bits64(seed, stream, first + i) for i < n: Philox4x32-10 on counters
// (lo(index), hi(index), stream, 0), lanes independent.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void philox_bits(uint64_t seed, uint32_t stream, uint64_t first, size_t n, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = bits64(seed, stream, first + i);  // inlined: lanes independent
}

// Uniforms and the central AS 241 branch for every element, branch-free so it
// vectorises; the few tail elements are redone exactly by the caller.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
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
      thread_local std::vector<double> u, central;
      u.resize(n);
      central.resize(n);
      central_pass(bits.data(), n, u.data(), central.data());
      for (size_t i = 0; i < n; ++i) {
        const double q = u[i] - 0.5;
        const double v = std::fabs(q) <= 0.425 ? central[i] : inverse_normal_cdf(u[i]);
        out[i] = d.a + d.b * v;
      }
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
