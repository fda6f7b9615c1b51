// Load latency against the loads in flight: every warp streams its own
// region with U independent 128-byte loads per step (a step's loads are
// summed before the next step's are issued, as in the kernels' unrolled
// loops), for W warps per SM on every SM. Time per step = the latency a
// dependent batch of loads sees at that load: the curve the SIMT model's
// single latency parameter stands in for. One JSON line per (W, U).
//   mlp_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CUDA_OK(call)                                                                     \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "mlp_probe: %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

template <int U>
__global__ void stream(const float* __restrict__ base, size_t floats_per_warp, int steps, float* out) {
  const size_t warp = (static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  const float* x = base + warp * floats_per_warp + lane;
  float s = 0.0f;
  for (int k = 0; k < steps; ++k) {
    float v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldcg(x + static_cast<size_t>(k * U + u) * 32);  // L2, not L1
    float t = 0.0f;
#pragma unroll
    for (int u = 0; u < U; ++u) t += v[u];
    s += t;
    if (s == 1234.5f) x += 1;  // a dependence the compiler cannot remove: the next step waits for this one
  }
  if (s == 4321.5f) out[warp] = s;
}

int main() {
  int sms = 0, clock_khz = 0;
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CUDA_OK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const size_t bytes = size_t(4) << 30;
  float* base = nullptr;
  float* out = nullptr;
  void* flush = nullptr;
  CUDA_OK(cudaMalloc(&base, bytes));
  CUDA_OK(cudaMemset(base, 0, bytes));
  CUDA_OK(cudaMalloc(&out, 1 << 22));
  CUDA_OK(cudaMalloc(&flush, size_t(256) << 20));
  cudaEvent_t e0, e1;
  CUDA_OK(cudaEventCreate(&e0));
  CUDA_OK(cudaEventCreate(&e1));
  const int steps = 64;
  for (int W : {1, 2, 4, 8, 16, 32, 64}) {
    for (int U : {1, 2, 4, 8, 16}) {
      const int warps = W * sms;
      const size_t floats_per_warp = static_cast<size_t>(steps) * U * 32 + 32;
      if (warps * floats_per_warp * 4 > bytes) continue;
      std::vector<float> ms;
      for (int rep = 0; rep < 6; ++rep) {
        CUDA_OK(cudaMemset(flush, rep, size_t(256) << 20));  // cold L2
        CUDA_OK(cudaEventRecord(e0));
        const int threads = std::min(W, 32) * 32, blocks = warps * 32 / threads;
        switch (U) {
          case 1: stream<1><<<blocks, threads>>>(base, floats_per_warp, steps, out); break;
          case 2: stream<2><<<blocks, threads>>>(base, floats_per_warp, steps, out); break;
          case 4: stream<4><<<blocks, threads>>>(base, floats_per_warp, steps, out); break;
          case 8: stream<8><<<blocks, threads>>>(base, floats_per_warp, steps, out); break;
          default: stream<16><<<blocks, threads>>>(base, floats_per_warp, steps, out); break;
        }
        CUDA_OK(cudaEventRecord(e1));
        CUDA_OK(cudaEventSynchronize(e1));
        float t = 0;
        CUDA_OK(cudaEventElapsedTime(&t, e0, e1));
        if (rep) ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      const double us = ms[ms.size() / 2] * 1e3;
      const double step_cycles = us * 1e-6 * clock_khz * 1e3 / steps;
      const double gbps = static_cast<double>(warps) * steps * U * 128 / (us * 1e3);
      std::printf("{\"warps_per_sm\": %d, \"loads_in_flight\": %d, \"time_us\": %.3f, \"cycles_per_step\": %.1f, "
                  "\"bytes_in_flight_kib\": %.1f, \"gbps\": %.1f}\n",
                  W, U, us, step_cycles, static_cast<double>(warps) * U * 128 / 1024.0, gbps);
    }
  }
  return 0;
}
