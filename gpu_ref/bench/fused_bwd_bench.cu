// The Post-Norm fusion and the LayerNorm backward pass (kernels/fused_bwd.cuh)
// on 2^27 elements per case, timed like fast_norm_bench (events, L2 flushed,
// medians, the copy kernel in the same run) and validated: the fused kernel
// bit for bit against the unfused pair (add, then fast_ln) and y against
// fp64; the backward's dx on sampled rows and dgamma/dbeta over all rows
// against fp64. One JSON object per line.
//   fused_bwd_bench [--reps 20]
#include <cmath>
#include <string>

#include "bench/bench_util.cuh"
#include "kernels/fused_bwd.cuh"

namespace {
using namespace normref::bench;
using normref::dev::Vec16;

// Threads per row of the register-resident kernels (as fast_norm_bench: at
// most 32 values a thread, 8 fp32 or 4 bf16 vectors).
template <typename T>
int threads_for(int C) {
  return normref::fused_residual_threads(C, sizeof(T));
}

template <typename T>
void fused_case(int C, int reps, void* flush, size_t flush_bytes, double copy, cudaStream_t st) {
  const size_t n = size_t(1) << 27;
  const int rows = static_cast<int>(n / C);
  T *x, *r, *z, *y, *z2, *y2;
  float *xf, *g, *b, *mean, *rstd;
  CUDA_OK(cudaMalloc(&xf, n * 4));
  for (T** p : {&x, &r, &z, &y, &z2, &y2}) CUDA_OK(cudaMalloc(p, n * sizeof(T)));
  CUDA_OK(cudaMalloc(&g, C * 4));
  CUDA_OK(cudaMalloc(&b, C * 4));
  CUDA_OK(cudaMalloc(&mean, rows * 4));
  CUDA_OK(cudaMalloc(&rstd, rows * 4));
  auto make = [&](T* dst, uint32_t seed) {
    fill_normal<<<1024, 256, 0, st>>>(xf, n, seed);
    if constexpr (sizeof(T) == 2) to_bf16<<<1024, 256, 0, st>>>(reinterpret_cast<__nv_bfloat16*>(dst), xf, n);
    else CUDA_OK(cudaMemcpyAsync(dst, xf, n * 4, cudaMemcpyDeviceToDevice, st));
  };
  make(x, 11);
  make(r, 12);
  fill_normal<<<8, 256, 0, st>>>(g, C, 13);
  fill_normal<<<8, 256, 0, st>>>(b, C, 14);
  const int threads = threads_for<T>(C);
  auto fused = [&] { normref::dev::launch_fused_residual<T>(z, y, mean, rstd, x, r, g, b, rows, C, st); };
  const size_t nvec = n / Vec16<T>::kN;
  auto unfused = [&] {
    normref::dev::residual_add<T><<<(nvec + 255) / 256, 256, 0, st>>>(z2, x, r, nvec);
    // The shipped fast_ln on z2 (fp32 gamma/beta, as the fused kernel reads them).
    CUDA_OK((normref::dev::launch_fast_norm<T, float, false>(normref::fast_norm_shape(C, sizeof(T), false), y2, mean, rstd, z2, g, b,
                                                              rows, C, st)));
  };
  const double fused_us = median_us(fused, reps, flush, flush_bytes, st);
  const double unfused_us = median_us(unfused, reps, flush, flush_bytes, st);
  CUDA_OK(cudaStreamSynchronize(st));
  // Bit for bit against the pair, and y against fp64 on 16 rows.
  const auto hz = to_host(z, n), hy = to_host(y, n), hg = to_host(g, C), hb = to_host(b, C);
  const bool same = hz == to_host(z2, n) && hy == to_host(y2, n);
  double max_err = 0;
  for (int k = 0; k < 16; ++k) {
    const size_t row = static_cast<size_t>(k) * (rows - 1) / 15;
    double m = 0, q = 0;
    for (int c = 0; c < C; ++c) m += hz[row * C + c];
    m /= C;
    for (int c = 0; c < C; ++c) q += (hz[row * C + c] - m) * (hz[row * C + c] - m);
    const double rs = 1.0 / std::sqrt(q / C + 1e-5);
    for (int c = 0; c < C; ++c) {
      const double ref = (hz[row * C + c] - m) * rs * hg[c] + hb[c];
      max_err = std::max(max_err, std::fabs(hy[row * C + c] - ref) / (std::fabs(ref) + 1.0));
    }
  }
  const double tol = sizeof(T) == 2 ? 1.0 / 128 : 1e-5;
  const double bytes = 4.0 * n * sizeof(T);  // x, r read; z, y written
  std::printf("{\"kernel\": \"fused_residual\", \"dtype\": \"%s\", \"C\": %d, \"rows\": %d, \"us\": %.2f, \"unfused_us\": %.2f, "
              "\"speedup\": %.3f, \"gbps\": %.1f, \"copy_gbps\": %.1f, \"pct_copy\": %.1f, \"bit_exact_vs_unfused\": %s, "
              "\"max_rel_err\": %.3g, \"tolerance\": %.3g, \"valid\": %s}\n",  // valid: against fp64
              sizeof(T) == 2 ? "bf16" : "fp32", C, rows, fused_us, unfused_us, unfused_us / fused_us,
              bytes / (fused_us * 1e3), copy, 100.0 * bytes / (fused_us * 1e3) / copy, same ? "true" : "false", max_err, tol,
              max_err <= tol ? "true" : "false");
  std::fflush(stdout);
  for (void* p : {(void*)x, (void*)r, (void*)z, (void*)y, (void*)z2, (void*)y2, (void*)xf, (void*)g, (void*)b, (void*)mean, (void*)rstd})
    CUDA_OK(cudaFree(p));
}

template <typename T>
void backward_case(int C, int reps, void* flush, size_t flush_bytes, double copy, cudaStream_t st) {
  const size_t n = size_t(1) << 27;
  const int rows = static_cast<int>(n / C);
  T *x, *dy, *dx, *yscratch;
  float *xf, *g, *b, *mean, *rstd, *dg, *db, *partial;
  CUDA_OK(cudaMalloc(&xf, n * 4));
  for (T** p : {&x, &dy, &dx, &yscratch}) CUDA_OK(cudaMalloc(p, n * sizeof(T)));
  CUDA_OK(cudaMalloc(&g, C * 4));
  CUDA_OK(cudaMalloc(&b, C * 4));
  CUDA_OK(cudaMalloc(&dg, C * 4));
  CUDA_OK(cudaMalloc(&db, C * 4));
  CUDA_OK(cudaMalloc(&mean, rows * 4));
  CUDA_OK(cudaMalloc(&rstd, rows * 4));
  auto make = [&](T* dst, uint32_t seed) {
    fill_normal<<<1024, 256, 0, st>>>(xf, n, seed);
    if constexpr (sizeof(T) == 2) to_bf16<<<1024, 256, 0, st>>>(reinterpret_cast<__nv_bfloat16*>(dst), xf, n);
    else CUDA_OK(cudaMemcpyAsync(dst, xf, n * 4, cudaMemcpyDeviceToDevice, st));
  };
  make(x, 21);
  make(dy, 22);
  fill_normal<<<8, 256, 0, st>>>(g, C, 23);
  fill_normal<<<8, 256, 0, st>>>(b, C, 24);
  // The forward's statistics (fast_ln, row per block) feed the backward.
  const int fth = threads_for<T>(C);
  with_threads(fth, [&](auto th) {
    constexpr int TH = decltype(th)::value;
    normref::dev::fast_norm<T, float, false, TH, (sizeof(T) == 4 ? 8 : 4), 1><<<rows, TH, 0, st>>>(yscratch, mean, rstd, x,
                                                                                                g, b, rows, C);
  });
  const int threads = normref::backward_threads(C, sizeof(T));
  const int blocks = normref::dev::backward_blocks<T, false>(rows, C);
  CUDA_OK(cudaMalloc(&partial, 2 * static_cast<size_t>(blocks) * C * 4));
  auto launch = [&](bool two) {
    if (two) CUDA_OK((normref::dev::launch_backward<T, true>(dx, dg, db, partial, dy, x, g, mean, rstd, rows, C, blocks, st)));
    else CUDA_OK((normref::dev::launch_backward<T, false>(dx, dg, db, partial, dy, x, g, mean, rstd, rows, C, blocks, st)));
  };
  // fp64 reference: dx on 16 rows, dgamma/dbeta over every row.
  const auto hx = to_host(x, n), hdy = to_host(dy, n), hg = to_host(g, C);
  std::vector<double> rdg(C, 0), rdb(C, 0), adg(C, 0), adb(C, 0);
  std::vector<double> rmean(rows), rrstd(rows);
  for (int row = 0; row < rows; ++row) {
    double m = 0, q = 0;
    for (int c = 0; c < C; ++c) m += hx[size_t(row) * C + c];
    m /= C;
    for (int c = 0; c < C; ++c) q += (hx[size_t(row) * C + c] - m) * (hx[size_t(row) * C + c] - m);
    rmean[row] = m;
    rrstd[row] = 1.0 / std::sqrt(q / C + 1e-5);
    for (int c = 0; c < C; ++c) {
      const double xh = (hx[size_t(row) * C + c] - m) * rrstd[row], d = hdy[size_t(row) * C + c];
      rdg[c] += d * xh, rdb[c] += d;
      adg[c] += std::fabs(d * xh), adb[c] += std::fabs(d);
    }
  }
  for (int two = 0; two < 2; ++two) {
    const double us = median_us([&] { launch(two); }, reps, flush, flush_bytes, st);
    launch(two);
    CUDA_OK(cudaStreamSynchronize(st));
    const auto hdx = to_host(dx, n), hdg = to_host(dg, C), hdb = to_host(db, C);
    double dx_err = 0, p_err = 0;
    for (int k = 0; k < 16; ++k) {
      const size_t row = static_cast<size_t>(k) * (rows - 1) / 15;
      double s1 = 0, s2 = 0, mx = 0;
      std::vector<double> gg(C), xh(C), ref(C);
      for (int c = 0; c < C; ++c) {
        xh[c] = (hx[row * C + c] - rmean[row]) * rrstd[row];
        gg[c] = hdy[row * C + c] * hg[c];
        s1 += gg[c], s2 += gg[c] * xh[c];
      }
      for (int c = 0; c < C; ++c) {
        ref[c] = rrstd[row] / C * (C * gg[c] - s1 - xh[c] * s2);
        mx = std::max(mx, std::fabs(ref[c]));
      }
      for (int c = 0; c < C; ++c) dx_err = std::max(dx_err, std::fabs(hdx[row * C + c] - ref[c]) / mx);
    }
    for (int c = 0; c < C; ++c)
      p_err = std::max({p_err, std::fabs(hdg[c] - rdg[c]) / adg[c], std::fabs(hdb[c] - rdb[c]) / adb[c]});
    const double dx_tol = sizeof(T) == 2 ? 1.0 / 64 : 1e-4, p_tol = 1e-4;
    const double bytes = 3.0 * n * sizeof(T) + 2.0 * rows * 4;  // x, dy read; dx written; mean, rstd
    std::printf("{\"kernel\": \"%s\", \"dtype\": \"%s\", \"C\": %d, \"rows\": %d, \"blocks\": %d, \"threads\": %d, "
                "\"us\": %.2f, \"gbps\": %.1f, \"copy_gbps\": %.1f, \"pct_copy\": %.1f, \"dx_max_err\": %.3g, "
                "\"dx_tolerance\": %.3g, \"param_grad_max_err\": %.3g, \"param_grad_tolerance\": %.3g, \"valid\": %s}\n",
                two ? "bwd_twolevel" : "bwd_atomic", sizeof(T) == 2 ? "bf16" : "fp32", C, rows, blocks, threads, us,
                bytes / (us * 1e3), copy, 100.0 * bytes / (us * 1e3) / copy, dx_err, dx_tol, p_err, p_tol,
                dx_err <= dx_tol && p_err <= p_tol ? "true" : "false");
    std::fflush(stdout);
  }
  for (void* p : {(void*)x, (void*)dy, (void*)dx, (void*)yscratch, (void*)xf, (void*)g, (void*)b, (void*)mean, (void*)rstd,
                  (void*)dg, (void*)db, (void*)partial})
    CUDA_OK(cudaFree(p));
}
}  // namespace

int main(int argc, char** argv) {
  int reps = 20;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--reps") reps = std::atoi(argv[i + 1]);
  cudaStream_t st;
  CUDA_OK(cudaStreamCreate(&st));
  const size_t flush_bytes = size_t(256) << 20, n = size_t(1) << 27;
  void* flush;
  float *a, *b;
  CUDA_OK(cudaMalloc(&flush, flush_bytes));
  CUDA_OK(cudaMalloc(&a, n * 4));
  CUDA_OK(cudaMalloc(&b, n * 4));
  fill_normal<<<1024, 256, 0, st>>>(a, n, 1);
  const double copy = copy_gbps(b, a, n, reps, flush, flush_bytes, st);
  CUDA_OK(cudaFree(a));
  CUDA_OK(cudaFree(b));
  std::printf("{\"kernel\": \"copy\", \"gbps\": %.1f}\n", copy);
  for (int C : {768, 4096, 16384}) {
    fused_case<float>(C, reps, flush, flush_bytes, copy, st);
    fused_case<__nv_bfloat16>(C, reps, flush, flush_bytes, copy, st);
  }
  for (int C : {768, 4096, 8192}) {
    backward_case<float>(C, reps, flush, flush_bytes, copy, st);
    backward_case<__nv_bfloat16>(C, reps, flush, flush_bytes, copy, st);
  }
  return 0;
}
