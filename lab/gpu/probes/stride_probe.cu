// DRAM read bandwidth of many concurrent sequential streams, one per warp,
// as a function of the distance between the streams' starts (a LayerNorm
// kernel with one warp per row reads rows `stride` bytes apart, all warps
// starting together). Each warp reads `len` bytes of its own stream with
// four 128-byte loads in flight (like v4's first pass) and sums them.
// Prints one JSON line per (stride, warps): time and GB/s, median of 9
// runs after a 256 MiB L2 flush each.
//   stride_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CUDA_OK(call)                                                                        \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "stride_probe: %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

__global__ void streams(const float* __restrict__ base, size_t stride_floats, int len_floats, int nwarps, float* out) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (warp >= nwarps) return;
  const float* x = base + static_cast<size_t>(warp) * stride_floats;
  float s = 0.0f;
  for (int i = lane; i < len_floats; i += 128) {
    const float a = x[i], b = x[i + 32], c = x[i + 64], d = x[i + 96];
    s += a + b + c + d;
  }
  if (s == 1234.5f) out[warp] = s;  // keeps the loads; never true for the zeroed input
}

int main() {
  const size_t buf_bytes = size_t(3) << 30;  // 3 GiB: the largest stride x warps below fits
  float* base = nullptr;
  float* out = nullptr;
  void* flush = nullptr;
  CUDA_OK(cudaMalloc(&base, buf_bytes));
  CUDA_OK(cudaMemset(base, 0, buf_bytes));
  CUDA_OK(cudaMalloc(&out, 1 << 20));
  CUDA_OK(cudaMalloc(&flush, size_t(256) << 20));
  cudaEvent_t e0, e1;
  CUDA_OK(cudaEventCreate(&e0));
  CUDA_OK(cudaEventCreate(&e1));
  const int len = 16384;  // bytes each warp reads
  const std::vector<size_t> strides = {16384, 16384 + 128, 16384 + 512, 12288, 20480, 24576, 32768, 32768 + 128,
                                       65536, 65536 + 128, 131072, 262144, 262144 + 128, 3072 * 6, 4000 * 5};
  for (int nwarps : {1056, 8448}) {
    for (size_t stride : strides) {
      if (stride * nwarps + len > buf_bytes) continue;
      std::vector<float> ms;
      for (int rep = 0; rep < 10; ++rep) {
        CUDA_OK(cudaMemset(flush, rep, size_t(256) << 20));
        CUDA_OK(cudaEventRecord(e0));
        streams<<<(nwarps * 32 + 255) / 256, 256>>>(base, stride / 4, len / 4, nwarps, out);
        CUDA_OK(cudaEventRecord(e1));
        CUDA_OK(cudaEventSynchronize(e1));
        float t = 0;
        CUDA_OK(cudaEventElapsedTime(&t, e0, e1));
        if (rep) ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      const double us = ms[ms.size() / 2] * 1e3;
      std::printf("{\"warps\": %d, \"stride_bytes\": %zu, \"bytes_per_warp\": %d, \"time_us\": %.3f, \"gbps\": %.1f}\n",
                  nwarps, stride, len, us, static_cast<double>(nwarps) * len / us * 1e-3);
    }
  }
  return 0;
}
