// The SM-side latencies and throughputs the SIMT model takes as parameters
// where the golden cases' stalls point (lab/notes/simt_where_it_misses.md):
//   shfl    one warp, a dependent chain of __shfl_xor_sync (and of the
//           reduction step shfl + fadd): cycles per link (clock64);
//   smem    one warp, each lane re-reading its own shared word at a stride
//           that makes the load a k-way bank conflict (k = 1..32), a
//           dependent chain: cycles per load;
//   lsu     W warps on every SM, each issuing U independent global loads a
//           step of 4, 8 or 16 bytes a lane from an L2-resident buffer: warp
//           load instructions and bytes per SM cycle (the LSU/MIO queue that
//           throttles narrow loads); lsu_l1 the same from a 16 KiB
//           buffer that the L1 holds (the LSU's own rate, no L2 bound);
//   atomic  atomicAdd(float) with the result unused (RED), every thread of a
//           full grid on one of A addresses (contention = threads / A):
//           atomics per ns and per SM cycle;
//   chase   the remainder loop's loads: W = 1 or 2 warps an SM, each warp's
//           32 lanes loading one coalesced 128-byte line whose words hold
//           the next line's index (a dependent chain, like a loop that
//           loads one element a lane an iteration), one or two chains
//           interleaved, from lines spread over 4 GiB (DRAM: the L2 misses)
//           or over 16 MiB read once before (L2 hits): SM cycles a step
//           (a step: one load of each chain).
// One JSON object per line. sm_latency_probe [--only shfl|smem|lsu|atomic|chase]
#include <vector>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#define CUDA_OK(call)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "sm_latency_probe: %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

constexpr int kSteps = 4096;

__global__ void shfl_chain(long long* cycles, int* sink, int with_add) {
  int v = threadIdx.x;
  float f = static_cast<float>(threadIdx.x);
  __syncwarp();
  const long long c0 = clock64();
  if (with_add) {
#pragma unroll 16
    for (int i = 0; i < kSteps; ++i) f += __shfl_xor_sync(0xffffffffu, f, 1 << (i & 4));
  } else {
#pragma unroll 16
    for (int i = 0; i < kSteps; ++i) v = __shfl_xor_sync(0xffffffffu, v, 1 << (i & 4));
  }
  const long long c1 = clock64();
  if (threadIdx.x == 0) *cycles = c1 - c0;
  sink[threadIdx.x] = v + static_cast<int>(f);
}

// Lane l chases the word at l * stride, which holds its own address: every
// step all 32 lanes load at once, and stride sets how many share a bank.
__global__ void smem_chain(long long* cycles, int* sink, int stride) {
  __shared__ int s[32 * 33];
  for (int i = threadIdx.x; i < 32 * 33; i += 32) s[i] = i;
  __syncwarp();
  int p = (threadIdx.x * stride) % (32 * 33);
  const long long c0 = clock64();
#pragma unroll 16
  for (int i = 0; i < kSteps; ++i) p = s[p];
  const long long c1 = clock64();
  if (threadIdx.x == 0) *cycles = c1 - c0;
  sink[threadIdx.x] = p;
}

template <typename V, int U, bool L1>
__global__ void lsu_stream(const V* __restrict__ buf, size_t mask, int steps, float* sink, long long* cycles) {
  const size_t warp = (static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  float acc = 0.0f;
  const long long c0 = clock64();
  for (int k = 0; k < steps; ++k) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const size_t i = ((warp * U + u) * 32 + static_cast<size_t>(k) * 7919 * 32 + lane) & mask;
      // L1: a 16 KiB buffer loaded through the L1 (hits); else the L2 only.
      const V v = L1 ? __ldca(buf + i) : __ldcg(buf + i);
      acc += reinterpret_cast<const float*>(&v)[0];
    }
  }
  const long long c1 = clock64();
  if (threadIdx.x == 0 && blockIdx.x == 0) *cycles = c1 - c0;
  if (acc == 12345.0f) sink[0] = acc;
}

// Warp w of the grid starts its chains at lines ((w + start) * 2654435761 +
// c * 40503) mod lines; each load is the lane's word of the current line,
// whose words all hold the next line's first word index.
__global__ void global_chase(const uint32_t* __restrict__ next, uint32_t lines, int steps, int chains, uint32_t start,
                             long long* cycles, uint32_t* sink) {
  const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  uint32_t p0 = static_cast<uint32_t>(((warp + start) * 2654435761ull) % lines) * 32;
  uint32_t p1 = static_cast<uint32_t>(((warp + start) * 2654435761ull + 40503) % lines) * 32;
  __syncwarp();
  const long long c0 = clock64();
  if (chains == 1) {
    for (int k = 0; k < steps; ++k) p0 = __ldcg(next + p0 + lane);
  } else {
    for (int k = 0; k < steps; ++k) {
      p0 = __ldcg(next + p0 + lane);
      p1 = __ldcg(next + p1 + lane);
    }
  }
  const long long c1 = clock64();
  if (lane == 0) cycles[warp] = c1 - c0;
  if (p0 + p1 == 0xffffffffu) sink[0] = p0;
}

__global__ void red_contention(float* addr, int addresses, int per_thread) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < per_thread; ++k) atomicAdd(addr + (t + k * 131) % addresses, 1.0f);
}

template <typename F>
float time_ms(F&& launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  launch();  // warm-up
  float best = 1e30f;
  float ms[7];
  for (int r = 0; r < 7; ++r) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    cudaEventElapsedTime(&ms[r], a, b);
  }
  // median of 7
  for (int i = 0; i < 7; ++i)
    for (int j = i + 1; j < 7; ++j)
      if (ms[j] < ms[i]) std::swap(ms[i], ms[j]);
  best = ms[3];
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return best;
}

template <typename V, int U, bool L1 = false>
int lsu_case(const void* buf, size_t bytes, int sms, int warps_per_sm, double clock_khz, float* sink, long long* cyc) {
  const size_t mask = bytes / sizeof(V) - 1;
  const int threads = std::min(warps_per_sm, 32) * 32;
  const int blocks = sms * ((warps_per_sm * 32 + threads - 1) / threads);
  const int steps = 256;
  const float ms = time_ms([&] {
    lsu_stream<V, U, L1><<<blocks, threads>>>(static_cast<const V*>(buf), mask, steps, sink, cyc);
  });
  CUDA_OK(cudaGetLastError());
  const double warp_loads = static_cast<double>(blocks) * threads / 32 * steps * U;
  const double sm_cycles = ms * 1e-3 * clock_khz * 1e3;
  std::printf("{\"probe\": \"%s\", \"bytes_per_lane\": %d, \"warps_per_sm\": %d, \"loads_in_flight\": %d, "
              "\"time_us\": %.2f, \"warp_loads_per_sm_cycle\": %.4f, \"bytes_per_sm_cycle\": %.2f}\n",
              L1 ? "lsu_l1" : "lsu", static_cast<int>(sizeof(V)), warps_per_sm, U, ms * 1e3, warp_loads / sms / sm_cycles,
              warp_loads * 32 * sizeof(V) / sms / sm_cycles);
  return 0;
}

int main(int argc, char** argv) {
  std::string only = argc > 2 && std::strcmp(argv[1], "--only") == 0 ? argv[2] : "";
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CUDA_OK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"sm_clock_khz\": %d}\n", prop.name, prop.multiProcessorCount,
              clock_khz);
  long long* cyc;
  int* sink;
  float* fsink;
  CUDA_OK(cudaMalloc(&cyc, sizeof(long long)));
  CUDA_OK(cudaMalloc(&sink, 1024 * sizeof(int)));
  CUDA_OK(cudaMalloc(&fsink, 1024 * sizeof(float)));
  if (only.empty() || only == "shfl") {
    for (int with_add = 0; with_add < 2; ++with_add) {
      shfl_chain<<<1, 32>>>(cyc, sink, with_add);  // warm-up
      shfl_chain<<<1, 32>>>(cyc, sink, with_add);
      CUDA_OK(cudaDeviceSynchronize());
      long long c = 0;
      CUDA_OK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
      std::printf("{\"probe\": \"shfl\", \"chain\": \"%s\", \"steps\": %d, \"cycles_per_step\": %.2f}\n",
                  with_add ? "shfl_xor+fadd" : "shfl_xor", kSteps, static_cast<double>(c) / kSteps);
    }
  }
  if (only.empty() || only == "smem") {
    for (int stride : {1, 2, 4, 8, 16, 32}) {
      smem_chain<<<1, 32>>>(cyc, sink, stride);
      smem_chain<<<1, 32>>>(cyc, sink, stride);
      CUDA_OK(cudaDeviceSynchronize());
      long long c = 0;
      CUDA_OK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
      std::printf("{\"probe\": \"smem\", \"conflict_ways\": %d, \"steps\": %d, \"cycles_per_load\": %.2f}\n", stride,
                  kSteps, static_cast<double>(c) / kSteps);
    }
  }
  if (only.empty() || only == "lsu") {
    const size_t bytes = size_t(8) << 20;  // 8 MiB: in the L2, far past L1
    void* buf;
    CUDA_OK(cudaMalloc(&buf, bytes));
    CUDA_OK(cudaMemset(buf, 0, bytes));
    for (int w : {1, 2, 4, 8, 16, 32, 64}) {
      if (lsu_case<float, 4>(buf, bytes, prop.multiProcessorCount, w, clock_khz, fsink, cyc)) return 1;
      if (lsu_case<float2, 4>(buf, bytes, prop.multiProcessorCount, w, clock_khz, fsink, cyc)) return 1;
      if (lsu_case<float4, 4>(buf, bytes, prop.multiProcessorCount, w, clock_khz, fsink, cyc)) return 1;
      if (lsu_case<float, 4, true>(buf, 16384, prop.multiProcessorCount, w, clock_khz, fsink, cyc)) return 1;
      if (lsu_case<float2, 4, true>(buf, 16384, prop.multiProcessorCount, w, clock_khz, fsink, cyc)) return 1;
      if (lsu_case<float4, 4, true>(buf, 16384, prop.multiProcessorCount, w, clock_khz, fsink, cyc)) return 1;
    }
    CUDA_OK(cudaFree(buf));
  }
  if (only.empty() || only == "chase") {
    // A random cycle through the lines (every word of a line holds the next
    // line's first word index), built once for the largest buffer; the 16 MiB
    // case walks a cycle of its own.
    const int sms = prop.multiProcessorCount;
    long long* wcyc;
    CUDA_OK(cudaMalloc(&wcyc, sizeof(long long) * sms * 2));
    for (const size_t bytes : {size_t(16) << 20, size_t(4) << 30}) {
      const uint32_t lines = static_cast<uint32_t>(bytes / 128);
      std::vector<uint32_t> order(lines), host(static_cast<size_t>(lines) * 32);
      for (uint32_t i = 0; i < lines; ++i) order[i] = i;
      uint64_t s = 88172645463325252ull;
      for (uint32_t i = lines - 1; i > 0; --i) {  // Fisher-Yates with xorshift64
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        std::swap(order[i], order[s % (i + 1)]);
      }
      for (uint32_t i = 0; i < lines; ++i)
        std::fill_n(host.begin() + static_cast<size_t>(order[i]) * 32, 32, order[(i + 1) % lines] * 32);
      uint32_t* next;
      CUDA_OK(cudaMalloc(&next, bytes));
      CUDA_OK(cudaMemcpy(next, host.data(), bytes, cudaMemcpyHostToDevice));
      const bool dram = bytes > (size_t(64) << 20);
      for (int w : {1, 2})
        for (int chains : {1, 2}) {
          const int steps = dram ? 512 : 2048;
          // Warm-up: the L2 case's fill (the same chains); the DRAM case's
          // timed chains start elsewhere, on lines no earlier run touched.
          global_chase<<<sms * w, 32>>>(next, lines, steps, chains, 0, wcyc, reinterpret_cast<uint32_t*>(sink));
          const uint32_t start = dram ? 1000003u * static_cast<uint32_t>(w * 2 + chains) : 0;
          global_chase<<<sms * w, 32>>>(next, lines, steps, chains, start, wcyc, reinterpret_cast<uint32_t*>(sink));
          CUDA_OK(cudaDeviceSynchronize());
          std::vector<long long> c(static_cast<size_t>(sms) * w);
          CUDA_OK(cudaMemcpy(c.data(), wcyc, sizeof(long long) * c.size(), cudaMemcpyDeviceToHost));
          std::sort(c.begin(), c.end());
          std::printf("{\"probe\": \"chase\", \"source\": \"%s\", \"buffer_bytes\": %zu, \"warps_per_sm\": %d, "
                      "\"chains\": %d, \"steps\": %d, \"cycles_per_step_median\": %.1f, \"cycles_per_step_max\": %.1f}\n",
                      dram ? "dram" : "l2", bytes, w, chains, steps, static_cast<double>(c[c.size() / 2]) / steps,
                      static_cast<double>(c.back()) / steps);
        }
      CUDA_OK(cudaFree(next));
    }
    CUDA_OK(cudaFree(wcyc));
  }
  if (only.empty() || only == "atomic") {
    float* addr;
    const int max_addresses = 1 << 22;
    CUDA_OK(cudaMalloc(&addr, max_addresses * sizeof(float)));
    const int threads = 256, blocks = prop.multiProcessorCount * 8, per_thread = 64;
    for (int a = 1; a <= max_addresses; a *= 4) {
      CUDA_OK(cudaMemset(addr, 0, max_addresses * sizeof(float)));
      const float ms = time_ms([&] { red_contention<<<blocks, threads>>>(addr, a, per_thread); });
      CUDA_OK(cudaGetLastError());
      const double ops = static_cast<double>(blocks) * threads * per_thread;
      std::printf("{\"probe\": \"atomic\", \"addresses\": %d, \"threads\": %d, \"contention\": %.1f, \"time_us\": %.2f, "
                  "\"atomics_per_ns\": %.3f, \"atomics_per_sm_cycle\": %.4f}\n",
                  a, blocks * threads, static_cast<double>(blocks) * threads / a, ms * 1e3, ops / (ms * 1e6),
                  ops / (ms * 1e-3 * clock_khz * 1e3) / prop.multiProcessorCount);
    }
    CUDA_OK(cudaFree(addr));
  }
  CUDA_OK(cudaDeviceSynchronize());
  return 0;
}
