// fast_ln / fast_rms against the copy bandwidth, on 2^27 elements per case
// (C from 768 to 65536, fp32 and bf16): validated against an fp64 reference
// on sampled rows, timed with CUDA events after a warm-up, the L2 flushed
// before every timed launch, medians; the copy kernel is timed in the same
// run. One JSON object per line on stdout.
//   fast_norm_bench [--reps 20]
// Build-time knobs for measuring alternatives (defaults are the shipped
// choice): FAST_ROWS_SMALL (warp rows a block), FAST_CLUSTER and
// FAST_CLUSTER_THREADS (blocks and threads a row at C = 65536),
// FAST_BF16_CLUSTER (bf16 long rows by cluster instead of two sweeps).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cooperative_groups.h>

#include "bench/bench_util.cuh"
#include "kernels/fast_norm.cuh"

namespace {
using normref::dev::fast_norm;
using normref::dev::Vec16;
using namespace normref::bench;

struct Shape { int threads, vecs, rows_per_block; };

// Threads per row and vectors per thread by the row's 16-byte vectors.
// Parameters in the input's type (bf16 runs use bf16 gamma/beta, as torch).
template <typename T, bool RMS>
Shape launch(T* y, float* mean, float* rstd, const T* x, const T* g, const T* b, int rows, int C, cudaStream_t st) {
  const int nvec = C / normref::dev::Vec16<T>::kN;
#define NORMREF_FAST(TH, V, R)                                                                                      \
  {                                                                                                                 \
    fast_norm<T, T, RMS, TH, V, R><<<(rows + R - 1) / R, TH * R, 0, st>>>(y, mean, rstd, x, g, b, rows, C);             \
    return Shape{TH, V, R};                                                                                         \
  }
  // At most 32 values a thread in registers (8 fp32 or 4 bf16 vectors).
  constexpr int V = sizeof(T) == 4 ? 8 : 4;
#ifndef FAST_ROWS_SMALL
#define FAST_ROWS_SMALL 4
#endif
  if (nvec <= 32 * V) NORMREF_FAST(32, V, FAST_ROWS_SMALL)
  if (nvec <= 64 * V) NORMREF_FAST(64, V, 1)
  if (nvec <= 128 * V) NORMREF_FAST(128, V, 1)
  if (nvec <= 256 * V) NORMREF_FAST(256, V, 1)
  if (nvec <= 512 * V) NORMREF_FAST(512, V, 1)
  if (nvec <= 1024 * V) NORMREF_FAST(1024, V, 1)
#ifndef FAST_CLUSTER
#define FAST_CLUSTER 2
#endif
#ifndef FAST_CLUSTER_THREADS
#define FAST_CLUSTER_THREADS 1024
#endif
  constexpr int CV = (sizeof(T) == 4 ? 16384 : 8192) / (FAST_CLUSTER * FAST_CLUSTER_THREADS);  // vectors a thread at C = 65536
#ifdef FAST_BF16_CLUSTER
  constexpr bool use_cluster = true;
#else
  constexpr bool use_cluster = sizeof(T) == 4;
#endif
  if (use_cluster && nvec <= FAST_CLUSTER * FAST_CLUSTER_THREADS * CV) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(FAST_CLUSTER * rows);
    cfg.blockDim = dim3(FAST_CLUSTER_THREADS);
    cfg.stream = st;
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = FAST_CLUSTER, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CUDA_OK(cudaLaunchKernelEx(&cfg, normref::dev::fast_norm_cluster<T, T, RMS, FAST_CLUSTER_THREADS, CV, FAST_CLUSTER>, y,
                               mean, rstd, x, g, b, rows, C));
    return Shape{FAST_CLUSTER * FAST_CLUSTER_THREADS, CV, 1};
  }
  normref::dev::fast_norm_two_sweep<T, T, RMS, 1024><<<rows, 1024, 0, st>>>(y, mean, rstd, x, g, b, rows, C);
  return Shape{1024, -1, 1};  // vecs -1: two sweeps over x
#undef NORMREF_FAST
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 20;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--reps") reps = std::atoi(argv[i + 1]);
  cudaStream_t st;
  CUDA_OK(cudaStreamCreate(&st));
  const size_t n = size_t(1) << 27;
  float *xf, *yf, *g, *b, *mean, *rstd;
  __nv_bfloat16 *xb, *yb, *gb, *bb;
  void* flush;
  const size_t flush_bytes = size_t(256) << 20;
  CUDA_OK(cudaMalloc(&xf, n * 4));
  CUDA_OK(cudaMalloc(&yf, n * 4));
  CUDA_OK(cudaMalloc(&xb, n * 2));
  CUDA_OK(cudaMalloc(&yb, n * 2));
  CUDA_OK(cudaMalloc(&g, 65536 * 4));
  CUDA_OK(cudaMalloc(&b, 65536 * 4));
  CUDA_OK(cudaMalloc(&gb, 65536 * 2));
  CUDA_OK(cudaMalloc(&bb, 65536 * 2));
  CUDA_OK(cudaMalloc(&mean, (n / 768 + 1) * 4));
  CUDA_OK(cudaMalloc(&rstd, (n / 768 + 1) * 4));
  CUDA_OK(cudaMalloc(&flush, flush_bytes));
  fill_normal<<<1024, 256, 0, st>>>(xf, n, 1);
  to_bf16<<<1024, 256, 0, st>>>(xb, xf, n);
  fill_normal<<<64, 256, 0, st>>>(g, 65536, 2);
  fill_normal<<<64, 256, 0, st>>>(b, 65536, 3);
  to_bf16<<<64, 256, 0, st>>>(gb, g, 65536);
  to_bf16<<<64, 256, 0, st>>>(bb, b, 65536);
  CUDA_OK(cudaStreamSynchronize(st));
  // The reference uses the parameters each run's kernel reads (bf16 runs: bf16).
  const std::vector<double> hg32 = to_host(g, 65536), hb32 = to_host(b, 65536), hg16 = to_host(gb, 65536),
                            hb16 = to_host(bb, 65536);

  const double copy_us = median_us([&] { copy_kernel<<<132 * 8, 512, 0, st>>>(reinterpret_cast<float4*>(yf), reinterpret_cast<const float4*>(xf), n / 4); }, reps, flush, flush_bytes, st);
  const double grid_copy_gbps = 2.0 * n * 4 / (copy_us * 1e3);
  std::printf("{\"kernel\": \"copy_grid_stride\", \"bytes\": %zu, \"us\": %.2f, \"gbps\": %.1f}\n", 2 * n * 4, copy_us, grid_copy_gbps);
  const double flat_us = median_us([&] { copy_flat<<<(n / 4 + 255) / 256, 256, 0, st>>>(reinterpret_cast<float4*>(yf), reinterpret_cast<const float4*>(xf), n / 4); }, reps, flush, flush_bytes, st);
  // The copy bandwidth: the faster of the two copies (the flat one, which
  // torch's copy_ matches).
  const double copy_gbps = std::max(grid_copy_gbps, 2.0 * n * 4 / (flat_us * 1e3));
  std::printf("{\"kernel\": \"copy\", \"bytes\": %zu, \"us\": %.2f, \"gbps\": %.1f}\n", 2 * n * 4, flat_us, copy_gbps);

  for (int bf16 = 0; bf16 < 2; ++bf16)
    for (int C : {768, 1024, 2048, 4096, 8192, 16384, 65536})
      for (int rms = 0; rms < 2; ++rms) {
        const int rows = static_cast<int>(n / C);
        const size_t eb = bf16 ? 2 : 4;
        Shape sh{};
        auto run = [&] {
          if (bf16) sh = rms ? launch<__nv_bfloat16, true>(yb, mean, rstd, xb, gb, bb, rows, C, st)
                             : launch<__nv_bfloat16, false>(yb, mean, rstd, xb, gb, bb, rows, C, st);
          else sh = rms ? launch<float, true>(yf, mean, rstd, xf, g, b, rows, C, st)
                        : launch<float, false>(yf, mean, rstd, xf, g, b, rows, C, st);
        };
        const double us = median_us(run, reps, flush, flush_bytes, st);
        // Validate 32 rows spread over the tensor against fp64.
        double max_err = 0;
        std::vector<float> xr(C), yr(C);
        for (int k = 0; k < 32; ++k) {
          const size_t r = static_cast<size_t>(k) * (rows - 1) / 31;
          if (bf16) {
            std::vector<__nv_bfloat16> hx(C), hy(C);
            CUDA_OK(cudaMemcpy(hx.data(), xb + r * C, C * 2, cudaMemcpyDeviceToHost));
            CUDA_OK(cudaMemcpy(hy.data(), yb + r * C, C * 2, cudaMemcpyDeviceToHost));
            for (int c = 0; c < C; ++c) xr[c] = bf16_to_f(hx[c]), yr[c] = bf16_to_f(hy[c]);
          } else {
            CUDA_OK(cudaMemcpy(xr.data(), xf + r * C, C * 4, cudaMemcpyDeviceToHost));
            CUDA_OK(cudaMemcpy(yr.data(), yf + r * C, C * 4, cudaMemcpyDeviceToHost));
          }
          double m = 0, q = 0;
          if (!rms) {
            for (float v : xr) m += v;
            m /= C;
          }
          for (float v : xr) q += (v - m) * (v - m);
          const double rs = 1.0 / std::sqrt(q / C + 1e-5);
          for (int c = 0; c < C; ++c) {
            const auto& hg = bf16 ? hg16 : hg32;
            const auto& hb = bf16 ? hb16 : hb32;
            const double ref = (xr[c] - m) * rs * hg[c] + (rms ? 0.0 : hb[c]);
            max_err = std::max(max_err, std::fabs(yr[c] - ref) / (std::fabs(ref) + 1.0));
          }
        }
        // fp32: a few ulps of the fp32 statistics; bf16: the output's rounding (2^-8 relative) and a little more.
        const double tol = bf16 ? 1.0 / 128 : 1e-5;
        const double bytes = 2.0 * n * eb + (rms ? 1 : 2) * C * static_cast<double>(eb) + (rms ? 1 : 2) * rows * 4.0;
        const double gbps = bytes / (us * 1e3);
        std::printf("{\"kernel\": \"%s\", \"dtype\": \"%s\", \"C\": %d, \"rows\": %d, \"threads_per_row\": %d, "
                    "\"vecs_per_thread\": %d, \"rows_per_block\": %d, \"us\": %.2f, \"bytes\": %.0f, \"gbps\": %.1f, "
                    "\"copy_gbps\": %.1f, \"pct_copy\": %.1f, \"max_rel_err\": %.3g, \"tolerance\": %.3g, \"valid\": %s}\n",
                    rms ? "fast_rms" : "fast_ln", bf16 ? "bf16" : "fp32", C, rows, sh.threads, sh.vecs, sh.rows_per_block,
                    us, bytes, gbps, copy_gbps, 100.0 * gbps / copy_gbps, max_err, tol, max_err <= tol ? "true" : "false");
        std::fflush(stdout);
      }
  return 0;
}
