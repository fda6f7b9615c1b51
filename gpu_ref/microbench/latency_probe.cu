// Load-to-use latency of the memory hierarchy: one thread chases a random
// cyclic permutation of 128-byte-spaced pointers over a footprint (so every
// load depends on the previous one and hardware prefetch cannot help), and
// times the chase with clock64 (SM cycles) and %globaltimer (ns). Footprints
// below the L1, between L1 and the 60 MiB L2, and far beyond it give the
// L1, L2 and DRAM latencies the SIMT and ASIC models take as parameters.
//   latency_probe [--sizes-kib a,b,c] [--steps N]   -> one JSON object per size
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#define CUDA_OK(call)                                                                        \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "latency_probe: %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

__device__ __forceinline__ uint64_t globaltimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void chase(const uint64_t* __restrict__ next, uint64_t start, long steps, long warm, uint64_t* out) {
  uint64_t p = start;
  for (long i = 0; i < warm; ++i) p = next[p];  // bring the footprint into the caches that can hold it
  const long long c0 = clock64();
  const uint64_t t0 = globaltimer();
  for (long i = 0; i < steps; ++i) p = next[p];
  const uint64_t t1 = globaltimer();
  const long long c1 = clock64();
  out[0] = static_cast<uint64_t>(c1 - c0);
  out[1] = t1 - t0;
  out[2] = p;  // keeps the chase alive
}

int main(int argc, char** argv) {
  std::vector<long> sizes_kib = {16, 128, 1024, 8192, 24576, 40960, 49152, 65536, 131072, 524288, 2097152};
  long steps = 1 << 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string f = argv[i];
    if (f == "--steps") {
      steps = std::atol(argv[i + 1]);
    } else if (f == "--sizes-kib") {
      sizes_kib.clear();
      std::string s = argv[i + 1];
      size_t pos = 0;
      while (pos < s.size()) {
        const size_t c = s.find(',', pos);
        sizes_kib.push_back(std::atol(s.substr(pos, c - pos).c_str()));
        pos = c == std::string::npos ? s.size() : c + 1;
      }
    } else {
      std::fprintf(stderr, "latency_probe: unknown option %s (allowed: --steps N, --sizes-kib a,b,c)\n", f.c_str());
      return 2;
    }
  }
  if (steps < 1) {
    std::fprintf(stderr, "latency_probe: --steps: must be >= 1 (allowed: 1..2^40)\n");
    return 2;
  }
  for (long kib : sizes_kib)
    if (kib < 1 || kib > (long(1) << 24)) {
      std::fprintf(stderr, "latency_probe: --sizes-kib: %ld out of range (allowed: 1..16777216 KiB each)\n", kib);
      return 2;
    }
  constexpr long kStride = 128 / sizeof(uint64_t);  // one node per 128-byte line
  uint64_t* out = nullptr;
  CUDA_OK(cudaMalloc(&out, 3 * sizeof(uint64_t)));
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CUDA_OK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  std::mt19937_64 rng(7);
  for (long kib : sizes_kib) {
    const long nodes = kib * 1024 / 128;
    std::vector<uint64_t> order(static_cast<size_t>(nodes));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<uint64_t> next(static_cast<size_t>(nodes * kStride), 0);
    for (long i = 0; i < nodes; ++i)
      next[static_cast<size_t>(order[i] * kStride)] = order[(i + 1) % nodes] * kStride;  // one cycle through all lines
    uint64_t* d = nullptr;
    CUDA_OK(cudaMalloc(&d, next.size() * sizeof(uint64_t)));
    CUDA_OK(cudaMemcpy(d, next.data(), next.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
    const long warm = std::min<long>(nodes, 4 << 20);
    chase<<<1, 1>>>(d, order[0] * kStride, steps, warm, out);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    uint64_t r[3];
    CUDA_OK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
    std::printf("{\"footprint_kib\": %ld, \"steps\": %ld, \"cycles_per_load\": %.2f, \"ns_per_load\": %.2f, "
                "\"device\": \"%s\", \"l2_bytes\": %d, \"sm_clock_khz\": %d}\n",
                kib, steps, static_cast<double>(r[0]) / steps, static_cast<double>(r[1]) / steps, prop.name,
                prop.l2CacheSize, clock_khz);
    std::fflush(stdout);
    CUDA_OK(cudaFree(d));
  }
  return 0;
}
