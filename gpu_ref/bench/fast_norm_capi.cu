// fast_ln / fast_rms behind a C interface, so that scripts/bench_torch.py
// can run them (ctypes) on torch's own tensors and time them in the same
// loop as torch eager and torch.compile: same buffers, same flushes.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kernels/fast_launch.cuh"

namespace {
template <typename T, bool RMS>
int launch(void* y, float* mean, float* rstd, const void* x, const void* gamma, const void* beta, int rows, int C,
           cudaStream_t st) {
  const normref::FastShape sh = normref::fast_norm_shape(C, sizeof(T));
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

/// Blocks of the LayerNorm backward's persistent grid for (dtype, rows, C):
/// the partials buffer of normref_ln_backward holds 2 * blocks * C floats.
extern "C" int normref_ln_backward_blocks(int bf16, int rows, int C) {
  return bf16 ? normref::dev::backward_blocks<__nv_bfloat16, true>(rows, C)
              : normref::dev::backward_blocks<float, true>(rows, C);
}

/// The LayerNorm backward (bwd_twolevel): dx [rows][C] of x's type, dgamma
/// and dbeta [C] fp32, from dy and x [rows][C], gamma [C] fp32 and the
/// forward's mean and rstd [rows]. Returns the launch's cudaError_t.
extern "C" int normref_ln_backward(int bf16, void* dx, float* dgamma, float* dbeta, float* partial, const void* dy,
                                   const void* x, const float* gamma, const float* mean, const float* rstd, int rows,
                                   int C, int blocks, void* stream) {
  auto st = static_cast<cudaStream_t>(stream);
  if (bf16) {
    using B = __nv_bfloat16;
    return static_cast<int>(normref::dev::launch_backward<B, true>(static_cast<B*>(dx), dgamma, dbeta, partial,
                                                                   static_cast<const B*>(dy), static_cast<const B*>(x),
                                                                   gamma, mean, rstd, rows, C, blocks, st));
  }
  return static_cast<int>(normref::dev::launch_backward<float, true>(static_cast<float*>(dx), dgamma, dbeta, partial,
                                                                     static_cast<const float*>(dy),
                                                                     static_cast<const float*>(x), gamma, mean, rstd,
                                                                     rows, C, blocks, st));
}
