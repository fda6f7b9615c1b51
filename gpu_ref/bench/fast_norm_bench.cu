// fast_ln / fast_rms against the copy bandwidth, on 2^27 elements per case
// (C from 768 to 65536, fp32 and bf16): validated against an fp64 reference
// on sampled rows, timed with CUDA events after a warm-up, the L2 flushed
// before every timed launch, medians; the copy kernel is timed in the same
// run. One JSON object per line on stdout.
//   fast_norm_bench [--reps 20] [--c C,C,...] [--variants a,b,...]
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
using normref::dev::Vec16;
using namespace normref::bench;

// The shipped launch (host/fast_shape.hpp), parameters in the input's type
// (bf16 runs use bf16 gamma/beta, as torch keeps them); with cache hints on
// x and y (variants of the register scheme).
using normref::dev::L2Hint;
template <typename T, bool RMS, L2Hint LOAD = L2Hint::none, L2Hint STORE = L2Hint::none>
normref::FastShape launch(T* y, float* mean, float* rstd, const T* x, const T* g, const T* b, int rows, int C,
                          cudaStream_t st) {
  const normref::FastShape sh = normref::fast_norm_shape(C, sizeof(T), RMS);
  CUDA_OK((normref::dev::launch_fast_norm<T, T, RMS, LOAD, STORE>(sh, y, mean, rstd, x, g, b, rows, C, st)));
  return sh;
}

/// The hint variants: 0 none (shipped), 1 evict-first loads and stores,
/// 2 evict-first loads, 3 evict-first stores, 4 256-byte L2 prefetch on loads,
/// 5/6 x kept out of / evict-first in the L1, 7 evict-last loads (x's lines
/// kept in the L2 before y's: torch.compile's loads), 8 evict-last loads and
/// evict-first stores, 9 evict-last loads that allocate in the L1, 10
/// evict-last loads whose lines go back to normal priority once loaded.
constexpr const char* kHintNames[] = {"shipped", "hint_evict_first", "hint_evict_first_load", "hint_evict_first_store",
                                      "hint_prefetch_256", "hint_l1_no_allocate", "hint_l1_evict_first",
                                      "hint_evict_last_load", "hint_evict_last_load_first_store",
                                      "hint_evict_last_load_l1", "hint_evict_last_demoted"};
template <typename T, bool RMS>
void launch_hinted(int hint, T* y, float* mean, float* rstd, const T* x, const T* g, const T* b, int rows, int C,
                   cudaStream_t st) {
  constexpr L2Hint N = L2Hint::none, E = L2Hint::evict_first, P = L2Hint::prefetch_256;
  switch (hint) {
    case 1: launch<T, RMS, E, E>(y, mean, rstd, x, g, b, rows, C, st); break;
    case 2: launch<T, RMS, E, N>(y, mean, rstd, x, g, b, rows, C, st); break;
    case 3: launch<T, RMS, N, E>(y, mean, rstd, x, g, b, rows, C, st); break;
    case 4: launch<T, RMS, P, N>(y, mean, rstd, x, g, b, rows, C, st); break;
    case 5: launch<T, RMS, L2Hint::l1_no_allocate, N>(y, mean, rstd, x, g, b, rows, C, st); break;
    case 6: launch<T, RMS, L2Hint::l1_evict_first, N>(y, mean, rstd, x, g, b, rows, C, st); break;
    case 7: launch<T, RMS, L2Hint::evict_last, N>(y, mean, rstd, x, g, b, rows, C, st); break;
    case 8: launch<T, RMS, L2Hint::evict_last, E>(y, mean, rstd, x, g, b, rows, C, st); break;
    case 9: launch<T, RMS, L2Hint::evict_last_l1, N>(y, mean, rstd, x, g, b, rows, C, st); break;
    case 10: launch<T, RMS, L2Hint::evict_last_demoted, N>(y, mean, rstd, x, g, b, rows, C, st); break;
    default: launch<T, RMS>(y, mean, rstd, x, g, b, rows, C, st); break;
  }
}

// The software-pipelined warp-per-row kernel (a variant measured beside the
// shipped one): a persistent grid of `waves` blocks per SM slot.
template <typename T, bool RMS>
void launch_pipelined(const normref::FastShape& sh, T* y, float* mean, float* rstd, const T* x, const T* g, const T* b,
                      int rows, int C, cudaStream_t st) {
  auto go = [&](auto vecs) {
    constexpr int V = decltype(vecs)::value;
    auto* f = normref::dev::fast_norm_pipelined<T, T, RMS, V, 4>;
    int per_sm = 0, sms = 0;
    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, 128, 0));
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int grid = std::min((rows + 3) / 4, sms * per_sm);
    f<<<grid, 128, 0, st>>>(y, mean, rstd, x, g, b, rows, C);
  };
  switch (sh.vecs) {
    case 3: go(std::integral_constant<int, 3>{}); break;
    case 4: go(std::integral_constant<int, 4>{}); break;
    case 6: go(std::integral_constant<int, 6>{}); break;
    default: go(std::integral_constant<int, 8>{}); break;
  }
}

// Twice the threads per row at half the vectors a thread (block-per-row
// shapes): more warps per SM, the same bytes per row (a variant).
template <typename T, bool RMS>
void launch_wide(const normref::FastShape& sh, T* y, float* mean, float* rstd, const T* x, const T* g, const T* b,
                 int rows, int C, cudaStream_t st) {
  constexpr int V = sizeof(T) == 4 ? 4 : 2;
  normref::dev::with_threads(2 * sh.threads_per_row, [&](auto th) {
    constexpr int TH = decltype(th)::value;
    normref::dev::fast_norm<T, T, RMS, TH, V, 1><<<rows, TH, 0, st>>>(y, mean, rstd, x, g, b, rows, C);
  });
}

// A block of TH threads per row holding C / TH elements a thread (VE
// vectors), launched like the shipped block-per-row kernel: more, lighter
// threads a row (torch.compile's C = 4096 LayerNorm runs 512 threads and 32
// registers).
template <typename T, bool RMS>
void launch_threads(int TH, T* y, float* mean, float* rstd, const T* x, const T* g, const T* b, int rows, int C,
                    cudaStream_t st) {
  constexpr int kN = normref::dev::Vec16<T>::kN;
  const int ve = C / (TH * kN);
  auto go = [&](auto th, auto vecs) {
    constexpr int A = decltype(th)::value, V = decltype(vecs)::value;
    normref::dev::fast_norm<T, T, RMS, A, V, 1><<<rows, A, 0, st>>>(y, mean, rstd, x, g, b, rows, C);
  };
  auto with_ve = [&](auto th) {
    switch (ve) {
      case 1: go(th, std::integral_constant<int, 1>{}); break;
      case 2: go(th, std::integral_constant<int, 2>{}); break;
      case 4: go(th, std::integral_constant<int, 4>{}); break;
      case 8: go(th, std::integral_constant<int, (sizeof(T) == 4 ? 8 : 4)>{}); break;
      default: std::fprintf(stderr, "launch_threads: C %d at %d threads\n", C, TH); std::exit(1);
    }
  };
  switch (TH) {
    case 64: with_ve(std::integral_constant<int, 64>{}); break;
    case 128: with_ve(std::integral_constant<int, 128>{}); break;
    case 256: with_ve(std::integral_constant<int, 256>{}); break;
    case 512: with_ve(std::integral_constant<int, 512>{}); break;
    default: with_ve(std::integral_constant<int, 1024>{}); break;
  }
}

// The other schemes for C = 65536, measured beside the shipped one: the
// one-row-per-cluster kernel (fp32) and the two sweeps over x.
template <typename T, bool RMS>
void launch_replaced(bool two_sweep, T* y, float* mean, float* rstd, const T* x, const T* g, const T* b, int rows,
                     int C, cudaStream_t st) {
  if (two_sweep) {
    normref::dev::fast_norm_two_sweep<T, T, RMS, 1024><<<rows, 1024, 0, st>>>(y, mean, rstd, x, g, b, rows, C);
  } else if constexpr (sizeof(T) == 4) {
    CUDA_OK(normref::dev::launch_cluster(normref::dev::fast_norm_cluster<T, T, RMS, 1024, 8, 2>, 2 * rows, 1024, 0, 2,
                                         st, y, mean, rstd, x, g, b, rows, C));
  }
}

// What is timed beside the shipped kernel for one C: the cache-hint variants
// of the register scheme and the earlier designs it was chosen over (C <=
// 1024 the pipelined warp-per-row kernel, 2048 <= C <= 16384 twice the
// threads per row, other thread counts a row; C = 65536 the streamed cluster with a cluster barrier per
// exchange or as four 512-thread blocks, the two sweeps -- for bf16 also
// with L2 policies on x and y --, the one-row cluster).
std::vector<std::string> variants(int C, bool bf16, bool rms) {
  if (C > 16384) {
    std::vector<std::string> v = {"shipped", "stream2_barrier", "stream4_mailbox", "two_sweep"};
    if (bf16)
      v.insert(v.end(), {"stream2_params_smem", "sweep_keep_x", "sweep_store_evict_first", "sweep_keep_x_store_evict_first"});
    else v.push_back("cluster_one_row");
    // Rows one 1024-thread block holds (C <= 32768): the streamed kernel as a
    // cluster of one (the next row brought into shared memory while this one
    // is reduced) or of two, against the register scheme's one block an SM.
    if (C <= 32768) {
      v.insert(v.end(), {"stream1_mailbox", "stream2_mailbox"});
      if (bf16) v.push_back("stream1_params_smem");
      // Where the cluster of one ships (bf16, fast_norm_shape), the register
      // scheme it replaced: 1024 threads x 4 vectors, one block an SM.
      if (bf16 && normref::fast_norm_shape(C, 2, rms).cluster == 1) v.push_back("registers1024");
    }
    return v;
  }
  std::vector<std::string> v(std::begin(kHintNames), std::end(kHintNames));
  v.push_back(C <= 1024 ? "pipelined" : "wide");
  // Other thread counts a row, the shipped kernel's loads (where C / threads
  // is 1, 2, 4 or 8 vectors; the shipped shape itself excluded). The fp32
  // shapes of fast_norm_shape were picked from these (recorded then as el_tTH,
  // lab/records/h200/fast_norm_evict_last_threads.jsonl).
  const normref::FastShape sh = normref::fast_norm_shape(C, bf16 ? 2 : 4, rms);
  const int kN = bf16 ? 8 : 4;  // elements a 16-byte vector
  for (int th : {64, 128, 256, 512, 1024}) {
    const int ve = C / (th * kN);
    if (th != sh.threads_per_row && C % (th * kN) == 0 && (ve == 1 || ve == 2 || ve == 4 || ve == 8) &&
        ve <= (bf16 ? 4 : 8))
      v.push_back("threads" + std::to_string(th));
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 20;
  std::vector<int> row_lengths = {768, 1024, 2048, 4096, 8192, 16384, 65536};  // --c C,C,...: those instead
  std::string only_variants;  // --variants a,b,c: those variants alone (and the shipped kernel)
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--reps") reps = std::atoi(argv[i + 1]);
    if (std::string(argv[i]) == "--c") {
      row_lengths.clear();
      for (const char* p = argv[i + 1]; *p; ++p)
        if (p == argv[i + 1] || p[-1] == ',') row_lengths.push_back(std::atoi(p));
    }
    if (std::string(argv[i]) == "--variants") only_variants = "," + std::string(argv[i + 1]) + ",";
  }
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
    for (int C : row_lengths)
      for (int rms = 0; rms < 2; ++rms)
      for (const std::string& variant : variants(C, bf16, rms)) {
        if (!only_variants.empty() && variant != "shipped" && only_variants.find("," + variant + ",") == std::string::npos)
          continue;
        const int rows = static_cast<int>(n / C);
        const size_t eb = bf16 ? 2 : 4;
        normref::FastShape sh = normref::fast_norm_shape(C, eb, rms);
        // One dispatch for both element types: d(y, x, gamma, beta) with the typed buffers.
        auto typed = [&](auto&& d) {
          if (bf16) rms ? d(std::true_type{}, yb, xb, gb, bb) : d(std::false_type{}, yb, xb, gb, bb);
          else rms ? d(std::true_type{}, yf, xf, g, b) : d(std::false_type{}, yf, xf, g, b);
        };
        auto run = [&] {
          typed([&](auto is_rms, auto* y, auto* x, auto* gm, auto* bt) {
            using T = std::remove_pointer_t<decltype(y)>;
            constexpr bool R = decltype(is_rms)::value;
            if (variant == "two_sweep" || variant == "cluster_one_row") {
              launch_replaced<T, R>(variant == "two_sweep", y, mean, rstd, x, gm, bt, rows, C, st);
            } else if (variant.rfind("sweep_", 0) == 0) {
              // Two sweeps, x's first read evict-last (kept for the second) and/or y's stores evict-first.
              constexpr L2Hint N = L2Hint::none, E = L2Hint::evict_first, K = L2Hint::evict_last;
              using namespace normref::dev;
              if (variant == "sweep_keep_x")
                fast_norm_two_sweep_hinted<T, T, R, 1024, K, N><<<rows, 1024, 0, st>>>(y, mean, rstd, x, gm, bt, rows, C);
              else if (variant == "sweep_store_evict_first")
                fast_norm_two_sweep_hinted<T, T, R, 1024, N, E><<<rows, 1024, 0, st>>>(y, mean, rstd, x, gm, bt, rows, C);
              else
                fast_norm_two_sweep_hinted<T, T, R, 1024, K, E><<<rows, 1024, 0, st>>>(y, mean, rstd, x, gm, bt, rows, C);
            } else if (variant.rfind("stream", 0) == 0) {
              // The streamed cluster: 2 blocks of 1024 threads or 4 of 512 (two an SM), block sums by
              // message (st.async) or through a cluster barrier.
              const bool four = variant[6] == '4', one = variant[6] == '1';
              const bool mailbox = variant.find("mailbox") != std::string::npos;
              const bool params_smem = variant.find("params_smem") != std::string::npos;
              auto go = [&](auto* f, int threads, int cluster) {
                const int smem = params_smem ? normref::stream_smem_bytes(sizeof(T), sizeof(T), R)
                                             : threads * normref::fast_max_vecs(sizeof(T)) * 16;
                CUDA_OK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
                const int grid = std::min(rows, normref::dev::resident_clusters(f, threads, smem, cluster, st)) * cluster;
                CUDA_OK(normref::dev::launch_cluster(f, grid, threads, smem, cluster, st, y, mean, rstd, x, gm, bt, rows, C));
              };
              constexpr int V = sizeof(T) == 4 ? 8 : 4;
              using namespace normref::dev;
              if constexpr (sizeof(T) == 2)
                if (params_smem) {
                  if (one) go(fast_norm_cluster_stream<T, T, R, 1024, V, 1, true, true>, 1024, 1);
                  else go(fast_norm_cluster_stream<T, T, R, 1024, V, 2, true, true>, 1024, 2);
                  return;
                }
              if (one) go(fast_norm_cluster_stream<T, T, R, 1024, V, 1, true>, 1024, 1);
              else if (four && mailbox) go(fast_norm_cluster_stream<T, T, R, 512, V, 4, true>, 512, 4);
              else if (four) go(fast_norm_cluster_stream<T, T, R, 512, V, 4, false>, 512, 4);
              else if (mailbox) go(fast_norm_cluster_stream<T, T, R, 1024, V, 2, true>, 1024, 2);
              else go(fast_norm_cluster_stream<T, T, R, 1024, V, 2, false>, 1024, 2);
            } else if (variant == "registers1024") {
              constexpr int V = sizeof(T) == 4 ? 8 : 4;
              normref::dev::fast_norm<T, T, R, 1024, V, 1><<<rows, 1024, 0, st>>>(y, mean, rstd, x, gm, bt, rows, C);
            } else if (variant.rfind("threads", 0) == 0) {
              launch_threads<T, R>(std::atoi(variant.c_str() + 7), y, mean, rstd, x, gm, bt, rows, C, st);
            } else if (variant == "wide") {
              launch_wide<T, R>(sh, y, mean, rstd, x, gm, bt, rows, C, st);
            } else if (variant == "pipelined") {
              launch_pipelined<T, R>(sh, y, mean, rstd, x, gm, bt, rows, C, st);
            } else {
              const int hint = static_cast<int>(std::find(std::begin(kHintNames), std::end(kHintNames), variant) -
                                                std::begin(kHintNames));
              launch_hinted<T, R>(hint, y, mean, rstd, x, gm, bt, rows, C, st);
            }
          });
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
                    "\"vecs_per_thread\": %d, \"rows_per_block\": %d, \"scheme\": \"%s\", \"variant\": \"%s\", \"us\": %.2f, \"bytes\": %.0f, \"gbps\": %.1f, "
                    "\"copy_gbps\": %.1f, \"pct_copy\": %.1f, \"max_rel_err\": %.3g, \"tolerance\": %.3g, \"valid\": %s}\n",
                    rms ? "fast_rms" : "fast_ln", bf16 ? "bf16" : "fp32", C, rows, sh.threads_per_row, sh.vecs, sh.rows_per_block,
                    sh.scheme == normref::FastScheme::registers ? "registers"
                    : sh.scheme == normref::FastScheme::cluster ? "cluster" : "two_sweep",
                    variant.c_str(),
                    us, bytes, gbps, copy_gbps, 100.0 * gbps / copy_gbps, max_err, tol, max_err <= tol ? "true" : "false");
        std::fflush(stdout);
      }
  return 0;
}
