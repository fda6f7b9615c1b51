// A measured variant of fused_bwd.cuh's ln_backward, for the benchmarks only
// (fast_norm_capi's normref_norm_backward_prefetch; results in
// lab/records/h100/torch_bwd_prefetch.jsonl, lab/notes/gpu_probes.md): the
// block's next row of x and dy and its statistics are loaded before this
// row's reduction, so those loads are in flight across the barrier and the
// dx stores; gamma is read from (dynamic) shared memory instead of
// registers to make room. The same arithmetic in the same order as
// ln_backward, so the same bits. Kept apart so that the shipped kernel's
// code -- and the golden cases' SASS and registers -- stay as recorded.
#pragma once

#include <algorithm>

#include "kernels/fast_launch.cuh"

namespace normref::dev {

template <typename T, int THREADS, int VECS, bool RMS>
__global__ void __launch_bounds__(THREADS)
    ln_backward_prefetch(T* __restrict__ dx, float* __restrict__ partial, const T* __restrict__ dy,
                         const T* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ mean,
                         const float* __restrict__ rstd, int rows, int C) {
  constexpr int kN = Vec16<T>::kN;
  __shared__ float2 smem[32];
  extern __shared__ float4 gamma_smem[];  // C / 4 float4s
  const int t = threadIdx.x;
  const int nvec = C / kN;
  for (int q = t; q < C / 4; q += THREADS) gamma_smem[q] = __ldg(reinterpret_cast<const float4*>(gamma) + q);
  float pg[VECS][kN], pb[VECS][kN];
#pragma unroll
  for (int k = 0; k < VECS; ++k)
#pragma unroll
    for (int j = 0; j < kN; ++j) pg[k][j] = pb[k][j] = 0.0f;
  Vec16<T> nx[VECS], nd[VECS];
  float nmu = 0.0f, nrs = 0.0f;
  auto prefetch = [&](int64_t row) {
    if (row >= rows) return;
    if constexpr (!RMS) nmu = mean[row];
    nrs = rstd[row];
#pragma unroll
    for (int k = 0; k < VECS; ++k)
      if (t + k * THREADS < nvec) {
        const int64_t off = row * C + static_cast<int64_t>(t + k * THREADS) * kN;
        nx[k] = fast_load(x + off), nd[k] = fast_load(dy + off);
      }
  };
  __syncthreads();  // gamma_smem written
  prefetch(blockIdx.x);
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float mu = RMS ? 0.0f : nmu, rs = nrs;
    Vec16<T> cx[VECS], cd[VECS];
#pragma unroll
    for (int k = 0; k < VECS; ++k) cx[k] = nx[k], cd[k] = nd[k];
    prefetch(row + gridDim.x);
    float xh[VECS][kN], g[VECS][kN];
    float s1 = 0.0f, s2 = 0.0f;
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
      const int i = t + k * THREADS;
      if (i < nvec) {
        float gk[kN];
#pragma unroll
        for (int q = 0; q < kN / 4; ++q) {
          const float4 v = gamma_smem[i * kN / 4 + q];
          gk[4 * q] = v.x, gk[4 * q + 1] = v.y, gk[4 * q + 2] = v.z, gk[4 * q + 3] = v.w;
        }
#pragma unroll
        for (int j = 0; j < kN; ++j) {
          const float dyv = to_f(cd[k].v[j]);
          xh[k][j] = (to_f(cx[k].v[j]) - mu) * rs;
          g[k][j] = dyv * gk[j];
          s1 += g[k][j];
          s2 += g[k][j] * xh[k][j];
          pg[k][j] += dyv * xh[k][j];
          if constexpr (!RMS) pb[k][j] += dyv;
        }
      } else {
#pragma unroll
        for (int j = 0; j < kN; ++j) xh[k][j] = g[k][j] = 0.0f;
      }
    }
    const float2 S = row_sum2<THREADS>(s1, s2, smem);
    const float S1 = RMS ? 0.0f : S.x, S2 = S.y;
    const float scale = rs / static_cast<float>(C), Cf = static_cast<float>(C);
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
      const int i = t + k * THREADS;
      if (i < nvec) {
        Vec16<T> o;
#pragma unroll
        for (int j = 0; j < kN; ++j) o.v[j] = from_f<T>(scale * (Cf * g[k][j] - S1 - xh[k][j] * S2));
        fast_store(dx + row * C + static_cast<int64_t>(i) * kN, o);
      }
    }
  }
#pragma unroll
  for (int k = 0; k < VECS; ++k) {
    const int i = t + k * THREADS;
    if (i < nvec)
#pragma unroll
      for (int j = 0; j < kN; ++j) {
        partial[(2 * static_cast<int64_t>(blockIdx.x)) * C + i * kN + j] = pg[k][j];
        if constexpr (!RMS) partial[(2 * static_cast<int64_t>(blockIdx.x) + 1) * C + i * kN + j] = pb[k][j];
      }
  }
}

/// ln_backward_prefetch at `threads` (0: backward_threads) with its gamma's
/// shared memory; blocks: 0 asks for the occupancy calculator's grid.
template <typename T, bool RMS>
struct BackwardPrefetch {
  static const void* function(int C, int& threads) {
    if (!threads) threads = backward_threads(C, sizeof(T));
    const void* f = nullptr;
    with_backward_threads(threads, [&](auto th) {
      constexpr int TH = decltype(th)::value;
      f = reinterpret_cast<const void*>(ln_backward_prefetch<T, TH, (sizeof(T) == 4 ? 2 : 1), RMS>);
    });
    return f;
  }
  static int blocks(int rows, int C, int threads) {
    int sms = 0, per_sm = 0, dev = 0;
    const void* f = function(C, threads);
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, threads, C * sizeof(float));
    return std::min(rows, sms * per_sm);
  }
  static cudaError_t launch(T* dx, float* dgamma, float* dbeta, float* partial, const T* dy, const T* x,
                            const float* gamma, const float* mean, const float* rstd, int rows, int C, int blocks,
                            int threads, cudaStream_t st) {
    const void* f = function(C, threads);
    void* args[] = {&dx, &partial, const_cast<T**>(&dy), const_cast<T**>(&x), const_cast<float**>(&gamma),
                    const_cast<float**>(&mean), const_cast<float**>(&rstd), &rows, &C};
    if (cudaError_t e = cudaLaunchKernel(f, dim3(blocks), dim3(threads), args, C * sizeof(float), st)) return e;
    bwd_column_sum<<<(C + 31) / 32, 1024, 0, st>>>(dgamma, RMS ? nullptr : dbeta, partial, blocks, C);
    return cudaSuccess;
  }
};

}  // namespace normref::dev
