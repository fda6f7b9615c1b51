// fast_ln / fast_rms behind a C interface, so that scripts/bench_torch.py
// can run them (ctypes) on torch's own tensors and time them in the same
// loop as torch eager and torch.compile: same buffers, same flushes.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "bench/bwd_prefetch.cuh"
#include "kernels/fast_launch.cuh"

namespace {
template <typename T, bool RMS>
int launch(void* y, float* mean, float* rstd, const void* x, const void* gamma, const void* beta, int rows, int C,
           cudaStream_t st) {
  const normref::FastShape sh = normref::fast_norm_shape(C, sizeof(T), RMS);
  return static_cast<int>(normref::dev::launch_fast_norm<T, T, RMS>(
      sh, static_cast<T*>(y), mean, rstd, static_cast<const T*>(x), static_cast<const T*>(gamma),
      static_cast<const T*>(beta), rows, C, st));
}
}  // namespace

/// y = LN(x) (rms 0) or RMSNorm(x) (rms 1), x and y [rows][C] of fp32 (bf16
/// 0) or bf16 (bf16 1), gamma/beta [C] of the same type; mean and rstd
/// [rows] fp32. Returns the launch's cudaError_t.
extern "C" int normref_fast_norm(int bf16, int rms, void* y, float* mean, float* rstd, const void* x,
                                 const void* gamma, const void* beta, int rows, int C, void* stream) {
  auto st = static_cast<cudaStream_t>(stream);
  if (bf16) {
    return rms ? launch<__nv_bfloat16, true>(y, mean, rstd, x, gamma, beta, rows, C, st)
               : launch<__nv_bfloat16, false>(y, mean, rstd, x, gamma, beta, rows, C, st);
  }
  return rms ? launch<float, true>(y, mean, rstd, x, gamma, beta, rows, C, st)
             : launch<float, false>(y, mean, rstd, x, gamma, beta, rows, C, st);
}

namespace {
template <typename T, bool RMS>
int backward(void* dx, float* dgamma, float* dbeta, float* partial, const void* dy, const void* x, const float* gamma,
             const float* mean, const float* rstd, int rows, int C, int blocks, int threads, cudaStream_t st) {
  return static_cast<int>(normref::dev::launch_backward<T, true, RMS>(
      static_cast<T*>(dx), dgamma, dbeta, partial, static_cast<const T*>(dy), static_cast<const T*>(x), gamma, mean,
      rstd, rows, C, blocks, st, nullptr, threads));
}
}  // namespace

/// Blocks of the backward's persistent grid (bwd_twolevel; rms 1: its
/// RMSNorm form) at `threads` a block (0: the shipped backward_threads):
/// the partials buffer of normref_norm_backward holds 2 * blocks * C floats.
extern "C" int normref_norm_backward_blocks(int bf16, int rms, int threads, int rows, int C) {
  using B = __nv_bfloat16;
  namespace d = normref::dev;
  if (bf16) return rms ? d::backward_blocks<B, true, true>(rows, C, threads) : d::backward_blocks<B, true>(rows, C, threads);
  return rms ? d::backward_blocks<float, true, true>(rows, C, threads) : d::backward_blocks<float, true>(rows, C, threads);
}

/// The backward (bwd_twolevel; rms 1: RMSNorm's, dbeta and mean unused):
/// dx [rows][C] of x's type, dgamma and dbeta [C] fp32, from dy and x
/// [rows][C], gamma [C] fp32 and the forward's mean and rstd [rows], on
/// `blocks` blocks of `threads` (0: shipped). Returns the cudaError_t.
extern "C" int normref_norm_backward(int bf16, int rms, void* dx, float* dgamma, float* dbeta, float* partial,
                                     const void* dy, const void* x, const float* gamma, const float* mean,
                                     const float* rstd, int rows, int C, int blocks, int threads, void* stream) {
  auto st = static_cast<cudaStream_t>(stream);
  using B = __nv_bfloat16;
  if (bf16)
    return rms ? backward<B, true>(dx, dgamma, dbeta, partial, dy, x, gamma, mean, rstd, rows, C, blocks, threads, st)
               : backward<B, false>(dx, dgamma, dbeta, partial, dy, x, gamma, mean, rstd, rows, C, blocks, threads, st);
  return rms ? backward<float, true>(dx, dgamma, dbeta, partial, dy, x, gamma, mean, rstd, rows, C, blocks, threads, st)
             : backward<float, false>(dx, dgamma, dbeta, partial, dy, x, gamma, mean, rstd, rows, C, blocks, threads, st);
}

/// normref_norm_backward's variant with the next row prefetched
/// (bench/bwd_prefetch.cuh): the same arguments, the same bits; its grid
/// from normref_norm_backward_prefetch_blocks.
extern "C" int normref_norm_backward_prefetch(int bf16, int rms, void* dx, float* dgamma, float* dbeta, float* partial,
                                              const void* dy, const void* x, const float* gamma, const float* mean,
                                              const float* rstd, int rows, int C, int blocks, int threads,
                                              void* stream) {
  auto st = static_cast<cudaStream_t>(stream);
  using B = __nv_bfloat16;
  namespace d = normref::dev;
  auto go = [&](auto* tag, auto rms_c) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return static_cast<int>(d::BackwardPrefetch<T, decltype(rms_c)::value>::launch(
        static_cast<T*>(dx), dgamma, dbeta, partial, static_cast<const T*>(dy), static_cast<const T*>(x), gamma, mean,
        rstd, rows, C, blocks, threads, st));
  };
  if (bf16) return rms ? go(static_cast<B*>(nullptr), std::true_type{}) : go(static_cast<B*>(nullptr), std::false_type{});
  return rms ? go(static_cast<float*>(nullptr), std::true_type{}) : go(static_cast<float*>(nullptr), std::false_type{});
}

/// Blocks of the prefetching variant's persistent grid (its own occupancy).
extern "C" int normref_norm_backward_prefetch_blocks(int bf16, int rms, int threads, int rows, int C) {
  using B = __nv_bfloat16;
  namespace d = normref::dev;
  if (bf16) return rms ? d::BackwardPrefetch<B, true>::blocks(rows, C, threads) : d::BackwardPrefetch<B, false>::blocks(rows, C, threads);
  return rms ? d::BackwardPrefetch<float, true>::blocks(rows, C, threads) : d::BackwardPrefetch<float, false>::blocks(rows, C, threads);
}
