// Host launchers of the frontier kernels, shared by normref (the golden
// cases) and the benchmarks: the run-time shape of host/fast_shape.hpp
// becomes the kernel template it names.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "host/fast_shape.hpp"
#include "kernels/fast_norm.cuh"
#include "kernels/fused_bwd.cuh"

namespace normref::dev {

/// f(std::integral_constant<int, TH>{}) for a block of `threads` threads (a
/// power of two, 32..1024).
template <class F>
void with_threads(int threads, F&& f) {
  switch (threads) {
    case 32: f(std::integral_constant<int, 32>{}); break;
    case 64: f(std::integral_constant<int, 64>{}); break;
    case 128: f(std::integral_constant<int, 128>{}); break;
    case 256: f(std::integral_constant<int, 256>{}); break;
    case 512: f(std::integral_constant<int, 512>{}); break;
    default: f(std::integral_constant<int, 1024>{}); break;
  }
}

/// The function and launch geometry a launcher used (for attributes and the report).
struct LaunchInfo {
  const void* func = nullptr;
  int grid = 0, block = 0;
  int smem = 0;  ///< dynamic shared memory bytes
};

/// A launch of `grid` blocks in clusters of `cluster` (the attribute lives
/// in the struct, so copies stay valid).
struct ClusterLaunch {
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr{};
  ClusterLaunch(int grid, int block, int smem, int cluster, cudaStream_t st) {
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = st;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
};

/// Launches f on clusters of `cluster` blocks.
template <typename F, typename... Args>
cudaError_t launch_cluster(F* f, int grid, int block, int smem, int cluster, cudaStream_t st, Args... args) {
  ClusterLaunch l(grid, block, smem, cluster, st);
  return cudaLaunchKernelEx(&l.cfg, f, args...);
}

/// Clusters of f that the GPU holds at once (the occupancy calculator).
template <typename F>
int resident_clusters(F* f, int block, int smem, int cluster, cudaStream_t st) {
  ClusterLaunch l(cluster * 1024, block, smem, cluster, st);
  int n = 0;
  if (cudaOccupancyMaxActiveClusters(&n, f, &l.cfg) != cudaSuccess) return 1;
  return std::max(1, n);
}

/// fast_ln (RMS false) / fast_rms (RMS true) with parameters of type P;
/// LOAD/STORE: cache hints of the register scheme's x loads and y stores
/// (fast_norm_hinted, a benchmark variant; the shipped kernel's are
/// ShippedAccess: evict-last loads for fp32).
template <typename T, typename P, bool RMS, L2Hint LOAD = L2Hint::none, L2Hint STORE = L2Hint::none>
cudaError_t launch_fast_norm(const FastShape& s, T* y, float* mean, float* rstd, const T* x, const P* gamma,
                             const P* beta, int rows, int C, cudaStream_t st, LaunchInfo* info = nullptr) {
  LaunchInfo li;
  li.grid = static_cast<int>(s.grid(rows, 0));  // the cluster scheme's persistent grid: below
  li.block = s.block();
  cudaError_t err = cudaSuccess;
  if (s.scheme == FastScheme::registers) {
    constexpr int V = sizeof(T) == 4 ? 8 : 4;  // fast_max_vecs
    auto go = [&](auto th, auto vecs) {
      constexpr int TH = decltype(th)::value, VE = decltype(vecs)::value, R = 1;
      auto* f = [] {
        if constexpr (LOAD == L2Hint::none && STORE == L2Hint::none) return fast_norm<T, P, RMS, TH, VE, R>;
        else return fast_norm_hinted<T, P, RMS, TH, VE, R, LOAD, STORE>;
      }();
      li.func = reinterpret_cast<const void*>(f);
      f<<<li.grid, li.block, 0, st>>>(y, mean, rstd, x, gamma, beta, rows, C);
    };
    with_threads(s.threads_per_row, [&](auto th) {
      if constexpr (decltype(th)::value == 32) {
        // A warp per row holds exactly the vectors its row needs.
        switch (s.vecs) {
          case 1: go(th, std::integral_constant<int, 1>{}); break;
          case 2: go(th, std::integral_constant<int, 2>{}); break;
          case 3: go(th, std::integral_constant<int, 3>{}); break;
          case 4: go(th, std::integral_constant<int, 4>{}); break;
          case 5: go(th, std::integral_constant<int, (V >= 5 ? 5 : V)>{}); break;
          case 6: go(th, std::integral_constant<int, (V >= 6 ? 6 : V)>{}); break;
          case 7: go(th, std::integral_constant<int, (V >= 7 ? 7 : V)>{}); break;
          default: go(th, std::integral_constant<int, V>{}); break;
        }
      } else {
        // A block per row: 2, 4 or the maximum vectors a thread (fast_norm_shape).
        switch (s.vecs) {
          case 2: go(th, std::integral_constant<int, 2>{}); break;
          case 4: go(th, std::integral_constant<int, 4>{}); break;
          default: go(th, std::integral_constant<int, V>{}); break;
        }
      }
    });
  } else if (s.scheme == FastScheme::cluster) {
    constexpr int V = sizeof(T) == 4 ? 8 : 4;  // fast_max_vecs: 32 values a thread
    // gamma/beta staged in shared memory beside the half-row buffer where
    // both fit (bf16 at P = bf16: 192 KB for LayerNorm): the normalise then
    // reads no parameter bytes from the L2 (bf16 LayerNorm at C = 65536: 72%
    // -> 85% of the copy bandwidth, lab/records/h200/FAST_NORM.md).
    constexpr int kSmemBytes = stream_smem_bytes(sizeof(T), sizeof(P), RMS);
    int dev = 0, optin = 0;
    if (cudaError_t e = cudaGetDevice(&dev)) return e;
    if (cudaError_t e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) return e;
    // (Instantiated only where it can fit sm_90's 227 KiB, the largest opt-in.)
    constexpr bool kMayFit = kSmemBytes + kStreamStaticSmemBytes <= 227 * 1024;
    const bool params_smem = kMayFit && kSmemBytes + kStreamStaticSmemBytes <= optin;
    // Two blocks a row, or one (fast_norm_shape: bf16 rows a 1024-thread block holds thinly).
    auto go = [&](auto cluster) {
      constexpr int CL = decltype(cluster)::value;
      auto* f = fast_norm_cluster_stream<T, P, RMS, 1024, V, CL, true, false>;
      if constexpr (kMayFit)
        if (params_smem) f = fast_norm_cluster_stream<T, P, RMS, 1024, V, CL, true, true>;
      li.func = reinterpret_cast<const void*>(f);
      const int smem = params_smem ? kSmemBytes
                                   : static_cast<int>(std::min<int64_t>((C / Vec16<T>::kN + CL - 1) / CL, 1024 * V) * 16);
      if (cudaError_t e = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)) return e;
      li.grid = static_cast<int>(s.grid(rows, resident_clusters(f, 1024, smem, CL, st) * CL));
      li.smem = smem;
      return launch_cluster(f, li.grid, li.block, smem, CL, st, y, mean, rstd, x, gamma, beta, rows, C);
    };
    err = s.cluster == 1 ? go(std::integral_constant<int, 1>{}) : go(std::integral_constant<int, 2>{});
  } else {
    auto* f = fast_norm_two_sweep<T, P, RMS, 1024>;
    li.func = reinterpret_cast<const void*>(f);
    f<<<li.grid, li.block, 0, st>>>(y, mean, rstd, x, gamma, beta, rows, C);
  }
  if (info) *info = li;
  return err;
}

/// fused_residual: z = x + r, y = LN(z); one block of fused_residual_threads per row.
template <typename T>
LaunchInfo launch_fused_residual(T* z, T* y, float* mean, float* rstd, const T* x, const T* r, const float* gamma,
                                 const float* beta, int rows, int C, cudaStream_t st) {
  LaunchInfo li;
  li.grid = rows;
  li.block = fused_residual_threads(C, sizeof(T));
  with_threads(li.block, [&](auto th) {
    constexpr int TH = decltype(th)::value;
    auto* f = fused_residual_ln<T, TH, (sizeof(T) == 4 ? 8 : 4)>;
    li.func = reinterpret_cast<const void*>(f);
    f<<<li.grid, TH, 0, st>>>(z, y, mean, rstd, x, r, gamma, beta, rows, C);
  });
  return li;
}

/// fused_residual_dropout: z = dropout_p(x) + r, y = LN(z); fused_residual's shape.
template <typename T>
LaunchInfo launch_fused_residual_dropout(T* z, T* y, float* mean, float* rstd, const T* x, const T* r,
                                         const float* gamma, const float* beta, int rows, int C, uint64_t seed,
                                         double p, cudaStream_t st) {
  LaunchInfo li;
  li.grid = rows;
  li.block = fused_residual_threads(C, sizeof(T));
  const uint32_t threshold = normsim::rng::dropout_threshold(p);
  const float scale = normsim::rng::dropout_scale(p);
  with_threads(li.block, [&](auto th) {
    constexpr int TH = decltype(th)::value;
    auto* f = fused_residual_dropout_ln<T, TH, (sizeof(T) == 4 ? 8 : 4)>;
    li.func = reinterpret_cast<const void*>(f);
    f<<<li.grid, TH, 0, st>>>(z, y, mean, rstd, x, r, gamma, beta, rows, C, seed, threshold, scale);
  });
  return li;
}

/// f(std::integral_constant<int, TH>{}) for the backward's block: the
/// powers of two of with_threads, or a multiple of 32 that holds a row's
/// vectors exactly (96 or 288 threads: C = 768 or 2304 at one or two
/// vectors a thread; a lab variant, backward_threads picks powers of two).
template <class F>
void with_backward_threads(int threads, F&& f) {
  switch (threads) {
    case 96: f(std::integral_constant<int, 96>{}); break;
    case 288: f(std::integral_constant<int, 288>{}); break;
    default: with_threads(threads, f); break;
  }
}

/// The backward kernel's function for C at `threads` (0: backward_threads;
/// TWO_LEVEL: per-block partials; RMS: the RMSNorm backward).
template <typename T, bool TWO_LEVEL, bool RMS = false>
const void* backward_function(int C, int threads = 0) {
  const void* f = nullptr;
  with_backward_threads(threads ? threads : backward_threads(C, sizeof(T)), [&](auto th) {
    constexpr int TH = decltype(th)::value;
    f = reinterpret_cast<const void*>(ln_backward<T, TH, (sizeof(T) == 4 ? 2 : 1), TWO_LEVEL, RMS>);
  });
  return f;
}

/// Blocks of the backward's persistent grid: every SM full (the occupancy
/// calculator), never more than rows.
template <typename T, bool TWO_LEVEL, bool RMS = false>
int backward_blocks(int rows, int C, int threads = 0) {
  int sms = 0, per_sm = 0, dev = 0;
  if (!threads) threads = backward_threads(C, sizeof(T));
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, backward_function<T, TWO_LEVEL, RMS>(C, threads), threads, 0);
  return std::min(rows, sms * per_sm);
}

/// bwd_atomic (TWO_LEVEL false: dgamma/dbeta zeroed, then atomics) or
/// bwd_twolevel (partials[2 blocks][C], then bwd_column_sum); RMS: the
/// RMSNorm backward (dbeta neither read nor written: may be null; mean unread).
template <typename T, bool TWO_LEVEL, bool RMS = false>
cudaError_t launch_backward(T* dx, float* dgamma, float* dbeta, float* partial, const T* dy, const T* x,
                            const float* gamma, const float* mean, const float* rstd, int rows, int C, int blocks,
                            cudaStream_t st, LaunchInfo* info = nullptr, int threads = 0) {
  LaunchInfo li;
  li.grid = blocks;
  li.block = threads ? threads : backward_threads(C, sizeof(T));
  li.func = backward_function<T, TWO_LEVEL, RMS>(C, li.block);
  if (!TWO_LEVEL) {
    if (cudaError_t e = cudaMemsetAsync(dgamma, 0, C * sizeof(float), st)) return e;
    if (!RMS)
      if (cudaError_t e = cudaMemsetAsync(dbeta, 0, C * sizeof(float), st)) return e;
  }
  void* args[] = {&dx, &dgamma, &dbeta, &partial, const_cast<T**>(&dy), const_cast<T**>(&x),
                  const_cast<float**>(&gamma), const_cast<float**>(&mean), const_cast<float**>(&rstd), &rows, &C};
  if (cudaError_t e = cudaLaunchKernel(li.func, dim3(blocks), dim3(li.block), args, 0, st)) return e;
  if (TWO_LEVEL) bwd_column_sum<<<(C + 31) / 32, 1024, 0, st>>>(dgamma, RMS ? nullptr : dbeta, partial, blocks, C);
  if (info) *info = li;
  return cudaSuccess;
}

}  // namespace normref::dev
