// The LayerNorm forward ladder of llm.c's dev/cuda/layernorm_forward.cu
// (v1-v6), written from its description. y = (x - mean) * rstd * w + b, eps = 1e-5, mean and rstd
// stored per row for the backward pass.
#pragma once

#include "kernels/common.cuh"

namespace normref::dev {

// v1: one thread per row, three serial passes (sum, squared deviations,
// normalise); neighbouring threads read addresses C floats apart.
__global__ void ln_v1(float* __restrict__ out, float* __restrict__ mean, float* __restrict__ rstd,
                      const float* __restrict__ inp, const float* __restrict__ w, const float* __restrict__ b,
                      int N, int C) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N) return;
  const float* x = inp + static_cast<size_t>(idx) * C;
  float m = 0.0f;
  for (int i = 0; i < C; i++) m += x[i];
  m = m / C;
  float v = 0.0f;
  for (int i = 0; i < C; i++) {
    const float xs = x[i] - m;
    v += xs * xs;
  }
  v = v / C;
  const float s = 1.0f / sqrtf(v + kEps);
  float* o = out + static_cast<size_t>(idx) * C;
  for (int i = 0; i < C; i++) {
    const float n = s * (x[i] - m);
    o[i] = n * w[i] + b[i];
  }
  mean[idx] = m;
  rstd[idx] = s;
}

// v2: three kernels. Mean and rstd: one block per row, strided (coalesced)
// partial sums, shared-memory tree reduction. Normalise: one thread per element.
__global__ void ln_v2_mean(float* __restrict__ mean, const float* __restrict__ inp, int N, int C) {
  extern __shared__ float shared[];
  const int idx = blockIdx.x, tid = threadIdx.x, bs = blockDim.x;
  const float* x = inp + static_cast<size_t>(idx) * C;
  float sum = 0.0f;
  for (int i = tid; i < C; i += bs) sum += x[i];
  shared[tid] = sum;
  for (int stride = bs / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride) shared[tid] += shared[tid + stride];
  }
  if (tid == 0) mean[idx] = shared[0] / C;
}

__global__ void ln_v2_rstd(float* __restrict__ rstd, const float* __restrict__ mean, const float* __restrict__ inp,
                           int N, int C) {
  extern __shared__ float shared[];
  const int idx = blockIdx.x, tid = threadIdx.x, bs = blockDim.x;
  const float* x = inp + static_cast<size_t>(idx) * C;
  const float m = mean[idx];
  float sum = 0.0f;
  for (int i = tid; i < C; i += bs) {
    const float d = x[i] - m;
    sum += d * d;
  }
  shared[tid] = sum;
  for (int stride = bs / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride) shared[tid] += shared[tid + stride];
  }
  if (tid == 0) rstd[idx] = 1.0f / sqrtf(shared[0] / C + kEps);
}

__global__ void ln_v2_normalize(float* __restrict__ out, const float* __restrict__ inp, const float* __restrict__ mean,
                                const float* __restrict__ rstd, const float* __restrict__ w,
                                const float* __restrict__ b, int N, int C) {
  const size_t idx = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= static_cast<size_t>(N) * C) return;
  const int row = static_cast<int>(idx / C), c = static_cast<int>(idx % C);
  const float n = (inp[idx] - mean[row]) * rstd[row];
  out[idx] = n * w[c] + b[c];
}

// v3: warp per row with cooperative groups; exact two-pass (x read for the
// mean, again for the variance, again to normalise); streaming hints.
__global__ void ln_v3(float* __restrict__ out, float* __restrict__ mean, float* __restrict__ rstd,
                      const float* __restrict__ inp, const float* __restrict__ w, const float* __restrict__ b,
                      int N, int C) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (idx >= N) return;
  const float* x = inp + static_cast<size_t>(idx) * C;
  float sum = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) sum += x[i];
  sum = tile_sum(warp, sum);
  const float m = sum / C;
  float v = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) {
    const float d = x[i] - m;
    v += d * d;
  }
  v = tile_sum(warp, v);
  const float s = rsqrtf(v / C + kEps);
  float* o = out + static_cast<size_t>(idx) * C;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) {
    const float n = s * (__ldcs(x + i) - m);
    __stcs(o + i, n * w[i] + b[i]);
  }
  if (warp.thread_rank() == 0) {
    __stcs(mean + idx, m);
    __stcs(rstd + idx, s);
  }
}

// v4: as v3 with the single-pass variance E[x^2] - E[x]^2 (x read twice).
__global__ void ln_v4(float* __restrict__ out, float* __restrict__ mean, float* __restrict__ rstd,
                      const float* __restrict__ inp, const float* __restrict__ w, const float* __restrict__ b,
                      int N, int C) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (idx >= N) return;
  const float* x = inp + static_cast<size_t>(idx) * C;
  float sum = 0.0f, sum2 = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) {
    const float xi = x[i];
    sum += xi;
    sum2 += xi * xi;
  }
  sum = tile_sum(warp, sum) / C;
  sum2 = tile_sum(warp, sum2) / C;
  const float m = sum;
  const float var = sum2 - sum * sum;
  const float s = rsqrtf(var + kEps);
  float* o = out + static_cast<size_t>(idx) * C;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) {
    const float n = s * (__ldcs(x + i) - m);
    __stcs(o + i, n * w[i] + b[i]);
  }
  if (warp.thread_rank() == 0) {
    __stcs(mean + idx, m);
    __stcs(rstd + idx, s);
  }
}

// v5: block per row, single pass, two-level reduction (warp shuffle, then the
// warp partials through shared memory). Templated: it is also v6's fallback.
template <typename T>
__global__ void ln_v5(T* __restrict__ out, float* __restrict__ mean, float* __restrict__ rstd,
                      const T* __restrict__ inp, const float* __restrict__ w, const float* __restrict__ b, int N,
                      int C) {
  __shared__ float shared_sum[32], shared_sum2[32];
  const int idx = blockIdx.x, tid = threadIdx.x;
  const T* x = inp + static_cast<size_t>(idx) * C;
  float s1 = 0.0f, s2 = 0.0f;
  for (int i = tid; i < C; i += blockDim.x) {
    const float xi = to_f(x[i]);
    s1 += xi;
    s2 += xi * xi;
  }
  const float bsum = block_sum(s1, shared_sum) / C;
  const float bsum2 = block_sum(s2, shared_sum2) / C;
  const float m = bsum;
  const float s = rsqrtf(bsum2 - bsum * bsum + kEps);
  T* o = out + static_cast<size_t>(idx) * C;
  for (int i = tid; i < C; i += blockDim.x) {
    const float n = s * (to_f(__ldcs(x + i)) - m);
    o[i] = from_f<T>(n * w[i] + b[i]);
  }
  if (tid == 0) {
    mean[idx] = m;
    rstd[idx] = s;
  }
}

// v6: warp per row, 128-bit access, weight/bias (block-shared) and the row
// (per warp) cached in dynamic shared memory: x is read from global memory
// once; exact two-pass statistics from shared memory.
template <typename T>
__global__ void ln_v6(T* __restrict__ out, float* __restrict__ mean, float* __restrict__ rstd,
                      const T* __restrict__ inp, const float* __restrict__ w, const float* __restrict__ b, int N,
                      int C) {
  constexpr int V = Vec16<T>::kN;
  extern __shared__ __align__(16) unsigned char smem[];
  float* s_w = reinterpret_cast<float*>(smem);
  float* s_b = s_w + C;
  const int lane = threadIdx.x % 32, warp_id = threadIdx.x / 32, warps = blockDim.x / 32;
  T* s_in = reinterpret_cast<T*>(s_b + C) + static_cast<size_t>(warp_id) * C;
  for (int i = threadIdx.x * 4; i < C; i += blockDim.x * 4) {
    *reinterpret_cast<float4*>(s_w + i) = *reinterpret_cast<const float4*>(w + i);
    *reinterpret_cast<float4*>(s_b + i) = *reinterpret_cast<const float4*>(b + i);
  }
  __syncthreads();
  const int idx = blockIdx.x * warps + warp_id;
  if (idx >= N) return;
  const T* x = inp + static_cast<size_t>(idx) * C;
  float sum = 0.0f;
  for (int c = lane * V; c < C; c += 32 * V) {
    const Vec16<T> in = load16_cs(x + c);
    *reinterpret_cast<Vec16<T>*>(s_in + c) = in;
#pragma unroll
    for (int k = 0; k < V; ++k) sum += to_f(in.v[k]);
  }
  sum = warp_sum(sum);
  const float m = sum / C;
  float v = 0.0f;
  for (int c = lane * V; c < C; c += 32 * V) {
    const Vec16<T> in = *reinterpret_cast<const Vec16<T>*>(s_in + c);
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const float d = to_f(in.v[k]) - m;
      v += d * d;
    }
  }
  v = warp_sum(v);
  const float s = rsqrtf(v / C + kEps);
  T* o = out + static_cast<size_t>(idx) * C;
  for (int c = lane * V; c < C; c += 32 * V) {
    const Vec16<T> in = *reinterpret_cast<const Vec16<T>*>(s_in + c);
    Vec16<T> r;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const float n = s * (to_f(in.v[k]) - m);
      r.v[k] = from_f<T>(n * s_w[c + k] + s_b[c + k]);
    }
    store16_cs(o + c, r);
  }
  if (lane == 0) {
    __stcs(mean + idx, m);
    __stcs(rstd + idx, s);
  }
}

}  // namespace normref::dev
