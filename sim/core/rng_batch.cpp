#include "sim/core/rng_batch.hpp"

#include <vector>

namespace normsim::rng {

namespace {

// bits64(seed, stream, first + i) for i < n: Philox4x32-10 on counters
// (lo(index), hi(index), stream, 0), lanes independent.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void philox_bits(uint64_t seed, uint32_t stream, uint64_t first, size_t n, uint64_t* out) {
  constexpr uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
  constexpr uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  const uint32_t k0_init = static_cast<uint32_t>(seed), k1_init = static_cast<uint32_t>(seed >> 32);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t index = first + i;
    uint32_t c0 = static_cast<uint32_t>(index), c1 = static_cast<uint32_t>(index >> 32), c2 = stream, c3 = 0;
    uint32_t k0 = k0_init, k1 = k1_init;
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
    out[i] = (static_cast<uint64_t>(c0) << 32) | c1;
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
    case Distribution::kCancellation:
      for (size_t i = 0; i < n; ++i)
        out[i] = d.a + d.b * inverse_normal_cdf((static_cast<double>(bits[i] >> 11) + 0.5) * 0x1.0p-53);
      return;
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
