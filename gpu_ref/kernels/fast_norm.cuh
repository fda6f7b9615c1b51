// fast_ln / fast_rms: LayerNorm and RMSNorm forward at the memory roofline.
// Each row is held in registers (THREADS threads x VECS 16-byte vectors each:
// x is read from DRAM exactly once and y written once, 128 bits at a time);
// statistics are exact two-pass ones
// from the registers (mean, then sum of squared deviations), in fp32.
// THREADS = 32: a warp per row (ROWS rows a block), reduced by shuffles;
// THREADS > 32: a block per row, warp partials through shared memory; rows
// longer than a block's registers: a cluster of blocks per row on a
// persistent grid that streams the next row into shared memory
// (fast_norm_cluster_stream), or two sweeps over x (fast_norm_two_sweep).
// gamma/beta (type P: fp32, or bf16 like the input, as torch keeps them) are
// read through the read-only cache, except by the streamed cluster at bf16,
// which stages its blocks' shares in shared memory once.
#pragma once

#include <type_traits>

#include "kernels/common.cuh"

namespace normref::dev {

// Plain 128-bit loads and stores: on the H200 they stream 5-7% faster here
// than the evict-first __ldcs/__stcs pair (fast_norm_bench, variants).
template <typename T>
__device__ __forceinline__ Vec16<T> fast_load(const T* p) {
  Vec16<T> r;
  *reinterpret_cast<int4*>(&r) = *reinterpret_cast<const int4*>(p);
  return r;
}
template <typename T>
__device__ __forceinline__ void fast_store(T* p, const Vec16<T>& v) {
  *reinterpret_cast<int4*>(p) = *reinterpret_cast<const int4*>(&v);
}

// Cache hints a kernel's 16-byte accesses can carry (PTX ld/st qualifiers):
// an L2 evict-first or evict-last policy (createpolicy + .L2::cache_hint, L1
// not allocated), or a 256-byte L2 prefetch on loads. The shipped fp32
// register kernel loads x evict-last (ShippedAccess, below); fast_norm_bench
// measures the others beside it.
enum class L2Hint { none, evict_first, prefetch_256, evict_last, evict_last_l1, evict_last_demoted, l1_no_allocate, l1_evict_first };

template <L2Hint H>
__device__ __forceinline__ uint64_t l2_policy() {
  uint64_t policy;
  if constexpr (H == L2Hint::evict_last || H == L2Hint::evict_last_l1 || H == L2Hint::evict_last_demoted)
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  else
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

template <L2Hint LOAD, L2Hint STORE>
struct HintedAccess {
  template <typename T>
  __device__ __forceinline__ static Vec16<T> load(const T* p) {
    if constexpr (LOAD == L2Hint::none) {
      return fast_load(p);
    } else {
      int4 w;
      if constexpr (LOAD == L2Hint::prefetch_256) {
        asm volatile("ld.global.L2::256B.v4.s32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
                     : "l"(p));
      } else if constexpr (LOAD == L2Hint::l1_no_allocate) {  // x bypasses the L1: gamma/beta stay there
        asm volatile("ld.global.L1::no_allocate.v4.s32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
                     : "l"(p));
      } else if constexpr (LOAD == L2Hint::l1_evict_first) {
        asm volatile("ld.global.L1::evict_first.v4.s32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
                     : "l"(p));
      } else if constexpr (LOAD == L2Hint::evict_last_l1) {  // evict-last in the L2, allocated in the L1
        asm volatile("ld.global.L2::cache_hint.v4.s32 {%0, %1, %2, %3}, [%4], %5;"
                     : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
                     : "l"(p), "l"(l2_policy<LOAD>()));
      } else if constexpr (LOAD == L2Hint::evict_last_demoted) {
        // evict-last while the row is in flight, then the line back to
        // normal priority once its value is in registers (what Inductor's
        // evict-first second read of x does)
        asm volatile("ld.global.L1::no_allocate.L2::cache_hint.v4.s32 {%0, %1, %2, %3}, [%4], %5;"
                     : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
                     : "l"(p), "l"(l2_policy<LOAD>()));
        const uint64_t line = reinterpret_cast<uint64_t>(p) & ~uint64_t(127);
        asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(line), "r"(w.x) : "memory");
      } else {
        asm volatile("ld.global.L1::no_allocate.L2::cache_hint.v4.s32 {%0, %1, %2, %3}, [%4], %5;"
                     : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
                     : "l"(p), "l"(l2_policy<LOAD>()));
      }
      Vec16<T> r;
      *reinterpret_cast<int4*>(&r) = w;
      return r;
    }
  }
  template <typename T>
  __device__ __forceinline__ static void store(T* p, const Vec16<T>& v) {
    if constexpr (STORE != L2Hint::evict_first && STORE != L2Hint::evict_last) {
      fast_store(p, v);
    } else {
      const int4 w = *reinterpret_cast<const int4*>(&v);
      asm volatile("st.global.L1::no_allocate.L2::cache_hint.v4.s32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(p), "r"(w.x),
                   "r"(w.y), "r"(w.z), "r"(w.w), "l"(l2_policy<STORE>())
                   : "memory");
    }
  }
};
using PlainAccess = HintedAccess<L2Hint::none, L2Hint::none>;

// kN parameters (gamma or beta) from element e, as fp32: P float (float4
// loads) or bf16 (one 16-byte load per 8).
template <typename P, int kN>
__device__ __forceinline__ void load_params(const P* __restrict__ p, int64_t e, float (&out)[kN]) {
  if constexpr (sizeof(P) == 4) {
#pragma unroll
    for (int j = 0; j < kN; j += 4) {
      const float4 v = __ldg(reinterpret_cast<const float4*>(p + e) + j / 4);
      out[j] = v.x, out[j + 1] = v.y, out[j + 2] = v.z, out[j + 3] = v.w;
    }
  } else {
#pragma unroll
    for (int j = 0; j < kN; j += 8) {
      Vec16<P> v;
      *reinterpret_cast<int4*>(&v) = __ldg(reinterpret_cast<const int4*>(p + e) + j / 8);
#pragma unroll
      for (int u = 0; u < 8; ++u) out[j + u] = to_f(v.v[u]);
    }
  }
}

template <int THREADS>
__device__ __forceinline__ float row_sum(float v, float* smem) {
  if constexpr (THREADS <= 32) {
    return warp_sum(v);
  } else {
    constexpr int kWarps = THREADS / 32;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) smem[warp] = v;
    __syncthreads();
    v = lane < kWarps ? smem[lane] : 0.0f;
    return warp_sum(v);
  }
}

/// Two row sums at once, each in row_sum's order (so each is bit for bit
/// row_sum's): one shared-memory stage, half the barriers.
template <int THREADS>
__device__ __forceinline__ float2 row_sum2(float a, float b, float2* smem) {
  if constexpr (THREADS <= 32) {
    return make_float2(warp_sum(a), warp_sum(b));
  } else {
    constexpr int kWarps = THREADS / 32;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    a = warp_sum(a);
    b = warp_sum(b);
    __syncthreads();
    if (lane == 0) smem[warp] = make_float2(a, b);
    __syncthreads();
    const float2 v = lane < kWarps ? smem[lane] : make_float2(0.0f, 0.0f);
    return make_float2(warp_sum(v.x), warp_sum(v.y));
  }
}

// y for the 16-byte vector i of a row (value(j): its element j as fp32):
// n = (x - mean) rstd, y = n g (+ b) -- every fast_norm kernel's normalise,
// with g and b already in registers.
template <typename T, bool RMS, class Access = PlainAccess, class Value>
__device__ __forceinline__ void normalize_with(T* __restrict__ yr, const float (&g)[Vec16<T>::kN],
                                               const float (&b)[Vec16<T>::kN], int i, float mean, float rstd,
                                               Value&& value) {
  constexpr int kN = Vec16<T>::kN;
  Vec16<T> o;
#pragma unroll
  for (int j = 0; j < kN; ++j) {
    const float n = (value(j) - mean) * rstd;
    o.v[j] = from_f<T>(RMS ? n * g[j] : n * g[j] + b[j]);
  }
  Access::store(yr + static_cast<int64_t>(i) * kN, o);
}

// The same, gamma and beta read from global memory (through the L1).
template <typename T, typename P, bool RMS, class Access = PlainAccess, class Value>
__device__ __forceinline__ void normalize_vector(T* __restrict__ yr, const P* __restrict__ gamma,
                                                 const P* __restrict__ beta, int i, float mean, float rstd,
                                                 Value&& value) {
  constexpr int kN = Vec16<T>::kN;
  float g[kN], b[kN];
  load_params(gamma, static_cast<int64_t>(i) * kN, g);
  if constexpr (!RMS) load_params(beta, static_cast<int64_t>(i) * kN, b);
  normalize_with<T, RMS, Access>(yr, g, b, i, mean, rstd, static_cast<Value&&>(value));
}

// The same for the vectors t, t + STRIDE, ... a thread holds (value(k, j)).
template <typename T, typename P, bool RMS, int STRIDE, int VECS, class Access = PlainAccess, class Value>
__device__ __forceinline__ void normalize_store(T* __restrict__ yr, const P* __restrict__ gamma,
                                                const P* __restrict__ beta, int t, int nvec, float mean, float rstd,
                                                Value&& value) {
#pragma unroll
  for (int k = 0; k < VECS; ++k) {
    const int i = t + k * STRIDE;
    if (i < nvec)
      normalize_vector<T, P, RMS, Access>(yr, gamma, beta, i, mean, rstd, [&](int j) { return value(k, j); });
  }
}

template <typename T, typename P, bool RMS, int THREADS, int VECS, int ROWS, class Access>
__device__ __forceinline__ void fast_norm_rows(T* __restrict__ y, float* __restrict__ mean_out,
                                               float* __restrict__ rstd_out, const T* __restrict__ x,
                                               const P* __restrict__ gamma, const P* __restrict__ beta, int rows,
                                               int C) {
  constexpr int kN = Vec16<T>::kN;
  __shared__ float smem[32];
  const int t = THREADS <= 32 ? threadIdx.x % 32 : threadIdx.x;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * ROWS + (THREADS <= 32 ? threadIdx.x / 32 : 0);
  if (row >= rows) return;  // whole warps (or the whole block) leave together
  const int nvec = C / kN;
  const T* xr = x + row * C;
  float v[VECS][kN];
#pragma unroll
  for (int k = 0; k < VECS; ++k) {
    const int i = t + k * THREADS;
    if (i < nvec) {
      const Vec16<T> a = Access::load(xr + static_cast<int64_t>(i) * kN);
#pragma unroll
      for (int j = 0; j < kN; ++j) v[k][j] = to_f(a.v[j]);
    } else {
#pragma unroll
      for (int j = 0; j < kN; ++j) v[k][j] = 0.0f;
    }
  }
  float mean = 0.0f;
  if constexpr (!RMS) {
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < VECS; ++k)
#pragma unroll
      for (int j = 0; j < kN; ++j) s += v[k][j];
    mean = row_sum<THREADS>(s, smem) / static_cast<float>(C);
  }
  float q = 0.0f;
#pragma unroll
  for (int k = 0; k < VECS; ++k) {
    if (t + k * THREADS < nvec) {
#pragma unroll
      for (int j = 0; j < kN; ++j) {
        const float d = v[k][j] - mean;
        q += d * d;
      }
    }
  }
  const float var = row_sum<THREADS>(q, smem) / static_cast<float>(C);
  const float rstd = rsqrtf(var + kEps);
  if (t == 0) {
    rstd_out[row] = rstd;
    if constexpr (!RMS) mean_out[row] = mean;
  }
  normalize_store<T, P, RMS, THREADS, VECS, Access>(y + row * C, gamma, beta, t, nvec, mean, rstd,
                                                    [&](int k, int j) { return v[k][j]; });
}

// The shipped loads of x: fp32 with the L2 evict-last policy (x's lines
// outlast y's dirty ones in the L2; a copy with such loads streams 1.5-3.5%
// faster than a plain one, copy_shape_probe), 99-100.6% of the plain copy
// against 96-98% with plain loads; bf16 plain (evict-last loses 5-30 points
// there). fast_norm_bench, lab/records/h200/fast_norm_evict_last*.jsonl.
template <typename T>
using ShippedAccess = std::conditional_t<sizeof(T) == 4, HintedAccess<L2Hint::evict_last, L2Hint::none>, PlainAccess>;

template <typename T, typename P, bool RMS, int THREADS, int VECS, int ROWS>
__global__ void __launch_bounds__(THREADS * ROWS) fast_norm(T* __restrict__ y, float* __restrict__ mean_out,
                                                            float* __restrict__ rstd_out, const T* __restrict__ x,
                                                            const P* __restrict__ gamma, const P* __restrict__ beta,
                                                            int rows, int C) {
  fast_norm_rows<T, P, RMS, THREADS, VECS, ROWS, ShippedAccess<T>>(y, mean_out, rstd_out, x, gamma, beta, rows, C);
}

// fast_norm with cache hints on its x loads and y stores (a benchmark variant).
template <typename T, typename P, bool RMS, int THREADS, int VECS, int ROWS, L2Hint LOAD, L2Hint STORE>
__global__ void __launch_bounds__(THREADS * ROWS) fast_norm_hinted(T* __restrict__ y, float* __restrict__ mean_out,
                                                                   float* __restrict__ rstd_out,
                                                                   const T* __restrict__ x, const P* __restrict__ gamma,
                                                                   const P* __restrict__ beta, int rows, int C) {
  fast_norm_rows<T, P, RMS, THREADS, VECS, ROWS, HintedAccess<LOAD, STORE>>(y, mean_out, rstd_out, x, gamma, beta,
                                                                             rows, C);
}

// Warp-per-row rows (C <= 32 x VECS x 16 B), software-pipelined: a
// persistent grid in which each warp walks rows row0, row0 + stride, ...
// and issues the next row's loads before it reduces and stores the current
// one, so a warp always has a row's bytes in flight. The arithmetic of each
// row is fast_norm's, in the same order: the same bits.
template <typename T, typename P, bool RMS, int VECS, int ROWS>
__global__ void __launch_bounds__(32 * ROWS) fast_norm_pipelined(T* __restrict__ y, float* __restrict__ mean_out,
                                                                 float* __restrict__ rstd_out, const T* __restrict__ x,
                                                                 const P* __restrict__ gamma,
                                                                 const P* __restrict__ beta, int rows, int C) {
  constexpr int kN = Vec16<T>::kN;
  const int t = threadIdx.x % 32;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * ROWS;
  int64_t row = static_cast<int64_t>(blockIdx.x) * ROWS + threadIdx.x / 32;
  const int nvec = C / kN;
  auto load_row = [&](int64_t r, Vec16<T> (&dst)[VECS]) {
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
      const int i = t + k * 32;
      if (r < rows && i < nvec) {
        dst[k] = fast_load(x + r * C + static_cast<int64_t>(i) * kN);
      } else {
#pragma unroll
        for (int j = 0; j < kN; ++j) dst[k].v[j] = from_f<T>(0.0f);
      }
    }
  };
  Vec16<T> cur[VECS], nxt[VECS];
  load_row(row, cur);
  for (; row < rows; row += stride) {
    load_row(row + stride, nxt);  // in flight while this row reduces and stores
    float mean = 0.0f;
    if constexpr (!RMS) {
      float s = 0.0f;
#pragma unroll
      for (int k = 0; k < VECS; ++k)
#pragma unroll
        for (int j = 0; j < kN; ++j) s += to_f(cur[k].v[j]);
      mean = warp_sum(s) / static_cast<float>(C);
    }
    float q = 0.0f;
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
      if (t + k * 32 < nvec) {
#pragma unroll
        for (int j = 0; j < kN; ++j) {
          const float d = to_f(cur[k].v[j]) - mean;
          q += d * d;
        }
      }
    }
    const float rstd = rsqrtf(warp_sum(q) / static_cast<float>(C) + kEps);
    if (t == 0) {
      rstd_out[row] = rstd;
      if constexpr (!RMS) mean_out[row] = mean;
    }
    normalize_store<T, P, RMS, 32, VECS>(y + row * C, gamma, beta, t, nvec, mean, rstd,
                                         [&](int k, int j) { return to_f(cur[k].v[j]); });
#pragma unroll
    for (int k = 0; k < VECS; ++k) cur[k] = nxt[k];
  }
}

// Rows too long for the registers (more than 32 values a thread at 1024
// threads): two sweeps over x by one block per row. The first reads with the
// default (L2-allocating) policy and accumulates sum and sum of squares of
// x - x[0] (the shift keeps the single-pass variance away from cancellation
// for rows whose mean is large against their spread); the second re-reads x
// -- from the L2, where 132 rows in flight of 256 KiB stay -- with
// evict-first loads, normalises and streams y out.
template <typename T, typename P, bool RMS, int THREADS, class FirstAccess, class Access>
__device__ __forceinline__ void fast_norm_two_sweep_row(T* __restrict__ y, float* __restrict__ mean_out,
                                                        float* __restrict__ rstd_out, const T* __restrict__ x,
                                                        const P* __restrict__ gamma, const P* __restrict__ beta,
                                                        int rows, int C) {
  constexpr int kN = Vec16<T>::kN;
  __shared__ float smem[32];
  const int64_t row = blockIdx.x;
  const int nvec = C / kN;
  const T* xr = x + row * C;
  const float shift = RMS ? 0.0f : to_f(xr[0]);
  float s = 0.0f, q = 0.0f;
  for (int i = threadIdx.x; i < nvec; i += THREADS) {
    const Vec16<T> a = FirstAccess::load(xr + static_cast<int64_t>(i) * kN);
#pragma unroll
    for (int j = 0; j < kN; ++j) {
      const float d = to_f(a.v[j]) - shift;
      s += d;
      q += d * d;
    }
  }
  const float S = row_sum<THREADS>(s, smem), Q = row_sum<THREADS>(q, smem);
  const float m = S / static_cast<float>(C);
  const float mean = RMS ? 0.0f : shift + m;
  const float var = RMS ? Q / static_cast<float>(C) : fmaxf(Q / static_cast<float>(C) - m * m, 0.0f);
  const float rstd = rsqrtf(var + kEps);
  if (threadIdx.x == 0) {
    rstd_out[row] = rstd;
    if constexpr (!RMS) mean_out[row] = mean;
  }
  T* yr = y + row * C;
  for (int i = threadIdx.x; i < nvec; i += THREADS) {
    // The last use of x: evict-first here measured 77-85% of the copy at
    // bf16 C = 65536 against 64-76% with plain loads.
    const Vec16<T> a = load16_cs(xr + static_cast<int64_t>(i) * kN);
    normalize_vector<T, P, RMS, Access>(yr, gamma, beta, i, mean, rstd, [&](int j) { return to_f(a.v[j]); });
  }
}

template <typename T, typename P, bool RMS, int THREADS>
__global__ void __launch_bounds__(THREADS) fast_norm_two_sweep(T* __restrict__ y, float* __restrict__ mean_out,
                                                               float* __restrict__ rstd_out, const T* __restrict__ x,
                                                               const P* __restrict__ gamma,
                                                               const P* __restrict__ beta, int rows, int C) {
  fast_norm_two_sweep_row<T, P, RMS, THREADS, PlainAccess, PlainAccess>(y, mean_out, rstd_out, x, gamma, beta, rows,
                                                                        C);
}

// The two sweeps with cache hints on the first sweep's loads and on the
// stores of y (a benchmark variant: keeping x in the L2 for the second sweep).
template <typename T, typename P, bool RMS, int THREADS, L2Hint FIRST, L2Hint STORE>
__global__ void __launch_bounds__(THREADS)
    fast_norm_two_sweep_hinted(T* __restrict__ y, float* __restrict__ mean_out, float* __restrict__ rstd_out,
                               const T* __restrict__ x, const P* __restrict__ gamma, const P* __restrict__ beta,
                               int rows, int C) {
  fast_norm_two_sweep_row<T, P, RMS, THREADS, HintedAccess<FIRST, L2Hint::none>, HintedAccess<L2Hint::none, STORE>>(
      y, mean_out, rstd_out, x, gamma, beta, rows, C);
}

// Mean (0 for RMSNorm) and variance (mean square) of a row whose values the
// blocks of a cluster hold: v[k] counts where threadIdx.x + k x THREADS <
// mine. `exchange(block_sum, slot)` returns the cluster's total of the block
// sums, every block adding the CLUSTER partials in rank order, so all get
// the same bits; exact two-pass statistics.
template <bool RMS, int THREADS, int VECS, int kN, class Exchange>
__device__ __forceinline__ float2 cluster_row_statistics(const float (&v)[VECS][kN], int mine, int C, float* smem,
                                                         Exchange&& exchange) {
  auto cluster_sum = [&](float local, int slot) { return exchange(row_sum<THREADS>(local, smem), slot); };
  float mean = 0.0f;
  if constexpr (!RMS) {
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < VECS; ++k)
#pragma unroll
      for (int j = 0; j < kN; ++j) s += v[k][j];
    mean = cluster_sum(s, 0) / static_cast<float>(C);
  }
  float q = 0.0f;
#pragma unroll
  for (int k = 0; k < VECS; ++k) {
    if (threadIdx.x + k * THREADS < mine) {
#pragma unroll
      for (int j = 0; j < kN; ++j) {
        const float d = v[k][j] - mean;
        q += d * d;
      }
    }
  }
  return make_float2(mean, cluster_sum(q, 1) / static_cast<float>(C));
}

// Rows longer than one block's registers: a cluster of CLUSTER blocks per
// row (one per SM), each holding 1/CLUSTER of the row in registers; the
// blocks' partial sums meet through distributed shared memory, added in rank
// order so every block gets the same bits.
template <typename T, typename P, bool RMS, int THREADS, int VECS, int CLUSTER>
__global__ void __launch_bounds__(THREADS) fast_norm_cluster(T* __restrict__ y, float* __restrict__ mean_out,
                                                             float* __restrict__ rstd_out, const T* __restrict__ x,
                                                             const P* __restrict__ gamma,
                                                             const P* __restrict__ beta, int rows, int C) {
  constexpr int kN = Vec16<T>::kN;
  __shared__ float smem[32];
  __shared__ float partial[2];
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int64_t row = blockIdx.x / CLUSTER;
  const int nvec = C / kN;
  const int per_block = (nvec + CLUSTER - 1) / CLUSTER;
  const int first = rank * per_block;
  const T* xr = x + row * C;
  float v[VECS][kN];
#pragma unroll
  for (int k = 0; k < VECS; ++k) {
    const int i = first + threadIdx.x + k * THREADS;
    if (i < nvec && threadIdx.x + k * THREADS < per_block) {
      const Vec16<T> a = fast_load(xr + static_cast<int64_t>(i) * kN);
#pragma unroll
      for (int j = 0; j < kN; ++j) v[k][j] = to_f(a.v[j]);
    } else {
#pragma unroll
      for (int j = 0; j < kN; ++j) v[k][j] = 0.0f;
    }
  }
  const int mine = max(0, min(per_block, nvec - first));
  // Block sums through distributed shared memory, a cluster barrier each.
  auto exchange = [&](float b, int slot) {
    if (threadIdx.x == 0) partial[slot] = b;
    cluster.sync();
    float total = 0.0f;
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r) total += *cluster.map_shared_rank(&partial[slot], r);
    return total;
  };
  const float2 st = cluster_row_statistics<RMS, THREADS, VECS>(v, mine, C, smem, exchange);
  const float mean = st.x, var = st.y;
  cluster.sync();  // no block leaves while another may still read its partials
  const float rstd = rsqrtf(var + kEps);
  if (rank == 0 && threadIdx.x == 0) {
    rstd_out[row] = rstd;
    if constexpr (!RMS) mean_out[row] = mean;
  }
  T* yr = y + row * C;
#pragma unroll
  for (int k = 0; k < VECS; ++k) {
    const int i = first + threadIdx.x + k * THREADS;
    if (i < nvec && threadIdx.x + k * THREADS < per_block)
      normalize_vector<T, P, RMS>(yr, gamma, beta, i, mean, rstd, [&](int j) { return v[k][j]; });
  }
}

// Bulk asynchronous copies (sm_90's TMA, 1-D form) into shared memory,
// completed on an mbarrier: the copy engine fetches a whole half-row while
// the threads work on the previous one.
__device__ __forceinline__ uint32_t smem_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbarrier_init(uint64_t* bar, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_address(bar)), "r"(arrivals) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
/// The barrier's current phase also waits for `bytes` of asynchronous
/// transfers (bulk copies, st.async) to land; one arrival.
__device__ __forceinline__ void mbarrier_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)), "r"(bytes)
               : "memory");
}
/// One thread: `bytes` (a multiple of 16) from global `src` to shared `dst`,
/// counted on `bar`, whose expected bytes the caller has set.
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   smem_address(dst)),
               "l"(src), "r"(bytes), "r"(smem_address(bar))
               : "memory");
}
/// One thread: a bulk copy the barrier's phase completes on.
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  // Earlier generic-proxy reads of dst come before the copy engine's writes.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  mbarrier_expect_tx(bar, bytes);
  bulk_copy(dst, src, bytes, bar);
}
__device__ __forceinline__ void mbarrier_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(smem_address(bar)), "r"(parity)
        : "memory");
  } while (!done);
}

/// One thread: 4 bytes into shared memory `local` of cluster block `rank`
/// (the same offset there), completing that block's barrier `bar` (its
/// offset likewise) -- no fence on this thread's other memory traffic.
__device__ __forceinline__ void st_async_to_rank(float* local, float value, uint64_t* bar, int rank) {
  uint32_t dst, dst_bar;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dst) : "r"(smem_address(local)), "r"(rank));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dst_bar) : "r"(smem_address(bar)), "r"(rank));
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(dst),
               "r"(__float_as_uint(value)), "r"(dst_bar)
               : "memory");
}

/// The cluster's block sums by message: each block's thread 0 stores its sum
/// into every block's inbox (st.async) and their barriers count the bytes;
/// a block waits only for the CLUSTER sums to land. A cluster barrier would
/// also make every thread wait for its earlier stores of y to drain (its
/// release semantics): ncu showed that wait ("membar") as the largest stall
/// of the streamed kernel. Inboxes and barriers alternate by exchange, so a
/// block one exchange ahead never overwrites sums still being read.
template <int CLUSTER>
struct ClusterMailbox {
  float* inbox;        ///< [2][CLUSTER] in this block's shared memory
  uint64_t* arrived;   ///< [2] barriers, one arrival (the local expect) + CLUSTER x 4 bytes a phase
  int rank;
  uint32_t exchanges = 0;
  __device__ float operator()(float block_sum, int /*slot*/) {
    const uint32_t buf = exchanges & 1, parity = (exchanges >> 1) & 1;
    ++exchanges;
    if (threadIdx.x == 0) {
      mbarrier_expect_tx(&arrived[buf], CLUSTER * 4);
#pragma unroll
      for (int r = 0; r < CLUSTER; ++r) st_async_to_rank(&inbox[buf * CLUSTER + rank], block_sum, &arrived[buf], r);
    }
    // One thread waits; the block barrier (CTA scope: no wait for y's stores
    // to reach the L2) passes the landed sums on to the others.
    if (threadIdx.x == 0) mbarrier_wait(&arrived[buf], parity);
    __syncthreads();
    float total = 0.0f;
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r) total += inbox[buf * CLUSTER + r];
    return total;
  }
};

// fast_norm_cluster's arithmetic (the same bits) on a persistent grid of
// clusters that walk rows row0, row0 + clusters, ...: each block keeps its
// half of the current row in registers while the copy engine brings its half
// of the next row into shared memory, so DRAM reads continue through the
// reductions and the stores (one block an SM leaves nothing else to overlap
// them). Dynamic shared memory: one half-row, per_block x 16 bytes; with
// PARAMS_SMEM also the block's share of gamma (and beta), brought in once,
// so the normalise reads them from shared memory instead of from the L2
// every row (as many bytes as x at P = T); its size: stream_smem_bytes.
template <typename T, typename P, bool RMS, int THREADS, int VECS, int CLUSTER, bool MAILBOX, bool PARAMS_SMEM = false>
__global__ void __launch_bounds__(THREADS, 1024 / THREADS)  // 64 registers a thread: 1024 threads an SM
    fast_norm_cluster_stream(T* __restrict__ y, float* __restrict__ mean_out, float* __restrict__ rstd_out,
                             const T* __restrict__ x, const P* __restrict__ gamma, const P* __restrict__ beta,
                             int rows, int C) {
  constexpr int kN = Vec16<T>::kN;
  extern __shared__ __align__(128) unsigned char stream_smem[];
  Vec16<T>* buffer = reinterpret_cast<Vec16<T>*>(stream_smem);
  // gamma then beta (PARAMS_SMEM): this block's per_block x kN of each.
  P* const params = reinterpret_cast<P*>(stream_smem + THREADS * VECS * 16);
  __shared__ float smem[32];
  __shared__ float inbox[2 * CLUSTER];
  __shared__ __align__(8) uint64_t landed, arrived[2], params_landed;
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int64_t clusters = gridDim.x / CLUSTER;
  const int nvec = C / kN;
  const int per_block = (nvec + CLUSTER - 1) / CLUSTER;
  const int first = rank * per_block;
  const int mine = max(0, min(per_block, nvec - first));  // vectors of a row this block holds
  int64_t row = blockIdx.x / CLUSTER;
  if (threadIdx.x == 0) {
    mbarrier_init(&landed, 1);
    mbarrier_init(&arrived[0], 1);
    mbarrier_init(&arrived[1], 1);
    if (row < rows && mine > 0) bulk_load(buffer, x + row * C + static_cast<int64_t>(first) * kN, mine * 16u, &landed);
    if constexpr (PARAMS_SMEM) {
      mbarrier_init(&params_landed, 1);
      if (mine > 0) {
        // Both land on one barrier: its expected bytes are the sum of the two copies.
        const uint32_t bytes = mine * kN * static_cast<uint32_t>(sizeof(P));
        const int64_t e0 = static_cast<int64_t>(first) * kN;
        mbarrier_expect_tx(&params_landed, RMS ? bytes : 2 * bytes);
        bulk_copy(params, gamma + e0, bytes, &params_landed);
        if constexpr (!RMS) bulk_copy(params + THREADS * VECS * kN, beta + e0, bytes, &params_landed);
      }
    }
  }
  cluster.sync();  // every block's barriers exist before any sum is sent to them
  ClusterMailbox<CLUSTER> mailbox{inbox, arrived, rank};
  // The alternative: block sums through distributed shared memory and a
  // cluster barrier per exchange (alternating slots by exchange).
  uint32_t barrier_exchanges = 0;
  auto by_barrier = [&](float b, int) {
    float* slot = &inbox[(barrier_exchanges++ & 1) * CLUSTER];
    if (threadIdx.x == 0) slot[0] = b;
    cluster.sync();
    float total = 0.0f;
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r) total += *cluster.map_shared_rank(slot, r);
    return total;
  };
  uint32_t parity = 0;
  if constexpr (PARAMS_SMEM)
    if (mine > 0) mbarrier_wait(&params_landed, 0);
  for (; row < rows; row += clusters) {
    if (mine > 0) mbarrier_wait(&landed, parity);
    parity ^= 1;
    float v[VECS][kN];
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
      const int i = threadIdx.x + k * THREADS;
      if (i < mine) {
        const Vec16<T> a = buffer[i];
#pragma unroll
        for (int j = 0; j < kN; ++j) v[k][j] = to_f(a.v[j]);
      } else {
#pragma unroll
        for (int j = 0; j < kN; ++j) v[k][j] = 0.0f;
      }
    }
    __syncthreads();  // the buffer is free: fetch the next row while this one is reduced and stored
    const int64_t next = row + clusters;
    if (threadIdx.x == 0 && next < rows && mine > 0)
      bulk_load(buffer, x + next * C + static_cast<int64_t>(first) * kN, mine * 16u, &landed);
    float2 st;
    if constexpr (MAILBOX) st = cluster_row_statistics<RMS, THREADS, VECS>(v, mine, C, smem, mailbox);
    else st = cluster_row_statistics<RMS, THREADS, VECS>(v, mine, C, smem, by_barrier);
    const float mean = st.x, var = st.y;
    const float rstd = rsqrtf(var + kEps);
    if (rank == 0 && threadIdx.x == 0) {
      rstd_out[row] = rstd;
      if constexpr (!RMS) mean_out[row] = mean;
    }
    T* yr = y + row * C;
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
      const int i = threadIdx.x + k * THREADS;
      if (i >= mine) continue;
      if constexpr (PARAMS_SMEM) {
        // kN parameters: kPV 16-byte shared-memory loads each of gamma and beta.
        constexpr int kPN = Vec16<P>::kN, kPV = kN / kPN;
        const Vec16<P>* gs = reinterpret_cast<const Vec16<P>*>(params) + i * kPV;
        float g[kN], b[kN];
#pragma unroll
        for (int u = 0; u < kPV; ++u) {
          const Vec16<P> a = gs[u];
#pragma unroll
          for (int q = 0; q < kPN; ++q) g[u * kPN + q] = to_f(a.v[q]);
          if constexpr (!RMS) {
            const Vec16<P> c = gs[THREADS * VECS * kPV + u];
#pragma unroll
            for (int q = 0; q < kPN; ++q) b[u * kPN + q] = to_f(c.v[q]);
          }
        }
        normalize_with<T, RMS>(yr, g, b, first + i, mean, rstd, [&](int j) { return v[k][j]; });
      } else {
        normalize_vector<T, P, RMS>(yr, gamma, beta, first + i, mean, rstd, [&](int j) { return v[k][j]; });
      }
    }
  }
  cluster.sync();  // no block leaves while another may still send to it
}

}  // namespace normref::dev
