// Post-Norm fusion and the LayerNorm backward pass (dx from the two row sums
// of x_hat and dy gamma; dgamma/dbeta reduced over the rows), built like fast_norm.cuh: rows in registers, 128-bit accesses.
//
// fused_residual: z = x + r (rounded to T and written), y = LN(z) from the
// rounded z -- the same bits as an add kernel followed by fast_ln, with one
// read of x and r and no re-read of z. fused_residual_dropout: the same with
// z = dropout_p(x) + r, its mask regenerated from a counter-based RNG.
//
// Backward: with x_hat = (x - mu) rstd and g = dy gamma (section 29),
//   dx = rstd / C (C g - S1 - x_hat S2),  S1 = sum g,  S2 = sum g x_hat,
// and the parameter gradients reduce across rows (section 30):
//   dgamma = sum_rows dy x_hat,  dbeta = sum_rows dy.
// bwd_atomic: each block keeps its rows' partials in registers and adds them
// to dgamma/dbeta with global atomics at the end (section 31, first form);
// bwd_twolevel: each block writes its partials to a [blocks x C] buffer and
// a second kernel sums the columns in a fixed order (deterministic, unlike
// the atomics).
#pragma once

#include "kernels/fast_norm.cuh"
#include "sim/core/dropout_mask.hpp"

namespace normref::dev {

// One row of z = branch(x) + r (rounded to T and written) and y = LN(z),
// one block per row; `branch(values, index)` rewrites a vector's kN values of
// x in place (index: the row-major element index of its first).
template <typename T, int THREADS, int VECS, class Branch>
__device__ __forceinline__ void residual_ln_row(T* __restrict__ z, T* __restrict__ y, float* __restrict__ mean_out,
                                                float* __restrict__ rstd_out, const T* __restrict__ x,
                                                const T* __restrict__ r, const float* __restrict__ gamma,
                                                const float* __restrict__ beta, int C, Branch branch) {
  constexpr int kN = Vec16<T>::kN;
  __shared__ float smem[32];
  const int t = threadIdx.x;
  const int64_t row = blockIdx.x;
  const int nvec = C / kN;
  float v[VECS][kN];
#pragma unroll
  for (int k = 0; k < VECS; ++k) {
    const int i = t + k * THREADS;
    if (i < nvec) {
      const int64_t off = row * C + static_cast<int64_t>(i) * kN;
      const Vec16<T> a = fast_load(x + off), b = fast_load(r + off);
      float xa[kN];
#pragma unroll
      for (int j = 0; j < kN; ++j) xa[j] = to_f(a.v[j]);
      branch(xa, off);
      Vec16<T> s;
#pragma unroll
      for (int j = 0; j < kN; ++j) {
        s.v[j] = from_f<T>(xa[j] + to_f(b.v[j]));
        v[k][j] = to_f(s.v[j]);  // normalise the stored z
      }
      fast_store(z + off, s);
    } else {
#pragma unroll
      for (int j = 0; j < kN; ++j) v[k][j] = 0.0f;
    }
  }
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < VECS; ++k)
#pragma unroll
    for (int j = 0; j < kN; ++j) s += v[k][j];
  const float mean = row_sum<THREADS>(s, smem) / static_cast<float>(C);
  float q = 0.0f;
#pragma unroll
  for (int k = 0; k < VECS; ++k)
    if (t + k * THREADS < nvec)
#pragma unroll
      for (int j = 0; j < kN; ++j) q += (v[k][j] - mean) * (v[k][j] - mean);
  const float rstd = rsqrtf(row_sum<THREADS>(q, smem) / static_cast<float>(C) + kEps);
  if (t == 0) mean_out[row] = mean, rstd_out[row] = rstd;
#pragma unroll
  for (int k = 0; k < VECS; ++k) {
    const int i = t + k * THREADS;
    // gamma/beta as float4 loads, and the same expression as fast_ln's.
    if (i < nvec) normalize_vector<T, float, false>(y + row * C, gamma, beta, i, mean, rstd, [&](int j) { return v[k][j]; });
  }
}

template <typename T, int THREADS, int VECS>
__global__ void __launch_bounds__(THREADS) fused_residual_ln(T* __restrict__ z, T* __restrict__ y,
                                                             float* __restrict__ mean_out, float* __restrict__ rstd_out,
                                                             const T* __restrict__ x, const T* __restrict__ r,
                                                             const float* __restrict__ gamma,
                                                             const float* __restrict__ beta, int rows, int C) {
  residual_ln_row<T, THREADS, VECS>(z, y, mean_out, rstd_out, x, r, gamma, beta, C, [](float*, int64_t) {});
}

// fused_residual_dropout: z = dropout(x) + r with the mask of
// sim/core/dropout_mask.hpp -- one Philox4x32-10 evaluation per four
// elements, (seed, element index / 4) its counter -- kept values scaled by
// the fp32 1/(1-p), multiply and add rounded separately (no FMA), so the
// simulator's z is the same bits.
template <typename T, int THREADS, int VECS>
__global__ void __launch_bounds__(THREADS)
    fused_residual_dropout_ln(T* __restrict__ z, T* __restrict__ y, float* __restrict__ mean_out,
                              float* __restrict__ rstd_out, const T* __restrict__ x, const T* __restrict__ r,
                              const float* __restrict__ gamma, const float* __restrict__ beta, int rows, int C,
                              uint64_t seed, uint32_t threshold, float scale) {
  constexpr int kN = Vec16<T>::kN;
  static_assert(kN % 4 == 0, "a vector holds whole groups of four mask words");
  residual_ln_row<T, THREADS, VECS>(z, y, mean_out, rstd_out, x, r, gamma, beta, C, [&](float* xa, int64_t off) {
#pragma unroll
    for (int q = 0; q < kN / 4; ++q) {
      const normsim::rng::Philox4x32 w = normsim::rng::dropout_words(seed, static_cast<uint64_t>(off) / 4 + q);
#pragma unroll
      for (int j = 0; j < 4; ++j) xa[4 * q + j] = w.v[j] >= threshold ? __fmul_rn(xa[4 * q + j], scale) : 0.0f;
    }
  });
}

/// z = x + r alone (the unfused pair's first kernel).
template <typename T>
__global__ void residual_add(T* __restrict__ z, const T* __restrict__ x, const T* __restrict__ r, size_t nvec) {
  constexpr int kN = Vec16<T>::kN;
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= nvec) return;
  const Vec16<T> a = fast_load(x + i * kN), b = fast_load(r + i * kN);
  Vec16<T> s;
#pragma unroll
  for (int j = 0; j < kN; ++j) s.v[j] = from_f<T>(to_f(a.v[j]) + to_f(b.v[j]));
  fast_store(z + i * kN, s);
}

// One block walks rows blockIdx.x, += gridDim.x; each thread keeps the
// dgamma/dbeta partials of its columns. TWO_LEVEL: partials to
// partial[blockIdx.x][C] (then bwd_column_sum); else atomics into dgamma/dbeta.
// RMS: the RMSNorm backward (x_hat = x rstd, no mean; dx = rstd / C (C g -
// x_hat S2); no dbeta: its partials are neither kept nor written).
template <typename T, int THREADS, int VECS, bool TWO_LEVEL, bool RMS = false>
__global__ void __launch_bounds__(THREADS) ln_backward(T* __restrict__ dx, float* __restrict__ dgamma,
                                                       float* __restrict__ dbeta, float* __restrict__ partial,
                                                       const T* __restrict__ dy, const T* __restrict__ x,
                                                       const float* __restrict__ gamma, const float* __restrict__ mean,
                                                       const float* __restrict__ rstd, int rows, int C) {
  constexpr int kN = Vec16<T>::kN;
  __shared__ float2 smem[32];
  const int t = threadIdx.x;
  const int nvec = C / kN;
  // gamma of this thread's columns, the same for every row: loaded once, as
  // float4s (per row, as scalar loads a lane 16-32 bytes apart, they cost
  // the L1 8 wavefronts a warp instruction).
  float gm[VECS][kN], pg[VECS][kN], pb[VECS][kN];
#pragma unroll
  for (int k = 0; k < VECS; ++k) {
    const int i = t + k * THREADS;
#pragma unroll
    for (int q = 0; q < kN / 4; ++q) {
      const float4 v = i < nvec ? __ldg(reinterpret_cast<const float4*>(gamma + i * kN) + q) : make_float4(0, 0, 0, 0);
      gm[k][4 * q] = v.x, gm[k][4 * q + 1] = v.y, gm[k][4 * q + 2] = v.z, gm[k][4 * q + 3] = v.w;
    }
#pragma unroll
    for (int j = 0; j < kN; ++j) pg[k][j] = pb[k][j] = 0.0f;
  }
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float mu = RMS ? 0.0f : mean[row], rs = rstd[row];
    float xh[VECS][kN], g[VECS][kN];
    float s1 = 0.0f, s2 = 0.0f;
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
      const int i = t + k * THREADS;
      if (i < nvec) {
        const int64_t off = row * C + static_cast<int64_t>(i) * kN;
        const Vec16<T> a = fast_load(x + off), d = fast_load(dy + off);
#pragma unroll
        for (int j = 0; j < kN; ++j) {
          const float dyv = to_f(d.v[j]);
          xh[k][j] = (to_f(a.v[j]) - mu) * rs;
          g[k][j] = dyv * gm[k][j];
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
    const float2 S = row_sum2<THREADS>(s1, s2, smem);  // the backward's two row reductions, together
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
    if (i < nvec) {
#pragma unroll
      for (int j = 0; j < kN; ++j) {
        if constexpr (TWO_LEVEL) {
          partial[(2 * static_cast<int64_t>(blockIdx.x)) * C + i * kN + j] = pg[k][j];
          if constexpr (!RMS) partial[(2 * static_cast<int64_t>(blockIdx.x) + 1) * C + i * kN + j] = pb[k][j];
        } else {
          atomicAdd(dgamma + i * kN + j, pg[k][j]);
          if constexpr (!RMS) atomicAdd(dbeta + i * kN + j, pb[k][j]);
        }
      }
    }
  }
}

/// Second level: dgamma[c] = sum over blocks of partial[2b][c], dbeta from
/// partial[2b+1][c]. A 32 x 32 block per 32 columns: thread (ty, tx) sums
/// blocks ty, ty + 32, ... of column 32 blockIdx.x + tx (a warp reads 128
/// contiguous bytes), then warp 0 adds the 32 partial sums in ty order --
/// a fixed order, so the result does not depend on timing. dbeta null (the
/// RMSNorm backward): dgamma alone.
__global__ void __launch_bounds__(1024) bwd_column_sum(float* __restrict__ dgamma, float* __restrict__ dbeta,
                                                       const float* __restrict__ partial, int blocks, int C) {
  __shared__ float sg[32][33], sb[32][33];  // +1: no bank conflicts on the transposed read
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
  const int c = blockIdx.x * 32 + tx;
  float g = 0.0f, b = 0.0f;
  if (c < C)
    for (int k = ty; k < blocks; k += 32) {
      g += partial[(2 * static_cast<int64_t>(k)) * C + c];
      if (dbeta) b += partial[(2 * static_cast<int64_t>(k) + 1) * C + c];
    }
  sg[ty][tx] = g;
  sb[ty][tx] = b;
  __syncthreads();
  if (ty == 0 && c < C) {
    float G = 0.0f, Bs = 0.0f;
#pragma unroll
    for (int k = 0; k < 32; ++k) G += sg[k][tx], Bs += sb[k][tx];
    dgamma[c] = G;
    if (dbeta) dbeta[c] = Bs;
  }
}

}  // namespace normref::dev
