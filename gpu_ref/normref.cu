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
#include <optional>
#include <string>
#include <thread>
#include <utility>
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

// One run's shape and kind, fixed by its arguments.
struct Run {
  const Args& a;
  const KernelInfo& ki;
  bool bf16;
  size_t esize;
  int64_t N, C;
  size_t n;  ///< N C elements a tensor
  bool backward, fused;
  bool params_in_input_type;  ///< bf16 gamma/beta (fast_* kernels read them as torch keeps them)
  Run(const Args& args, const KernelInfo& k)
      : a(args),
        ki(k),
        bf16(args.dtype == DType::bf16),
        esize(bf16 ? 2 : 4),
        N(args.rows),
        C(args.hidden),
        n(static_cast<size_t>(N * C)),
        backward(k.kind == KernelKind::backward),
        fused(k.kind == KernelKind::fused_residual),
        params_in_input_type(bf16 && k.block_from_hidden && k.kind == KernelKind::forward) {}
};

// The device memory a run needs; the message for exit 2 when it is not free.
std::optional<std::string> check_memory(const Run& r, size_t flush_bytes, size_t copy_bytes) {
  size_t free_b = 0, total_b = 0;
  CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
  // Tensors of n elements: x, y (+ r, z fused; + dy backward), and the backward's partials.
  const size_t tensors = r.fused ? 4 : r.backward ? 3 : 2;
  const size_t partial_bytes = r.backward ? 2 * r.n * 4 : 0;
  const size_t need = tensors * r.n * r.esize + partial_bytes + flush_bytes + 2 * copy_bytes + 8 * r.N + 24 * r.C + (1 << 20);
  if (need <= free_b) return std::nullopt;
  char msg[200];
  std::snprintf(msg, sizeof msg, "normref: --rows/--hidden: %lld x %lld needs %zu MiB of device memory, %zu MiB free",
                static_cast<long long>(r.N), static_cast<long long>(r.C), need >> 20, free_b >> 20);
  return std::string(msg);
}

Buffers allocate(const Run& r) {
  Buffers B;
  CUDA_OK(cudaMalloc(&B.x, r.n * r.esize));
  CUDA_OK(cudaMalloc(&B.y, r.n * r.esize));
  CUDA_OK(cudaMalloc(&B.mean, r.N * sizeof(float)));
  CUDA_OK(cudaMalloc(&B.rstd, r.N * sizeof(float)));
  CUDA_OK(cudaMalloc(&B.w, r.C * sizeof(float)));
  CUDA_OK(cudaMalloc(&B.b, r.C * sizeof(float)));
  B.w_in = B.w, B.b_in = B.b;
  if (r.params_in_input_type) {
    CUDA_OK(cudaMalloc(&B.w_in, r.C * r.esize));
    CUDA_OK(cudaMalloc(&B.b_in, r.C * r.esize));
  }
  if (r.fused) {
    CUDA_OK(cudaMalloc(&B.r, r.n * r.esize));
    CUDA_OK(cudaMalloc(&B.z, r.n * r.esize));
  }
  if (r.backward) {
    CUDA_OK(cudaMalloc(&B.dy, r.n * r.esize));
    CUDA_OK(cudaMalloc(&B.dgamma, r.C * sizeof(float)));
    CUDA_OK(cudaMalloc(&B.dbeta, r.C * sizeof(float)));
    const int N = static_cast<int>(r.N), C = static_cast<int>(r.C);
    B.bwd_blocks = r.bf16 ? dev::backward_blocks<__nv_bfloat16, false>(N, C) : dev::backward_blocks<float, false>(N, C);
    CUDA_OK(cudaMalloc(&B.partial, 2 * static_cast<size_t>(B.bwd_blocks) * r.C * sizeof(float)));
  }
  return B;
}

// Inputs: x on the device with the shared RNG; gamma ~ N(1, 0.1), beta ~ N(0, 0.1)
// on the host (returned as the kernel reads them); r or dy; the backward's statistics.
std::pair<std::vector<float>, std::vector<float>> upload_inputs(const Run& r, const Buffers& B,
                                                                const normsim::rng::Distribution& dist, cudaStream_t st) {
  const Args& a = r.a;
  CUDA_OK(generate_input(B.x, r.bf16, static_cast<int64_t>(r.n), dist, a.seed, st));
  std::vector<float> gamma(r.C), beta(r.C);
  for (int64_t i = 0; i < r.C; ++i) {
    gamma[i] = static_cast<float>(normsim::rng::sample(normsim::rng::Distribution::normal(1.0, 0.1), a.seed,
                                                       normsim::rng::kGamma, static_cast<uint64_t>(i)));
    beta[i] = static_cast<float>(normsim::rng::sample(normsim::rng::Distribution::normal(0.0, 0.1), a.seed,
                                                      normsim::rng::kBeta, static_cast<uint64_t>(i)));
  }
  if (r.params_in_input_type) {
    // The kernel reads bf16 gamma/beta: round them, and validate against the rounded values.
    std::vector<uint16_t> gw(r.C), bw(r.C);
    for (int64_t i = 0; i < r.C; ++i) {
      gw[i] = normsim::core::fp32_to_bf16_bits(gamma[i]), gamma[i] = normsim::core::bf16_bits_to_fp32(gw[i]);
      bw[i] = normsim::core::fp32_to_bf16_bits(beta[i]), beta[i] = normsim::core::bf16_bits_to_fp32(bw[i]);
    }
    CUDA_OK(cudaMemcpyAsync(B.w_in, gw.data(), r.C * 2, cudaMemcpyHostToDevice, st));
    CUDA_OK(cudaMemcpyAsync(B.b_in, bw.data(), r.C * 2, cudaMemcpyHostToDevice, st));
    CUDA_OK(cudaStreamSynchronize(st));  // gw, bw leave scope
  }
  CUDA_OK(cudaMemcpyAsync(B.w, gamma.data(), r.C * sizeof(float), cudaMemcpyHostToDevice, st));
  CUDA_OK(cudaMemcpyAsync(B.b, beta.data(), r.C * sizeof(float), cudaMemcpyHostToDevice, st));
  // Second inputs: the residual r, or the output gradient dy, ~ N(0, 1) from their own RNG streams.
  if (B.r) CUDA_OK(generate_input(B.r, r.bf16, static_cast<int64_t>(r.n), normsim::rng::Distribution::normal(0.0, 1.0), a.seed, st,
                                  normsim::rng::kResidual));
  if (B.dy) CUDA_OK(generate_input(B.dy, r.bf16, static_cast<int64_t>(r.n), normsim::rng::Distribution::normal(0.0, 1.0), a.seed,
                                   st, normsim::rng::kGradOut));
  CUDA_OK(cudaStreamSynchronize(st));
  // The backward reads the forward's statistics: the fp64 ones of x, rounded to fp32.
  if (r.backward) {
    std::vector<float> bwd_mean, bwd_rstd;
    std::vector<uint8_t> raw(r.n * r.esize);
    CUDA_OK(cudaMemcpy(raw.data(), B.x, raw.size(), cudaMemcpyDeviceToHost));
    backward_statistics(to_floats(raw, r.bf16), r.N, r.C, dev::kEps, bwd_mean, bwd_rstd);
    CUDA_OK(cudaMemcpy(B.mean, bwd_mean.data(), r.N * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(B.rstd, bwd_rstd.data(), r.N * sizeof(float), cudaMemcpyHostToDevice));
  }
  return {std::move(gamma), std::move(beta)};
}

// The device's inputs must be the host's bits: checks 4096 spread elements;
// the first that differs, or -1.
int64_t device_rng_mismatch(const Run& r, const Buffers& B, const normsim::rng::Distribution& dist) {
  std::vector<uint8_t> raw(r.n * r.esize);
  CUDA_OK(cudaMemcpy(raw.data(), B.x, raw.size(), cudaMemcpyDeviceToHost));
  const size_t step = std::max<size_t>(1, r.n / 4096);
  for (size_t i = 0; i < r.n; i += step) {
    const double v = normsim::rng::sample(dist, r.a.seed, normsim::rng::kInput, i);
    const float f = static_cast<float>(v);
    bool same;
    if (r.bf16) {
      uint16_t h;
      std::memcpy(&h, raw.data() + 2 * i, 2);
      same = h == normsim::core::fp32_to_bf16_bits(f);
    } else {
      float g;
      std::memcpy(&g, raw.data() + 4 * i, 4);
      same = std::memcmp(&g, &f, 4) == 0;
    }
    if (!same) return static_cast<int64_t>(i);
  }
  return -1;
}

// One validated launch: its outputs as the device wrote them and the verdict.
struct Checked {
  Launch L;
  std::vector<uint8_t> yraw, zraw;
  std::vector<float> mean, rstd, dgamma, dbeta;
  ValidationResult v;
  double dropped_fraction = 0;  ///< fused_residual_dropout: the share of x the mask dropped
};

// z must be x + r (dropout(x) + r) rounded to the dtype, bit for bit: the
// elements that differ and the first of them (-1: none).
std::pair<int64_t, int64_t> check_sum(const Run& r, const std::vector<float>& xf, const std::vector<float>& rf,
                                      const std::vector<float>& zf, int64_t& dropped) {
  // With dropout: the host regenerates the mask (sim/core/dropout_mask.hpp).
  const double p = r.a.dropout();
  const uint32_t threshold = normsim::rng::dropout_threshold(p);
  const float scale = normsim::rng::dropout_scale(p);
  int64_t wrong = 0, first = -1;
  for (size_t i = 0; i < r.n; ++i) {
    float branch = xf[i];
    if (r.ki.dropout) {
      const bool keep = normsim::rng::dropout_keep(r.a.seed, i, threshold);
      dropped += !keep;
      branch = keep ? branch * scale : 0.0f;
    }
    float want = branch + rf[i];
    if (r.bf16) want = normsim::core::bf16_bits_to_fp32(normsim::core::fp32_to_bf16_bits(want));
    if (std::memcmp(&want, &zf[i], 4) != 0 && ++wrong == 1) first = static_cast<int64_t>(i);
  }
  return {wrong, first};
}

// Poisons the outputs (NaN), runs the kernel once and validates every element.
Checked run_and_validate(const Run& r, const Buffers& B, const std::vector<float>& gamma, const std::vector<float>& beta,
                         cudaStream_t st) {
  const Args& a = r.a;
  const int64_t N = r.N, C = r.C;
  CUDA_OK(cudaMemsetAsync(B.y, 0xff, r.n * r.esize, st));
  if (r.backward) {
    CUDA_OK(cudaMemsetAsync(B.dgamma, 0xff, C * sizeof(float), st));
    CUDA_OK(cudaMemsetAsync(B.dbeta, 0xff, C * sizeof(float), st));
  } else {
    CUDA_OK(cudaMemsetAsync(B.mean, 0xff, N * sizeof(float), st));
    CUDA_OK(cudaMemsetAsync(B.rstd, 0xff, N * sizeof(float), st));
  }
  if (r.fused) CUDA_OK(cudaMemsetAsync(B.z, 0xff, r.n * r.esize, st));
  Checked c;
  c.L = launch(a, B, st);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaStreamSynchronize(st));
  std::vector<uint8_t> xraw(r.n * r.esize);
  c.yraw.resize(r.n * r.esize);
  c.mean.resize(N), c.rstd.resize(N);
  CUDA_OK(cudaMemcpy(xraw.data(), B.x, xraw.size(), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(c.yraw.data(), B.y, c.yraw.size(), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(c.mean.data(), B.mean, N * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(c.rstd.data(), B.rstd, N * sizeof(float), cudaMemcpyDeviceToHost));
  const std::vector<float> xf = to_floats(xraw, r.bf16), yf = to_floats(c.yraw, r.bf16);
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (r.backward) {
    c.dgamma.resize(C), c.dbeta.resize(C);
    CUDA_OK(cudaMemcpy(c.dgamma.data(), B.dgamma, C * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(c.dbeta.data(), B.dbeta, C * sizeof(float), cudaMemcpyDeviceToHost));
    std::vector<uint8_t> dyraw(r.n * r.esize);
    CUDA_OK(cudaMemcpy(dyraw.data(), B.dy, dyraw.size(), cudaMemcpyDeviceToHost));
    c.v = validate_backward(a.dtype, N, C, xf, to_floats(dyraw, r.bf16), gamma, c.mean, c.rstd, yf, c.dgamma, c.dbeta,
                            threads);
  } else if (r.fused) {
    // z bit for bit; y is validated as LN(z).
    c.zraw.resize(r.n * r.esize);
    std::vector<uint8_t> rraw(r.n * r.esize);
    CUDA_OK(cudaMemcpy(c.zraw.data(), B.z, c.zraw.size(), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(rraw.data(), B.r, rraw.size(), cudaMemcpyDeviceToHost));
    const std::vector<float> zf = to_floats(c.zraw, r.bf16), rf = to_floats(rraw, r.bf16);
    int64_t dropped = 0;
    const auto [z_wrong, first] = check_sum(r, xf, rf, zf, dropped);
    c.dropped_fraction = static_cast<double>(dropped) / static_cast<double>(r.n);
    c.v = validate(r.ki, a.dtype, N, C, dev::kEps, zf, gamma, beta, yf, c.mean, c.rstd, threads);
    if (z_wrong && c.v.valid) {
      c.v.valid = false;
      c.v.reason = std::string(r.ki.dropout ? "z = dropout(x) + r" : "z = x + r") + " differs from the rounded sum in " +
                   std::to_string(z_wrong) + " elements (first: " + std::to_string(first) + ")";
    }
  } else {
    c.v = validate(r.ki, a.dtype, N, C, dev::kEps, xf, gamma, beta, yf, c.mean, c.rstd, threads);
  }
  return c;
}

// Outputs up to --npy-max-elements: all rows, or the first rows that fit --
// enough to check the arithmetic of a long-row case without storing all of
// it. The backward's dgamma/dbeta are whole (they sum every row). Returns the
// files' stem as a JSON string, or "" when none were written.
std::string write_outputs(const Run& r, const Checked& c) {
  const Args& a = r.a;
  const int64_t N = r.N, C = r.C;
  const int64_t npy_rows = static_cast<int64_t>(r.n) <= a.npy_max_elements
                               ? N
                               : std::min<int64_t>(N, std::max<int64_t>(1, a.npy_max_elements / C));
  if (a.npy_dir.empty() || npy_rows <= 0) return "";
  const std::string stem = a.npy_dir + "/" + a.kernel + "_" + (r.bf16 ? "bf16" : "fp32") + "_" + std::to_string(N) + "x" +
                           std::to_string(C) + "_b" + std::to_string(c.L.block) + "_" + a.dist;
  auto tensor = [&](const std::string& part, const std::vector<uint8_t>& raw) {
    const size_t bytes = static_cast<size_t>(npy_rows * C) * (r.bf16 ? 2 : 4);
    if (r.bf16) normsim::core::write_npy(stem + "_" + part + ".npy", "<u2", {npy_rows, C}, raw.data(), bytes);  // raw bf16 bits
    else normsim::core::write_npy(stem + "_" + part + ".npy", "<f4", {npy_rows, C}, raw.data(), bytes);
  };
  tensor(r.backward ? "dx" : "y", c.yraw);
  if (r.fused) tensor("z", c.zraw);
  if (r.backward) {
    normsim::core::write_npy(stem + "_dgamma.npy", c.dgamma, {C});
    normsim::core::write_npy(stem + "_dbeta.npy", c.dbeta, {C});
  } else {
    const std::vector<float> rstd_saved(c.rstd.begin(), c.rstd.begin() + npy_rows),
        mean_saved(c.mean.begin(), c.mean.begin() + (r.ki.layernorm ? npy_rows : 0));
    normsim::core::write_npy(stem + "_rstd.npy", rstd_saved, {npy_rows});
    if (r.ki.layernorm) normsim::core::write_npy(stem + "_mean.npy", mean_saved, {npy_rows});
  }
  return "\"" + json_escape(stem) + "\"";
}

// The kernel's times, then a copy kernel's in the same process, each with L2 flushed before every run.
struct Timing {
  std::vector<double> kernel_us;
  double copy_us = 0, copy_gbps = 0;
};
Timing time_kernel(const Run& r, const Buffers& B, const cudaDeviceProp& prop, size_t flush_bytes, size_t copy_bytes,
                   cudaStream_t st) {
  void* flush = nullptr;
  void *csrc = nullptr, *cdst = nullptr;
  CUDA_OK(cudaMalloc(&flush, flush_bytes));
  CUDA_OK(cudaMalloc(&csrc, copy_bytes));
  CUDA_OK(cudaMalloc(&cdst, copy_bytes));
  CUDA_OK(cudaMemsetAsync(csrc, 0x3c, copy_bytes, st));
  Timing t;
  t.kernel_us = time_runs([&] { launch(r.a, B, st); }, r.a.warmup, r.a.reps, flush, flush_bytes, st);
  const size_t n4 = copy_bytes / 16;
  const std::vector<double> cus = time_runs(
      [&] { copy_kernel<<<prop.multiProcessorCount * 8, 512, 0, st>>>(static_cast<float4*>(cdst),
                                                                     static_cast<const float4*>(csrc), n4); },
      3, r.a.reps, flush, flush_bytes, st);
  t.copy_us = median(cus);
  t.copy_gbps = 2.0 * copy_bytes / (t.copy_us * 1e3);
  return t;
}

// The run's JSON line: the launch, the inputs, the timing against the copy, the validation, the device.
std::string report_json(const Run& r, const Checked& c, const Timing& t, const std::string& npy_files,
                        const cudaDeviceProp& prop, size_t copy_bytes, int dev_id) {
  const Args& a = r.a;
  const int64_t N = r.N, C = r.C;
  const double t_us = median(t.kernel_us);
  // Ideal bytes: every tensor once. Forward: x read, y written, params
  // read, stats written; fused: x and r read, z and y written; backward: x
  // and dy read, dx written, gamma and the stats read, dgamma/dbeta written.
  const double param_bytes = r.params_in_input_type ? static_cast<double>(r.esize) : 4.0;
  const int params = r.ki.layernorm ? 2 : 1, stats = r.ki.layernorm ? 2 : 1;
  const int tensors_moved = r.fused ? 4 : r.backward ? 3 : 2;
  const double ideal = static_cast<double>(r.n) * r.esize * tensors_moved +
                       (r.backward ? 3 * C * 4.0 + 2 * N * 4.0 : params * C * param_bytes + stats * N * 4.0);
  const std::string bytes_formula =
      r.backward ? std::string("rows*hidden*") + (r.bf16 ? "2" : "4") + "*3 + 3*hidden*4 + 2*rows*4"
                 : std::string("rows*hidden*") + (r.bf16 ? "2" : "4") + "*" + std::to_string(tensors_moved) + " + " +
                       std::to_string(params) + "*hidden*" + (r.params_in_input_type ? "2" : "4") + " + " +
                       std::to_string(stats) + "*rows*4";
  cudaFuncAttributes fa{};
  CUDA_OK(cudaFuncGetAttributes(&fa, c.L.func));
  int clock_khz = 0;
  CUDA_OK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev_id));
  const ValidationResult& v = c.v;
  JsonObject val;
  val.boolean("valid", v.valid).str("reason", v.reason).num("max_abs_error", v.max_abs_error)
      .num("rel_l2_error", v.rel_l2_error).num("max_tolerance_ratio", v.max_tolerance_ratio)
      .num("mean_max_abs_error", v.mean_max_abs_error).num("rstd_max_rel_error", v.rstd_max_rel_error)
      .num("param_grad_max_tolerance_ratio", v.param_grad_max_tolerance_ratio)
      .integer("nonfinite", v.nonfinite).num("tolerance_k", kTolK);
  std::string times = "[";
  for (size_t i = 0; i < t.kernel_us.size(); ++i) times += (i ? ", " : "") + std::to_string(t.kernel_us[i]);
  times += "]";
  JsonObject j;
  j.str("kernel", a.kernel).str("ran", c.L.ran).integer("rows", N).integer("hidden", C)
      .str("dtype", r.bf16 ? "bf16" : "fp32").integer("block", c.L.block).integer("grid", c.L.grid)
      .integer("dynamic_smem_bytes", static_cast<int64_t>(c.L.smem)).integer("registers_per_thread", fa.numRegs)
      .integer("static_smem_bytes", static_cast<int64_t>(fa.sharedSizeBytes))
      .str("dist", a.dist).num("dist_mean", a.dist_mean).num("dist_sigma", a.dist_sigma)
      .integer("seed", static_cast<int64_t>(a.seed)).num("eps", dev::kEps)
      .num("dropout_p", a.dropout()).num("dropped_fraction", c.dropped_fraction)
      .num("time_us", t_us).num("time_us_min", *std::min_element(t.kernel_us.begin(), t.kernel_us.end()))
      .num("time_us_max", *std::max_element(t.kernel_us.begin(), t.kernel_us.end())).integer("reps", a.reps)
      .raw("times_us", times)
      .num("copy_gbps", t.copy_gbps).num("copy_us", t.copy_us).integer("copy_bytes", static_cast<int64_t>(2 * copy_bytes))
      .num("ideal_bytes", ideal)
      .str("bytes_formula", bytes_formula)
      .num("gbps", ideal / (t_us * 1e3)).num("pct_of_copy", 100.0 * (ideal / (t_us * 1e3)) / t.copy_gbps)
      .raw("validation", val.dump()).raw("outputs", npy_files.empty() ? "null" : npy_files)
      .str("device", prop.name).integer("sms", prop.multiProcessorCount)
      .integer("l2_bytes", prop.l2CacheSize).integer("sm_clock_khz", clock_khz)
      .str("nvcc_flags", NORMREF_NVCC_FLAGS)
      .integer("cuda_runtime", CUDART_VERSION);
  return j.dump() + "\n";
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (auto err = parse_args(argc, argv, a)) {
    std::fprintf(stderr, "%s\n", err->c_str());
    return 2;
  }
  const Run r(a, *find_kernel(a.kernel));
  int dev_id = 0;
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDevice(&dev_id));
  CUDA_OK(cudaGetDeviceProperties(&prop, dev_id));
  const size_t flush_bytes = std::max<size_t>(4 * static_cast<size_t>(prop.l2CacheSize), 256u << 20);
  const size_t copy_bytes = size_t(1) << 30;
  if (const auto too_big = check_memory(r, flush_bytes, copy_bytes)) {
    std::fprintf(stderr, "%s\n", too_big->c_str());
    return 2;
  }

  cudaStream_t st;
  CUDA_OK(cudaStreamCreate(&st));
  const Buffers B = allocate(r);
  const normsim::rng::Distribution dist = a.dist == "cancellation"
                                              ? normsim::rng::Distribution::cancellation(a.dist_mean, a.dist_sigma)
                                              : normsim::rng::Distribution::normal(a.dist_mean, a.dist_sigma);
  const auto [gamma, beta] = upload_inputs(r, B, dist, st);

  if (a.mode == Mode::profile) {
    const Launch L = launch(a, B, st);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(st));
    std::printf("{\"kernel\": \"%s\", \"ran\": \"%s\", \"profile\": true}\n", a.kernel.c_str(), L.ran.c_str());
    return 0;
  }
  if (const int64_t i = device_rng_mismatch(r, B, dist); i >= 0) {
    std::fprintf(stderr, "normref: device RNG differs from the host at element %lld\n", static_cast<long long>(i));
    return 1;
  }

  const Checked c = run_and_validate(r, B, gamma, beta, st);
  const std::string npy_files = write_outputs(r, c);
  const Timing t = time_kernel(r, B, prop, flush_bytes, copy_bytes, st);
  const std::string out = report_json(r, c, t, npy_files, prop, copy_bytes, dev_id);
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
  if (!c.v.valid) {
    std::fprintf(stderr, "normref: %s %s %lldx%lld failed validation: %s\n", a.kernel.c_str(), r.bf16 ? "bf16" : "fp32",
                 static_cast<long long>(r.N), static_cast<long long>(r.C), c.v.reason.c_str());
    if (!a.allow_invalid) return 1;
  }
  return 0;
}
