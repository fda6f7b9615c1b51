// normref's launches: the device buffers of one run, and one launcher per
// kernel (its grid, block and shared memory, as the SIMT model plans them
// from gpu_ref/host/kernel_table.hpp and fast_shape.hpp), chosen by KernelId.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "host/normref_args.hpp"
#include "kernels/fast_launch.cuh"
#include "kernels/ladder.cuh"
#include "kernels/welford_rms.cuh"

#define CUDA_OK(call)                                                                               \
  do {                                                                                              \
    cudaError_t e_ = (call);                                                                        \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "normref: CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, \
                   __LINE__, cudaGetErrorString(e_));                                               \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

namespace normref {

struct Buffers {
  void* x = nullptr;
  void* y = nullptr;        ///< y; the backward's dx
  float* mean = nullptr;    ///< written by the forward kernels, read by the backward
  float* rstd = nullptr;
  float* w = nullptr;
  float* b = nullptr;
  void* w_in = nullptr;     ///< gamma/beta in the input's type (fast_* bf16), else w and b
  void* b_in = nullptr;
  void* r = nullptr;        ///< fused_residual: the residual input
  void* z = nullptr;        ///< fused_residual: z = x + r
  void* dy = nullptr;       ///< backward: the output gradient
  float* dgamma = nullptr;  ///< backward: parameter gradients
  float* dbeta = nullptr;
  float* partial = nullptr; ///< bwd_twolevel: [2 blocks][C] per-block partials
  int bwd_blocks = 0;       ///< the backward's persistent grid
};

struct Launch {
  std::string ran;       ///< kernel actually launched (v6 may fall back to v5)
  int grid = 0, block = 0;
  size_t smem = 0;
  const void* func = nullptr;  ///< the main kernel, for its attributes
};

template <int VPT, typename T>
void launch_wwr(const Buffers& B, int N, int C, int block, cudaStream_t st, Launch& L) {
  const int warps = block / 32;
  L.grid = (N + warps - 1) / warps;
  L.func = reinterpret_cast<const void*>(dev::welford_warp_reg<T, VPT>);
  dev::welford_warp_reg<T, VPT><<<L.grid, block, 0, st>>>(static_cast<T*>(B.y), B.mean, B.rstd,
                                                            static_cast<const T*>(B.x), B.w, B.b, N, C);
}

// One launch at element type T: what every kernel's launcher needs.
template <typename T>
struct LaunchArgs {
  const Args& a;
  const Buffers& B;
  cudaStream_t st;
  KernelId k;
  int N, C, block, warps;
  T* y;
  const T* x;
};
// Launches its kernel at T and records the launch in L; false: the kernel has no launch at T.
template <typename T>
using Launcher = bool (*)(const LaunchArgs<T>&, Launch&);

template <typename T>
bool launch_fast(const LaunchArgs<T>& p, Launch& L) {
  const FastShape sh = fast_norm_shape(p.C, sizeof(T), p.k == KernelId::fast_rms);
  dev::LaunchInfo li;
  // bf16 runs read gamma/beta in bf16 (as torch keeps them); fp32 runs in fp32.
  const T* w = static_cast<const T*>(p.B.w_in);
  const T* b = static_cast<const T*>(p.B.b_in);
  CUDA_OK((p.k == KernelId::fast_ln
               ? dev::launch_fast_norm<T, T, false>(sh, p.y, p.B.mean, p.B.rstd, p.x, w, b, p.N, p.C, p.st, &li)
               : dev::launch_fast_norm<T, T, true>(sh, p.y, p.B.mean, p.B.rstd, p.x, w, b, p.N, p.C, p.st, &li)));
  L.grid = li.grid, L.block = li.block, L.func = li.func, L.smem = li.smem;
  return true;
}

template <typename T>
bool launch_fused_residual(const LaunchArgs<T>& p, Launch& L) {
  const dev::LaunchInfo li = dev::launch_fused_residual<T>(static_cast<T*>(p.B.z), p.y, p.B.mean, p.B.rstd, p.x,
                                                            static_cast<const T*>(p.B.r), p.B.w, p.B.b, p.N, p.C, p.st);
  L.grid = li.grid, L.block = li.block, L.func = li.func;
  return true;
}

template <typename T>
bool launch_fused_residual_dropout(const LaunchArgs<T>& p, Launch& L) {
  const dev::LaunchInfo li = dev::launch_fused_residual_dropout<T>(static_cast<T*>(p.B.z), p.y, p.B.mean, p.B.rstd, p.x,
                                                                    static_cast<const T*>(p.B.r), p.B.w, p.B.b, p.N, p.C,
                                                                    p.a.seed, p.a.dropout(), p.st);
  L.grid = li.grid, L.block = li.block, L.func = li.func;
  return true;
}

template <typename T>
bool launch_backward(const LaunchArgs<T>& p, Launch& L) {
  dev::LaunchInfo li;
  const T* dy = static_cast<const T*>(p.B.dy);
  const Buffers& B = p.B;
  CUDA_OK((p.k == KernelId::bwd_atomic
               ? dev::launch_backward<T, false>(p.y, B.dgamma, B.dbeta, B.partial, dy, p.x, B.w, B.mean, B.rstd, p.N, p.C,
                                                B.bwd_blocks, p.st, &li)
               : dev::launch_backward<T, true>(p.y, B.dgamma, B.dbeta, B.partial, dy, p.x, B.w, B.mean, B.rstd, p.N, p.C,
                                               B.bwd_blocks, p.st, &li)));
  L.grid = li.grid, L.block = li.block, L.func = li.func;
  return true;
}

template <typename T>
bool launch_v1(const LaunchArgs<T>& p, Launch& L) {
  if constexpr (sizeof(T) != 4) {
    return false;
  } else {
    L.grid = (p.N + p.block - 1) / p.block;
    L.func = reinterpret_cast<const void*>(dev::ln_v1);
    dev::ln_v1<<<L.grid, p.block, 0, p.st>>>(p.y, p.B.mean, p.B.rstd, p.x, p.B.w, p.B.b, p.N, p.C);
    return true;
  }
}

template <typename T>
bool launch_v2(const LaunchArgs<T>& p, Launch& L) {
  if constexpr (sizeof(T) != 4) {
    return false;
  } else {
    const Buffers& B = p.B;
    L.grid = p.N;
    L.smem = p.block * sizeof(float);
    L.func = reinterpret_cast<const void*>(dev::ln_v2_mean);
    dev::ln_v2_mean<<<p.N, p.block, L.smem, p.st>>>(B.mean, p.x, p.N, p.C);
    dev::ln_v2_rstd<<<p.N, p.block, L.smem, p.st>>>(B.rstd, B.mean, p.x, p.N, p.C);
    const size_t total = static_cast<size_t>(p.N) * p.C;
    dev::ln_v2_normalize<<<static_cast<unsigned>((total + p.block - 1) / p.block), p.block, 0, p.st>>>(
        p.y, p.x, B.mean, B.rstd, B.w, B.b, p.N, p.C);
    return true;
  }
}

template <typename T>
bool launch_v3_v4(const LaunchArgs<T>& p, Launch& L) {
  if constexpr (sizeof(T) != 4) {
    return false;
  } else {
    L.grid = (p.N + p.warps - 1) / p.warps;
    auto f = p.k == KernelId::v3 ? dev::ln_v3 : dev::ln_v4;
    L.func = reinterpret_cast<const void*>(f);
    f<<<L.grid, p.block, 0, p.st>>>(p.y, p.B.mean, p.B.rstd, p.x, p.B.w, p.B.b, p.N, p.C);
    return true;
  }
}

template <typename T>
bool launch_v5(const LaunchArgs<T>& p, Launch& L) {
  L.grid = p.N;
  L.func = reinterpret_cast<const void*>(dev::ln_v5<T>);
  dev::ln_v5<T><<<p.N, p.block, 0, p.st>>>(p.y, p.B.mean, p.B.rstd, p.x, p.B.w, p.B.b, p.N, p.C);
  return true;
}

template <typename T>
bool launch_v6(const LaunchArgs<T>& p, Launch& L) {
  const size_t smem = 2 * p.C * sizeof(float) + static_cast<size_t>(p.warps) * p.C * sizeof(T);
  const cudaError_t e =
      cudaFuncSetAttribute(dev::ln_v6<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (e == cudaSuccess) {
    L.grid = (p.N + p.warps - 1) / p.warps;
    L.smem = smem;
    L.func = reinterpret_cast<const void*>(dev::ln_v6<T>);
    dev::ln_v6<T><<<L.grid, p.block, smem, p.st>>>(p.y, p.B.mean, p.B.rstd, p.x, p.B.w, p.B.b, p.N, p.C);
    return true;
  }
  (void)cudaGetLastError();  // the request failed: fall back to v5, as llm.c's v6 does
  L.ran = "v5";
  return launch_v5(p, L);
}

template <typename T>
bool launch_welford_warp_reg(const LaunchArgs<T>& p, Launch& L) {
  if constexpr (sizeof(T) != 4) {
    return false;
  } else {
    const int vpt = (p.C + 31) / 32;
    if (vpt <= 4) launch_wwr<4, T>(p.B, p.N, p.C, p.block, p.st, L);
    else if (vpt <= 8) launch_wwr<8, T>(p.B, p.N, p.C, p.block, p.st, L);
    else if (vpt <= 16) launch_wwr<16, T>(p.B, p.N, p.C, p.block, p.st, L);
    else if (vpt <= 32) launch_wwr<32, T>(p.B, p.N, p.C, p.block, p.st, L);
    else if (vpt <= 64) launch_wwr<64, T>(p.B, p.N, p.C, p.block, p.st, L);
    else launch_wwr<128, T>(p.B, p.N, p.C, p.block, p.st, L);
    return true;
  }
}

template <typename T>
bool launch_welford_block_smem(const LaunchArgs<T>& p, Launch& L) {
  L.grid = p.N;
  L.smem = p.C * sizeof(T);
  CUDA_OK(cudaFuncSetAttribute(dev::welford_block_smem<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(L.smem)));
  L.func = reinterpret_cast<const void*>(dev::welford_block_smem<T>);
  dev::welford_block_smem<T><<<p.N, p.block, L.smem, p.st>>>(p.y, p.B.mean, p.B.rstd, p.x, p.B.w, p.B.b, p.N, p.C);
  return true;
}

template <typename T>
bool launch_block_reread(const LaunchArgs<T>& p, Launch& L) {
  if constexpr (sizeof(T) != 4) {
    return false;
  } else {
    L.grid = p.N;
    L.func = reinterpret_cast<const void*>(dev::block_reread<T>);
    dev::block_reread<T><<<p.N, p.block, 0, p.st>>>(p.y, p.B.mean, p.B.rstd, p.x, p.B.w, p.B.b, p.N, p.C);
    return true;
  }
}

template <typename T>
bool launch_rms_warp(const LaunchArgs<T>& p, Launch& L) {
  L.grid = (p.N + p.warps - 1) / p.warps;
  L.func = reinterpret_cast<const void*>(dev::rms_warp<T>);
  dev::rms_warp<T><<<L.grid, p.block, 0, p.st>>>(p.y, p.B.rstd, p.x, p.B.w, p.N, p.C);
  return true;
}

template <typename T>
bool launch_rms_block(const LaunchArgs<T>& p, Launch& L) {
  L.grid = p.N;
  L.func = reinterpret_cast<const void*>(dev::rms_block<T>);
  dev::rms_block<T><<<p.N, p.block, 0, p.st>>>(p.y, p.B.rstd, p.x, p.B.w, p.N, p.C);
  return true;
}

// Each kernel's launcher, by its KernelId (gpu_ref/host/kernel_table.hpp); a
// switch without a default, so a KernelId with no row here is a -Wswitch warning.
template <typename T>
constexpr Launcher<T> launcher_of(KernelId k) {
  using K = KernelId;
  switch (k) {
    case K::v1: return launch_v1<T>;
    case K::v2: return launch_v2<T>;
    case K::v3:
    case K::v4: return launch_v3_v4<T>;
    case K::v5: return launch_v5<T>;
    case K::v6: return launch_v6<T>;
    case K::welford_warp_reg: return launch_welford_warp_reg<T>;
    case K::welford_block_smem: return launch_welford_block_smem<T>;
    case K::block_reread: return launch_block_reread<T>;
    case K::rms_warp: return launch_rms_warp<T>;
    case K::rms_block: return launch_rms_block<T>;
    case K::fast_ln:
    case K::fast_rms: return launch_fast<T>;
    case K::fused_residual: return launch_fused_residual<T>;
    case K::fused_residual_dropout: return launch_fused_residual_dropout<T>;
    case K::bwd_atomic:
    case K::bwd_twolevel: return launch_backward<T>;
  }
  return nullptr;
}

template <typename T>
void launch_typed(const Args& a, const Buffers& B, cudaStream_t st, Launch& L) {
  const KernelInfo& info = *find_kernel(a.kernel);
  const int block = effective_block(a, info);
  const LaunchArgs<T> p{a,     B,     st, info.id, static_cast<int>(a.rows), static_cast<int>(a.hidden), block, block / 32,
                        static_cast<T*>(B.y), static_cast<const T*>(B.x)};
  L.block = block;
  L.ran = a.kernel;
  if (const Launcher<T> f = launcher_of<T>(info.id); f && f(p, L)) return;
  std::fprintf(stderr, "normref: kernel %s has no %s launch\n", a.kernel.c_str(), sizeof(T) == 4 ? "fp32" : "bf16");
  std::exit(2);
}

inline Launch launch(const Args& a, const Buffers& B, cudaStream_t st) {
  Launch L;
  if (a.dtype == DType::bf16) launch_typed<__nv_bfloat16>(a, B, st, L);
  else launch_typed<float>(a, B, st, L);
  return L;
}

}  // namespace normref
