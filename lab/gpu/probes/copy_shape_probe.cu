// How the shape of a streaming kernel moves its DRAM bandwidth, with no
// arithmetic in the way: a copy of 2^27 fp32 (512 MiB read, 512 MiB written)
// done as the flat copy the benchmarks call the ceiling, and as rows a block
// each -- the whole row loaded into registers, a barrier (where a norm
// kernel reduces), then the row stored -- by threads a block and row size,
// and with torch.compile's C = 4096 pattern (512 threads, the row read with
// the L2 evict-last policy, a barrier, read again, stored). CUDA events after a warm-up, the L2 flushed
// before every timed launch, medians: one JSON line a shape.
//   copy_shape_probe [REPS]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "bench/bench_util.cuh"

namespace {
using normref::bench::copy_flat;
using normref::bench::median_us;

// A load with the L2 evict-last policy (Inductor's loads of x).
__device__ __forceinline__ float4 load_evict_last(const float4* p) {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  float4 v;
  asm volatile("ld.global.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p), "l"(policy));
  return v;
}

__global__ void copy_flat_evict_last(float4* __restrict__ dst, const float4* __restrict__ src, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) dst[i] = load_evict_last(src + i);
}

// A row of T x V 16-byte vectors a block: load all V, barrier, store all V.
template <int T, int V, bool EVICT_LAST = false>
__global__ void __launch_bounds__(T) copy_rows(float4* __restrict__ dst, const float4* __restrict__ src) {
  const size_t row = blockIdx.x;
  const float4* s = src + row * (T * V);
  float4* d = dst + row * (T * V);
  float4 v[V];
#pragma unroll
  for (int k = 0; k < V; ++k) v[k] = EVICT_LAST ? load_evict_last(s + threadIdx.x + k * T) : s[threadIdx.x + k * T];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < V; ++k) d[threadIdx.x + k * T] = v[k];
}

// The row read twice: the second read from the L1 (the values of the first
// are dropped, as a register-light looped kernel does), then stored.
template <int T, int V, bool EVICT_LAST = false>
__global__ void __launch_bounds__(T) copy_rows_reread(float4* __restrict__ dst, const float4* __restrict__ src, int* sink) {
  const size_t row = blockIdx.x;
  const float4* s = src + row * (T * V);
  float4* d = dst + row * (T * V);
  float acc = 0;
#pragma unroll
  for (int k = 0; k < V; ++k) {
    const float4 a = EVICT_LAST ? load_evict_last(s + threadIdx.x + k * T) : s[threadIdx.x + k * T];
    acc += a.x + a.y + a.z + a.w;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < V; ++k) d[threadIdx.x + k * T] = __ldcs(s + threadIdx.x + k * T);
  if (acc == 12345.678f) sink[0] = 1;
}

template <int T, int V, bool EVICT_LAST = false>
void run(const char* name, float4* dst, const float4* src, int* sink, size_t n16, int reps, void* flush, size_t fb,
         cudaStream_t st, bool reread) {
  const size_t rows = n16 / (T * V);
  const double us = median_us(
      [&] {
        if (reread)
          copy_rows_reread<T, V, EVICT_LAST><<<rows, T, 0, st>>>(dst, src, sink);
        else
          copy_rows<T, V, EVICT_LAST><<<rows, T, 0, st>>>(dst, src);
      },
      reps, flush, fb, st);
  std::printf("{\"shape\": \"%s\", \"threads\": %d, \"row_bytes\": %d, \"reread\": %s, \"x_evict_last\": %s, "
              "\"us\": %.2f, \"gbps\": %.1f}\n",
              name, T, T * V * 16, reread ? "true" : "false", EVICT_LAST ? "true" : "false", us, 2.0 * n16 * 16 / (us * 1e3));
}
}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  if (reps < 1 || reps > 1000) {
    std::fprintf(stderr, "copy_shape_probe: REPS must be 1..1000\n");
    return 2;
  }
  const size_t n16 = (size_t(1) << 27) / 4;  // 16-byte vectors of 2^27 fp32
  const size_t fb = size_t(256) << 20;
  float4 *src = nullptr, *dst = nullptr;
  int* sink = nullptr;
  void* flush = nullptr;
  CUDA_OK(cudaMalloc(&src, n16 * 16));
  CUDA_OK(cudaMalloc(&dst, n16 * 16));
  CUDA_OK(cudaMalloc(&sink, 4));
  CUDA_OK(cudaMalloc(&flush, fb));
  CUDA_OK(cudaMemset(src, 0, n16 * 16));
  cudaStream_t st;
  CUDA_OK(cudaStreamCreate(&st));
  const double flat = median_us([&] { copy_flat<<<(n16 + 255) / 256, 256, 0, st>>>(dst, src, n16); }, reps, flush, fb, st);
  std::printf("{\"shape\": \"flat\", \"threads\": 256, \"row_bytes\": 16, \"reread\": false, \"x_evict_last\": false, \"us\": %.2f, \"gbps\": %.1f}\n",
              flat, 2.0 * n16 * 16 / (flat * 1e3));
  run<32, 8>("rows", dst, src, sink, n16, reps, flush, fb, st, false);     // 4 KB, a warp (fast_* at C = 1024)
  run<128, 2>("rows", dst, src, sink, n16, reps, flush, fb, st, false);    // 4 KB
  run<128, 8>("rows", dst, src, sink, n16, reps, flush, fb, st, false);    // 16 KB (fast_* at C = 4096)
  run<256, 4>("rows", dst, src, sink, n16, reps, flush, fb, st, false);    // 16 KB
  run<512, 2>("rows", dst, src, sink, n16, reps, flush, fb, st, false);    // 16 KB
  run<1024, 1>("rows", dst, src, sink, n16, reps, flush, fb, st, false);   // 16 KB
  run<512, 2>("rows", dst, src, sink, n16, reps, flush, fb, st, true);     // torch.compile's C = 4096 shape
  run<256, 8>("rows", dst, src, sink, n16, reps, flush, fb, st, false);    // 32 KB
  run<512, 4>("rows", dst, src, sink, n16, reps, flush, fb, st, false);    // 32 KB
  run<512, 4>("rows", dst, src, sink, n16, reps, flush, fb, st, true);
  run<128, 2, true>("rows", dst, src, sink, n16, reps, flush, fb, st, false);
  run<128, 8, true>("rows", dst, src, sink, n16, reps, flush, fb, st, false);
  run<512, 2, true>("rows", dst, src, sink, n16, reps, flush, fb, st, false);
  run<512, 2, true>("rows", dst, src, sink, n16, reps, flush, fb, st, true);  // Inductor's C = 4096 loads
  const double flat_el =
      median_us([&] { copy_flat_evict_last<<<(n16 + 255) / 256, 256, 0, st>>>(dst, src, n16); }, reps, flush, fb, st);
  std::printf("{\"shape\": \"flat\", \"threads\": 256, \"row_bytes\": 16, \"reread\": false, \"x_evict_last\": true, "
              "\"us\": %.2f, \"gbps\": %.1f}\n",
              flat_el, 2.0 * n16 * 16 / (flat_el * 1e3));
  const double flat2 = median_us([&] { copy_flat<<<(n16 + 255) / 256, 256, 0, st>>>(dst, src, n16); }, reps, flush, fb, st);
  std::printf("{\"shape\": \"flat_again\", \"threads\": 256, \"row_bytes\": 16, \"reread\": false, \"x_evict_last\": false, \"us\": %.2f, \"gbps\": %.1f}\n",
              flat2, 2.0 * n16 * 16 / (flat2 * 1e3));
  return 0;
}
