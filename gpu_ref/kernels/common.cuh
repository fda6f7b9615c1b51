// Shared device helpers: element load/store, warp reductions with a fixed
// (documented) order, and the Welford (1962) / Chan, Golub & LeVeque (1979) arithmetic.
//
// Reduction order: every warp reduction here is an xor butterfly with offsets
// 16, 8, 4, 2, 1. Sums are commutative, so every lane ends with the same
// bits; Chan merges always combine (lower lane, higher lane) so all lanes
// also agree. The SIMT emulation replays exactly this order.
#pragma once

#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cstdint>

namespace normref::dev {

namespace cg = cooperative_groups;

constexpr float kEps = 1e-5f;

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ float from_f<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// 16-byte vector of T (128-bit access, "x128").
template <typename T>
struct alignas(16) Vec16 {
  static constexpr int kN = 16 / sizeof(T);
  T v[kN];
};

template <typename T>
__device__ __forceinline__ Vec16<T> load16_cs(const T* p) {
  Vec16<T> r;
  *reinterpret_cast<int4*>(&r) = __ldcs(reinterpret_cast<const int4*>(p));
  return r;
}
template <typename T>
__device__ __forceinline__ void store16_cs(T* p, const Vec16<T>& v) {
  __stcs(reinterpret_cast<int4*>(p), *reinterpret_cast<const int4*>(&v));
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int off = 16; off >= 1; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

template <typename Tile>
__device__ __forceinline__ float tile_sum(const Tile& warp, float v) {
#pragma unroll
  for (int off = 16; off >= 1; off >>= 1) v += warp.shfl_xor(v, off);
  return v;
}

/// Block-wide sum: butterfly per warp, warp partials through shared memory,
/// then every warp reduces the partials (zero-padded to 32) by butterfly.
__device__ __forceinline__ float block_sum(float v, float* shared32) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  v = warp_sum(v);
  __syncthreads();  // shared32 may still be read by a previous reduction
  if (lane == 0) shared32[warp] = v;
  __syncthreads();
  v = lane < warps ? shared32[lane] : 0.0f;
  return warp_sum(v);
}

struct Welford {
  float n = 0.0f;  // counts stay exact in fp32 up to 2^24
  float mean = 0.0f;
  float m2 = 0.0f;
};

__device__ __forceinline__ void welford_push(Welford& s, float x) {
  s.n += 1.0f;
  const float d = x - s.mean;
  s.mean += d / s.n;  // IEEE division (no fast-math)
  s.m2 += d * (x - s.mean);
}

/// Chan, Golub & LeVeque: d = mu_b - mu_a, mu = mu_a + d n_b/n, M2 = M2_a + M2_b + d^2 n_a n_b / n.
__device__ __forceinline__ Welford chan_merge(const Welford& a, const Welford& b) {
  if (b.n == 0.0f) return a;
  if (a.n == 0.0f) return b;
  Welford r;
  r.n = a.n + b.n;
  const float d = b.mean - a.mean;
  r.mean = a.mean + d * (b.n / r.n);
  r.m2 = a.m2 + b.m2 + d * d * (a.n * b.n / r.n);
  return r;
}

__device__ __forceinline__ Welford shfl_xor(const Welford& s, int off) {
  Welford o;
  o.n = __shfl_xor_sync(0xffffffffu, s.n, off);
  o.mean = __shfl_xor_sync(0xffffffffu, s.mean, off);
  o.m2 = __shfl_xor_sync(0xffffffffu, s.m2, off);
  return o;
}

/// Butterfly Chan merge across the warp; all lanes end with identical state.
__device__ __forceinline__ Welford warp_welford(Welford s) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int off = 16; off >= 1; off >>= 1) {
    const Welford o = shfl_xor(s, off);
    s = (lane & off) ? chan_merge(o, s) : chan_merge(s, o);
  }
  return s;
}

/// Block Welford: warp butterflies, warp states through shared memory, then
/// every warp merges the (zero-count padded) states by butterfly.
__device__ __forceinline__ Welford block_welford(Welford s, Welford* shared32) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  s = warp_welford(s);
  __syncthreads();
  if (lane == 0) shared32[warp] = s;
  __syncthreads();
  s = lane < warps ? shared32[lane] : Welford{};
  return warp_welford(s);
}

}  // namespace normref::dev
