// normref: runs one CUDA LayerNorm/RMSNorm reference kernel on generated
// inputs, validates every output against the fp64 reference, times it
// (CUDA events, L2 flushed before every timed run, median), times a copy
// kernel in the same process, and prints one JSON object.
//   normref --kernel v6 --rows 32768 --hidden 4096 [--dtype bf16] [--block 256] ...
// --profile: set up, launch the kernel once, exit (for ncu).
// Exit codes: 0 ok, 1 validation or CUDA failure, 2 bad arguments.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "host/normref_args.hpp"
#include "host/normref_validate.hpp"
#include "input_gen.hpp"
#include "kernels/fast_launch.cuh"
#include "kernels/ladder.cuh"
#include "kernels/welford_rms.cuh"
#include "normref_launch.cuh"
#include "sim/core/counter_rng.hpp"
#include "sim/core/dropout_mask.hpp"
#include "sim/core/element_format.hpp"
#include "sim/core/npy.hpp"

#ifndef NORMREF_NVCC_FLAGS
#define NORMREF_NVCC_FLAGS "unknown"
#endif

using namespace normref;

namespace {

__global__ void copy_kernel(float4* __restrict__ dst, const float4* __restrict__ src, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

template <typename F>
std::vector<double> time_runs(F&& run, int warmup, int reps, void* flush, size_t flush_bytes, cudaStream_t st) {
  cudaEvent_t e0, e1;
  CUDA_OK(cudaEventCreate(&e0));
  CUDA_OK(cudaEventCreate(&e1));
  for (int i = 0; i < warmup; ++i) run();
  CUDA_OK(cudaStreamSynchronize(st));
  CUDA_OK(cudaGetLastError());
  std::vector<double> us;
  for (int i = 0; i < reps; ++i) {
    CUDA_OK(cudaMemsetAsync(flush, i & 0xff, flush_bytes, st));  // evict the inputs from L2
    CUDA_OK(cudaEventRecord(e0, st));
    run();
    CUDA_OK(cudaEventRecord(e1, st));
    CUDA_OK(cudaEventSynchronize(e1));
    float ms = 0;
    CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
    us.push_back(ms * 1000.0);
  }
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaEventDestroy(e0));
  CUDA_OK(cudaEventDestroy(e1));
  return us;
}

std::vector<float> to_floats(const std::vector<uint8_t>& raw, bool bf16) {
  if (!bf16) {
    std::vector<float> f(raw.size() / 4);
    std::memcpy(f.data(), raw.data(), raw.size());
    return f;
  }
  std::vector<float> f(raw.size() / 2);
  for (size_t i = 0; i < f.size(); ++i) {
    uint16_t h;
    std::memcpy(&h, raw.data() + 2 * i, 2);
    f[i] = normsim::core::bf16_bits_to_fp32(h);
  }
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (auto err = parse_args(argc, argv, a)) {
    std::fprintf(stderr, "%s\n", err->c_str());
    return 2;
  }
  const KernelInfo& ki = *find_kernel(a.kernel);
  const bool bf16 = a.dtype == DType::bf16;
  const size_t esize = bf16 ? 2 : 4;
  const int64_t N = a.rows, C = a.hidden;
  const size_t n = static_cast<size_t>(N * C);

  int dev_id = 0;
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDevice(&dev_id));
  CUDA_OK(cudaGetDeviceProperties(&prop, dev_id));
  size_t free_b = 0, total_b = 0;
  CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
  const size_t flush_bytes = std::max<size_t>(4 * static_cast<size_t>(prop.l2CacheSize), 256u << 20);
  const size_t copy_bytes = size_t(1) << 30;
  // Tensors of n elements: x, y (+ r, z fused; + dy backward), and the backward's partials.
  const size_t tensors = ki.kind == KernelKind::fused_residual ? 4 : ki.kind == KernelKind::backward ? 3 : 2;
  const size_t partial_bytes = ki.kind == KernelKind::backward ? 2 * static_cast<size_t>(N) * C * 4 : 0;
  const size_t need = tensors * n * esize + partial_bytes + flush_bytes + 2 * copy_bytes + 8 * N + 24 * C + (1 << 20);
  if (need > free_b) {
    std::fprintf(stderr, "normref: --rows/--hidden: %lld x %lld needs %zu MiB of device memory, %zu MiB free\n",
                 static_cast<long long>(N), static_cast<long long>(C), need >> 20, free_b >> 20);
    return 2;
  }

  cudaStream_t st;
  CUDA_OK(cudaStreamCreate(&st));
  Buffers B;
  CUDA_OK(cudaMalloc(&B.x, n * esize));
  CUDA_OK(cudaMalloc(&B.y, n * esize));
  CUDA_OK(cudaMalloc(&B.mean, N * sizeof(float)));
  CUDA_OK(cudaMalloc(&B.rstd, N * sizeof(float)));
  CUDA_OK(cudaMalloc(&B.w, C * sizeof(float)));
  CUDA_OK(cudaMalloc(&B.b, C * sizeof(float)));
  B.w_in = B.w, B.b_in = B.b;
  const bool params_in_input_type = bf16 && ki.block_from_hidden && ki.kind == KernelKind::forward;
  if (params_in_input_type) {
    CUDA_OK(cudaMalloc(&B.w_in, C * esize));
    CUDA_OK(cudaMalloc(&B.b_in, C * esize));
  }
  if (ki.kind == KernelKind::fused_residual) {
    CUDA_OK(cudaMalloc(&B.r, n * esize));
    CUDA_OK(cudaMalloc(&B.z, n * esize));
  }
  if (ki.kind == KernelKind::backward) {
    CUDA_OK(cudaMalloc(&B.dy, n * esize));
    CUDA_OK(cudaMalloc(&B.dgamma, C * sizeof(float)));
    CUDA_OK(cudaMalloc(&B.dbeta, C * sizeof(float)));
    B.bwd_blocks = bf16 ? dev::backward_blocks<__nv_bfloat16, false>(static_cast<int>(N), static_cast<int>(C))
                        : dev::backward_blocks<float, false>(static_cast<int>(N), static_cast<int>(C));
    CUDA_OK(cudaMalloc(&B.partial, 2 * static_cast<size_t>(B.bwd_blocks) * C * sizeof(float)));
  }

  // Inputs: x on the device with the shared RNG; gamma ~ N(1, 0.1), beta ~ N(0, 0.1) on the host.
  const normsim::rng::Distribution dist = a.dist == "cancellation"
                                              ? normsim::rng::Distribution::cancellation(a.dist_mean, a.dist_sigma)
                                              : normsim::rng::Distribution::normal(a.dist_mean, a.dist_sigma);
  CUDA_OK(generate_input(B.x, bf16, static_cast<int64_t>(n), dist, a.seed, st));
  std::vector<float> gamma(C), beta(C);
  for (int64_t i = 0; i < C; ++i) {
    gamma[i] = static_cast<float>(normsim::rng::sample(normsim::rng::Distribution::normal(1.0, 0.1), a.seed,
                                                       normsim::rng::kGamma, static_cast<uint64_t>(i)));
    beta[i] = static_cast<float>(normsim::rng::sample(normsim::rng::Distribution::normal(0.0, 0.1), a.seed,
                                                      normsim::rng::kBeta, static_cast<uint64_t>(i)));
  }
  if (params_in_input_type) {
    // The kernel reads bf16 gamma/beta: round them, and validate against the rounded values.
    std::vector<uint16_t> gw(C), bw(C);
    for (int64_t i = 0; i < C; ++i) {
      gw[i] = normsim::core::fp32_to_bf16_bits(gamma[i]), gamma[i] = normsim::core::bf16_bits_to_fp32(gw[i]);
      bw[i] = normsim::core::fp32_to_bf16_bits(beta[i]), beta[i] = normsim::core::bf16_bits_to_fp32(bw[i]);
    }
    CUDA_OK(cudaMemcpyAsync(B.w_in, gw.data(), C * 2, cudaMemcpyHostToDevice, st));
    CUDA_OK(cudaMemcpyAsync(B.b_in, bw.data(), C * 2, cudaMemcpyHostToDevice, st));
    CUDA_OK(cudaStreamSynchronize(st));  // gw, bw leave scope
  }
  CUDA_OK(cudaMemcpyAsync(B.w, gamma.data(), C * sizeof(float), cudaMemcpyHostToDevice, st));
  CUDA_OK(cudaMemcpyAsync(B.b, beta.data(), C * sizeof(float), cudaMemcpyHostToDevice, st));
  // Second inputs: the residual r, or the output gradient dy, ~ N(0, 1) from their own RNG streams.
  if (B.r) CUDA_OK(generate_input(B.r, bf16, static_cast<int64_t>(n), normsim::rng::Distribution::normal(0.0, 1.0), a.seed, st,
                                  normsim::rng::kResidual));
  if (B.dy) CUDA_OK(generate_input(B.dy, bf16, static_cast<int64_t>(n), normsim::rng::Distribution::normal(0.0, 1.0), a.seed,
                                   st, normsim::rng::kGradOut));
  CUDA_OK(cudaStreamSynchronize(st));
  // The backward reads the forward's statistics: the fp64 ones of x, rounded to fp32.
  std::vector<float> bwd_mean, bwd_rstd;
  if (ki.kind == KernelKind::backward) {
    std::vector<uint8_t> raw(n * esize);
    CUDA_OK(cudaMemcpy(raw.data(), B.x, raw.size(), cudaMemcpyDeviceToHost));
    backward_statistics(to_floats(raw, bf16), N, C, dev::kEps, bwd_mean, bwd_rstd);
    CUDA_OK(cudaMemcpy(B.mean, bwd_mean.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(B.rstd, bwd_rstd.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  }

  if (a.mode == Mode::profile) {
    const Launch L = launch(a, B, st);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(st));
    std::printf("{\"kernel\": \"%s\", \"ran\": \"%s\", \"profile\": true}\n", a.kernel.c_str(), L.ran.c_str());
    return 0;
  }

  // The device's inputs must be the host's bits: check 4096 spread elements.
  {
    std::vector<uint8_t> raw(n * esize);
    CUDA_OK(cudaMemcpy(raw.data(), B.x, raw.size(), cudaMemcpyDeviceToHost));
    const size_t step = std::max<size_t>(1, n / 4096);
    for (size_t i = 0; i < n; i += step) {
      const double v = normsim::rng::sample(dist, a.seed, normsim::rng::kInput, i);
      const float f = static_cast<float>(v);
      bool same;
      if (bf16) {
        uint16_t h;
        std::memcpy(&h, raw.data() + 2 * i, 2);
        same = h == normsim::core::fp32_to_bf16_bits(f);
      } else {
        float g;
        std::memcpy(&g, raw.data() + 4 * i, 4);
        same = std::memcmp(&g, &f, 4) == 0;
      }
      if (!same) {
        std::fprintf(stderr, "normref: device RNG differs from the host at element %zu\n", i);
        return 1;
      }
    }
  }

  // Poison the outputs (NaN), run once, validate every element.
  const bool backward = ki.kind == KernelKind::backward, fused = ki.kind == KernelKind::fused_residual;
  CUDA_OK(cudaMemsetAsync(B.y, 0xff, n * esize, st));
  if (backward) {
    CUDA_OK(cudaMemsetAsync(B.dgamma, 0xff, C * sizeof(float), st));
    CUDA_OK(cudaMemsetAsync(B.dbeta, 0xff, C * sizeof(float), st));
  } else {
    CUDA_OK(cudaMemsetAsync(B.mean, 0xff, N * sizeof(float), st));
    CUDA_OK(cudaMemsetAsync(B.rstd, 0xff, N * sizeof(float), st));
  }
  if (fused) CUDA_OK(cudaMemsetAsync(B.z, 0xff, n * esize, st));
  const Launch L = launch(a, B, st);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaStreamSynchronize(st));
  std::vector<uint8_t> xraw(n * esize), yraw(n * esize), zraw;
  std::vector<float> mean(N), rstd(N), dgamma, dbeta;
  CUDA_OK(cudaMemcpy(xraw.data(), B.x, xraw.size(), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(yraw.data(), B.y, yraw.size(), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(mean.data(), B.mean, N * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(rstd.data(), B.rstd, N * sizeof(float), cudaMemcpyDeviceToHost));
  const std::vector<float> xf = to_floats(xraw, bf16), yf = to_floats(yraw, bf16);
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ValidationResult v;
  double dropped_fraction = 0;  ///< fused_residual_dropout: the share of x the mask dropped
  if (backward) {
    dgamma.resize(C), dbeta.resize(C);
    CUDA_OK(cudaMemcpy(dgamma.data(), B.dgamma, C * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(dbeta.data(), B.dbeta, C * sizeof(float), cudaMemcpyDeviceToHost));
    std::vector<uint8_t> dyraw(n * esize);
    CUDA_OK(cudaMemcpy(dyraw.data(), B.dy, dyraw.size(), cudaMemcpyDeviceToHost));
    v = validate_backward(a.dtype, N, C, xf, to_floats(dyraw, bf16), gamma, mean, rstd, yf, dgamma, dbeta, threads);
  } else if (fused) {
    // z must be x + r rounded to the dtype, bit for bit; y is validated as LN(z).
    zraw.resize(n * esize);
    std::vector<uint8_t> rraw(n * esize);
    CUDA_OK(cudaMemcpy(zraw.data(), B.z, zraw.size(), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(rraw.data(), B.r, rraw.size(), cudaMemcpyDeviceToHost));
    const std::vector<float> zf = to_floats(zraw, bf16), rf = to_floats(rraw, bf16);
    // With dropout: the host regenerates the mask (sim/core/dropout_mask.hpp).
    const double p = a.dropout();
    const uint32_t threshold = normsim::rng::dropout_threshold(p);
    const float scale = normsim::rng::dropout_scale(p);
    int64_t z_wrong = 0, first = -1, dropped = 0;
    for (size_t i = 0; i < n; ++i) {
      float branch = xf[i];
      if (ki.dropout) {
        const bool keep = normsim::rng::dropout_keep(a.seed, i, threshold);
        dropped += !keep;
        branch = keep ? branch * scale : 0.0f;
      }
      float want = branch + rf[i];
      if (bf16) want = normsim::core::bf16_bits_to_fp32(normsim::core::fp32_to_bf16_bits(want));
      if (std::memcmp(&want, &zf[i], 4) != 0 && ++z_wrong == 1) first = static_cast<int64_t>(i);
    }
    dropped_fraction = static_cast<double>(dropped) / static_cast<double>(n);
    v = validate(ki, a.dtype, N, C, dev::kEps, zf, gamma, beta, yf, mean, rstd, threads);
    if (z_wrong && v.valid) {
      v.valid = false;
      v.reason = std::string(ki.dropout ? "z = dropout(x) + r" : "z = x + r") + " differs from the rounded sum in " +
                 std::to_string(z_wrong) + " elements (first: " +
                 std::to_string(first) + ")";
    }
  } else {
    v = validate(ki, a.dtype, N, C, dev::kEps, xf, gamma, beta, yf, mean, rstd, threads);
  }

  std::string npy_files;
  // Outputs up to --npy-max-elements: all rows, or (forward kernels) the
  // first rows that fit -- enough to check the arithmetic of a long-row case
  // without storing all of it. The backward's dgamma/dbeta need every row.
  const int64_t npy_rows = static_cast<int64_t>(n) <= a.npy_max_elements ? N
                           : backward                                     ? 0
                                                                          : std::min<int64_t>(N, std::max<int64_t>(1, a.npy_max_elements / C));
  if (!a.npy_dir.empty() && npy_rows > 0) {
    const std::string stem = a.npy_dir + "/" + a.kernel + "_" + (bf16 ? "bf16" : "fp32") + "_" + std::to_string(N) +
                             "x" + std::to_string(C) + "_b" + std::to_string(L.block) + "_" + a.dist;
    auto tensor = [&](const std::string& part, const std::vector<uint8_t>& raw) {
      const size_t bytes = static_cast<size_t>(npy_rows * C) * (bf16 ? 2 : 4);
      if (bf16) normsim::core::write_npy(stem + "_" + part + ".npy", "<u2", {npy_rows, C}, raw.data(), bytes);  // raw bf16 bits
      else normsim::core::write_npy(stem + "_" + part + ".npy", "<f4", {npy_rows, C}, raw.data(), bytes);
    };
    tensor(backward ? "dx" : "y", yraw);
    if (fused) tensor("z", zraw);
    if (backward) {
      normsim::core::write_npy(stem + "_dgamma.npy", dgamma, {C});
      normsim::core::write_npy(stem + "_dbeta.npy", dbeta, {C});
    } else {
      const std::vector<float> rstd_saved(rstd.begin(), rstd.begin() + npy_rows), mean_saved(mean.begin(), mean.begin() + (ki.layernorm ? npy_rows : 0));
      normsim::core::write_npy(stem + "_rstd.npy", rstd_saved, {npy_rows});
      if (ki.layernorm) normsim::core::write_npy(stem + "_mean.npy", mean_saved, {npy_rows});
    }
    npy_files = "\"" + json_escape(stem) + "\"";
  }

  // Timing: the kernel, then a copy kernel, each with L2 flushed before every run.
  void* flush = nullptr;
  void *csrc = nullptr, *cdst = nullptr;
  CUDA_OK(cudaMalloc(&flush, flush_bytes));
  CUDA_OK(cudaMalloc(&csrc, copy_bytes));
  CUDA_OK(cudaMalloc(&cdst, copy_bytes));
  CUDA_OK(cudaMemsetAsync(csrc, 0x3c, copy_bytes, st));
  const std::vector<double> kus = time_runs([&] { launch(a, B, st); }, a.warmup, a.reps, flush, flush_bytes, st);
  const size_t n4 = copy_bytes / 16;
  const std::vector<double> cus = time_runs(
      [&] { copy_kernel<<<prop.multiProcessorCount * 8, 512, 0, st>>>(static_cast<float4*>(cdst),
                                                                     static_cast<const float4*>(csrc), n4); },
      3, a.reps, flush, flush_bytes, st);
  const double t_us = median(kus), copy_us = median(cus);
  const double copy_gbps = 2.0 * copy_bytes / (copy_us * 1e3);
  // Ideal bytes: every tensor once. Forward: x read, y written, params
  // read, stats written; fused: x and r read, z and y written; backward: x
  // and dy read, dx written, gamma and the stats read, dgamma/dbeta written.
  const double param_bytes = params_in_input_type ? static_cast<double>(esize) : 4.0;
  const int params = ki.layernorm ? 2 : 1, stats = ki.layernorm ? 2 : 1;
  const int tensors_moved = fused ? 4 : backward ? 3 : 2;
  const double ideal = static_cast<double>(n) * esize * tensors_moved +
                       (backward ? 3 * C * 4.0 + 2 * N * 4.0 : params * C * param_bytes + stats * N * 4.0);
  const std::string bytes_formula =
      backward ? std::string("rows*hidden*") + (bf16 ? "2" : "4") + "*3 + 3*hidden*4 + 2*rows*4"
               : std::string("rows*hidden*") + (bf16 ? "2" : "4") + "*" + std::to_string(tensors_moved) + " + " +
                     std::to_string(params) + "*hidden*" + (params_in_input_type ? "2" : "4") + " + " +
                     std::to_string(stats) + "*rows*4";

  cudaFuncAttributes fa{};
  CUDA_OK(cudaFuncGetAttributes(&fa, L.func));
  int clock_khz = 0;
  CUDA_OK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev_id));

  JsonObject val;
  val.boolean("valid", v.valid).str("reason", v.reason).num("max_abs_error", v.max_abs_error)
      .num("rel_l2_error", v.rel_l2_error).num("max_tolerance_ratio", v.max_tolerance_ratio)
      .num("mean_max_abs_error", v.mean_max_abs_error).num("rstd_max_rel_error", v.rstd_max_rel_error)
      .num("param_grad_max_tolerance_ratio", v.param_grad_max_tolerance_ratio)
      .integer("nonfinite", v.nonfinite).num("tolerance_k", kTolK);
  std::string times = "[";
  for (size_t i = 0; i < kus.size(); ++i) times += (i ? ", " : "") + std::to_string(kus[i]);
  times += "]";
  JsonObject j;
  j.str("kernel", a.kernel).str("ran", L.ran).integer("rows", N).integer("hidden", C)
      .str("dtype", bf16 ? "bf16" : "fp32").integer("block", L.block).integer("grid", L.grid)
      .integer("dynamic_smem_bytes", static_cast<int64_t>(L.smem)).integer("registers_per_thread", fa.numRegs)
      .integer("static_smem_bytes", static_cast<int64_t>(fa.sharedSizeBytes))
      .str("dist", a.dist).num("dist_mean", a.dist_mean).num("dist_sigma", a.dist_sigma)
      .integer("seed", static_cast<int64_t>(a.seed)).num("eps", dev::kEps)
      .num("dropout_p", a.dropout()).num("dropped_fraction", dropped_fraction)
      .num("time_us", t_us).num("time_us_min", *std::min_element(kus.begin(), kus.end()))
      .num("time_us_max", *std::max_element(kus.begin(), kus.end())).integer("reps", a.reps).raw("times_us", times)
      .num("copy_gbps", copy_gbps).num("copy_us", copy_us).integer("copy_bytes", static_cast<int64_t>(2 * copy_bytes))
      .num("ideal_bytes", ideal)
      .str("bytes_formula", bytes_formula)
      .num("gbps", ideal / (t_us * 1e3)).num("pct_of_copy", 100.0 * (ideal / (t_us * 1e3)) / copy_gbps)
      .raw("validation", val.dump()).raw("outputs", npy_files.empty() ? "null" : npy_files)
      .str("device", prop.name).integer("sms", prop.multiProcessorCount)
      .integer("l2_bytes", prop.l2CacheSize).integer("sm_clock_khz", clock_khz)
      .str("nvcc_flags", NORMREF_NVCC_FLAGS)
      .integer("cuda_runtime", CUDART_VERSION);
  const std::string out = j.dump() + "\n";
  if (a.json_path.empty()) {
    std::fputs(out.c_str(), stdout);
  } else {
    FILE* f = std::fopen(a.json_path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "normref: --json: cannot write %s\n", a.json_path.c_str());
      return 2;
    }
    std::fputs(out.c_str(), f);
    std::fclose(f);
  }
  if (!v.valid) {
    std::fprintf(stderr, "normref: %s %s %lldx%lld failed validation: %s\n", a.kernel.c_str(), bf16 ? "bf16" : "fp32",
                 static_cast<long long>(N), static_cast<long long>(C), v.reason.c_str());
    if (!a.allow_invalid) return 1;
  }
  return 0;
}
