// The hardware reciprocal square root (rsqrtf -> MUFU.RSQ) over every input
// that can differ: x = m * 2^e with m's 23 mantissa bits and e's parity
// (2^24 inputs in [1, 4)). Also checks, on random normal inputs of every
// even exponent offset, that rsqrtf(x * 4^k) == rsqrtf(x) * 2^-k exactly, so
// the 2^24 table gives rsqrtf for every positive normal float; prints one
// JSON line and writes the raw table (uint32 bits, little endian).
//   rsqrt_table OUT.bin
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define CUDA_OK(call)                                                                        \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "rsqrt_table: %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

__global__ void table(uint32_t* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (1u << 24)) return;
  // Exponent 127 (m in [1, 2)) or 128 ([2, 4)), mantissa the low 23 bits.
  const uint32_t bits = ((127u + (i >> 23)) << 23) | (i & 0x7fffffu);
  out[i] = __float_as_uint(rsqrtf(__uint_as_float(bits)));
}

// Random normal inputs (a counter hash): count those where the exponent
// shift rule does not hold.
__global__ void shift_rule(const uint32_t* tab, unsigned long long n, unsigned long long* bad) {
  unsigned long long count = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    uint64_t h = i * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    const uint32_t mant = static_cast<uint32_t>(h) & 0x7fffffu;
    const uint32_t e = 1u + static_cast<uint32_t>((h >> 32) % 254u);  // biased exponent 1..254: normal
    const float x = __uint_as_float((e << 23) | mant);
    // x = m 2^(e-127) = (m 2^p) 4^k with p = (e - 127) mod 2 in {0, 1}.
    const int unb = static_cast<int>(e) - 127;
    const int p = ((unb % 2) + 2) % 2;
    const int k = (unb - p) / 2;
    const uint32_t t = tab[(static_cast<uint32_t>(p) << 23) | mant];
    // rsqrt(x) = t * 2^-k: move the exponent field (t is normal, in (0.5, 1]).
    const int te = static_cast<int>((t >> 23) & 0xff) - k;
    const uint32_t expect = (te >= 1 && te <= 254) ? ((static_cast<uint32_t>(te) << 23) | (t & 0x7fffffu)) : 0xffffffffu;
    const uint32_t got = __float_as_uint(rsqrtf(x));
    if (expect != 0xffffffffu && got != expect) ++count;
  }
  atomicAdd(bad, count);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: rsqrt_table OUT.bin\n");
    return 2;
  }
  const size_t n = size_t(1) << 24;
  uint32_t* d = nullptr;
  unsigned long long* bad = nullptr;
  CUDA_OK(cudaMalloc(&d, n * 4));
  CUDA_OK(cudaMalloc(&bad, sizeof *bad));
  CUDA_OK(cudaMemset(bad, 0, sizeof *bad));
  table<<<(n + 255) / 256, 256>>>(d);
  CUDA_OK(cudaGetLastError());
  const unsigned long long samples = 1ull << 30;
  shift_rule<<<1024, 256>>>(d, samples, bad);
  CUDA_OK(cudaGetLastError());
  std::vector<uint32_t> h(n);
  unsigned long long nbad = 0;
  CUDA_OK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost));
  FILE* f = std::fopen(argv[1], "wb");
  if (!f || std::fwrite(h.data(), 4, n, f) != n) {
    std::fprintf(stderr, "rsqrt_table: cannot write %s\n", argv[1]);
    return 2;
  }
  std::fclose(f);
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  std::printf("{\"device\": \"%s\", \"entries\": %zu, \"shift_rule_samples\": %llu, \"shift_rule_mismatches\": %llu}\n",
              prop.name, n, samples, nbad);
  return 0;
}
