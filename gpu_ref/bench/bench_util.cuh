// What the gpu_ref benchmarks share: error checks, test inputs, the copy
// kernels that set the bandwidth ceiling, and the timing method (CUDA events
// after a warm-up, the L2 flushed before every timed launch, the median).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/fast_launch.cuh"

#define CUDA_OK(x)                                                                        \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));   \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)


namespace normref::bench {

__global__ void fill_normal(float* out, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    // Hash -> two uniforms -> Box-Muller (a test input, not the golden generator).
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
    uint32_t g = h * 747796405u + 2891336453u;
    g ^= g >> 17; g *= 0xed5ad4bbu; g ^= g >> 11;
    const float u1 = (static_cast<float>(h >> 8) + 1.0f) / 16777217.0f, u2 = static_cast<float>(g >> 8) / 16777216.0f;
    out[i] = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2) + 0.5f;
  }
}
__global__ void to_bf16(__nv_bfloat16* out, const float* in, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] = __float2bfloat16_rn(in[i]);
}
// One 16-byte vector a thread, no loop: the plainest streaming copy.
__global__ void copy_flat(float4* __restrict__ dst, const float4* __restrict__ src, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) dst[i] = src[i];
}
__global__ void copy_kernel(float4* __restrict__ dst, const float4* __restrict__ src, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

template <typename F>
inline double median_us(F&& run, int reps, void* flush, size_t flush_bytes, cudaStream_t st) {
  cudaEvent_t e0, e1;
  CUDA_OK(cudaEventCreate(&e0));
  CUDA_OK(cudaEventCreate(&e1));
  for (int i = 0; i < 3; ++i) run();
  CUDA_OK(cudaStreamSynchronize(st));
  std::vector<double> us;
  for (int i = 0; i < reps; ++i) {
    CUDA_OK(cudaMemsetAsync(flush, i & 0xff, flush_bytes, st));
    CUDA_OK(cudaEventRecord(e0, st));
    run();
    CUDA_OK(cudaEventRecord(e1, st));
    CUDA_OK(cudaEventSynchronize(e1));
    float ms = 0;
    CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
    us.push_back(ms * 1e3);
  }
  CUDA_OK(cudaGetLastError());
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

inline float bf16_to_f(__nv_bfloat16 h) {
  uint16_t b;
  std::memcpy(&b, &h, 2);
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace normref::bench

namespace normref::bench {
/// The copy bandwidth ceiling (GB/s, read + write): the flat copy of n floats.
inline double copy_gbps(float* dst, const float* src, size_t n, int reps, void* flush, size_t flush_bytes, cudaStream_t st) {
  const double us = median_us([&] { copy_flat<<<(n / 4 + 255) / 256, 256, 0, st>>>(reinterpret_cast<float4*>(dst), reinterpret_cast<const float4*>(src), n / 4); },
                              reps, flush, flush_bytes, st);
  return 2.0 * n * 4 / (us * 1e3);
}
template <typename T>
std::vector<double> to_host(const T* d, size_t n) {
  std::vector<T> h(n);
  CUDA_OK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (sizeof(T) == 2) out[i] = bf16_to_f(h[i]);
    else out[i] = h[i];
  }
  return out;
}
}  // namespace normref::bench

namespace normref::bench {
using normref::dev::with_threads;
}  // namespace normref::bench
