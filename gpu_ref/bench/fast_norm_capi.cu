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
