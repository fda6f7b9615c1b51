#include "sim/simt/kernel_desc.hpp"

#include <algorithm>

#include "host/normref_args.hpp"
#include "sim/config/config_error.hpp"

namespace normsim::simt {

namespace {

// Dynamic instructions per element and per-thread dependency chain, read off
// the kernel source (gpu_ref/kernels) and its SASS op mix (golden
// sass_facts.json): a load, a conversion for bf16, the accumulation (FADD or
// FFMA, 4 cycles dependent), index arithmetic. An IEEE division is a
// MUFU.RCP plus three dependent FFMAs and a range check (sm_90 SASS):
// about 10 instructions and 40 cycles on the chain.
// The unroll of each pass (x loads in flight per thread) is read off the
// SASS (golden normref.sass.gz: LDG instructions per loop body): nvcc unrolls
// the warp-strided loops of v1-v4, v2 and rms_warp by 4 or 16, and leaves the
// block-strided loops (v5, rms_block, block_reread, welford_block_smem) and
// every normalise loop at one load of x per iteration; welford_warp_reg's
// unrolled body keeps each load next to its use.
constexpr double kAccumulate = 4;   // FADD/FFMA latency (cycles)
constexpr double kIeeeDivChain = 40;
constexpr double kIeeeDivInstr = 10;

Pass pass(Source s, int unroll, double instr, double chain, Reduction after = Reduction::none, int reductions = 1) {
  Pass p;
  p.source = s;
  p.loads_in_flight = unroll;
  p.instr_per_elem = instr;
  p.chain_cycles_per_elem = chain;
  p.after = after;
  p.reductions = reductions;
  return p;
}

// Welford push: n += 1, d = x - mean, mean += d / n, m2 += d (x - mean).
Pass welford_pass(Source s, int unroll, Reduction after) {
  return pass(s, unroll, 6 + kIeeeDivInstr, kIeeeDivChain + 3 * kAccumulate, after, 3);
}

// ptxas registers per thread for welford_warp_reg<float, VPT> (golden: VPT 32
// -> 65, 128 -> 166); the others follow the same 33 + VPT line.
int welford_warp_reg_registers(int vpt) {
  if (vpt == 32) return 65;
  if (vpt == 128) return 166;
  return 33 + vpt;
}

SubKernel base(const std::string& name, int64_t rows, int64_t hidden, int eb, int block) {
  SubKernel k;
  k.name = name;
  k.rows = rows;
  k.hidden = hidden;
  k.elem_bytes = eb;
  k.block = block;
  k.vector_bytes = eb;
  k.input_bytes = rows * hidden * eb;
  return k;
}

}  // namespace

int SubKernel::global_passes() const {
  int n = 0;
  for (const auto& p : passes) n += p.source == Source::global || p.source == Source::global_streaming;
  return n;
}

std::vector<std::string> simt_kernel_names() {
  std::vector<std::string> v;
  for (const auto& k : normref::kernel_registry()) v.push_back(k.name);
  return v;
}

std::string_view to_string(RowMapping m) {
  switch (m) {
    case RowMapping::thread: return "thread-per-row";
    case RowMapping::warp: return "warp-per-row";
    case RowMapping::block: return "block-per-row";
    case RowMapping::element: return "thread-per-element";
  }
  return "?";
}

std::string_view to_string(Source s) {
  switch (s) {
    case Source::global: return "global";
    case Source::global_streaming: return "global (evict-first)";
    case Source::shared: return "shared";
    case Source::registers: return "registers";
    case Source::params: return "gamma/beta (L2)";
  }
  return "?";
}

LaunchPlan plan_launch(const std::string& kernel, int64_t rows, int64_t hidden, const std::string& dtype, int block,
                       const GpuArch& gpu) {
  auto bad = [](const std::string& msg) {
    // normref's messages start "normref: --flag: ..."; name the simt command instead.
    const std::string m = msg.rfind("normref: ", 0) == 0 ? msg.substr(9) : msg;
    return config::ConfigError("simt: " + m);
  };
  const normref::KernelInfo* info = normref::find_kernel(kernel);
  if (!info) {
    std::string names;
    for (const auto& n : simt_kernel_names()) names += (names.empty() ? "" : ", ") + n;
    throw bad("--kernel: unknown kernel '" + kernel + "' (allowed: " + names + ")");
  }
  if (dtype != "fp32" && dtype != "bf16") throw bad("--dtype: unknown value '" + dtype + "' (allowed: fp32, bf16)");
  if (rows < 1 || rows > (int64_t(1) << 31)) throw bad("--rows: must be 1..2^31, got " + std::to_string(rows));
  if (hidden < 1 || hidden > (int64_t(1) << 24)) throw bad("--hidden: must be 1..2^24, got " + std::to_string(hidden));
  normref::Args a;
  a.kernel = kernel;
  a.rows = rows;
  a.hidden = hidden;
  a.block = block;
  a.dtype = dtype == "bf16" ? normref::DType::bf16 : normref::DType::fp32;
  if (auto why = normref::check_supported(a, *info)) throw bad(*why);

  const int B = normref::effective_block(a, *info);
  const int eb = dtype == "bf16" ? 2 : 4;
  const bool bf16 = eb == 2;
  const int64_t N = rows, C = hidden;
  const int warps = B / gpu.warp_size;
  const Source G = Source::global, GS = Source::global_streaming;
  const double cvt = bf16 ? 1 : 0;  // bf16 -> fp32 conversion per element
  LaunchPlan plan{kernel, kernel, rows, hidden, dtype, B, {}};

  auto ln_common = [&](SubKernel& k) {
    k.param_bytes = 2 * C * 4;
    k.output_bytes = N * C * eb;
    k.stats_bytes = 2 * N * 4;
  };
  auto warp_rows = [&](SubKernel& k) {
    k.mapping = RowMapping::warp;
    k.rows_per_block = warps;
    k.threads_per_row = gpu.warp_size;
    k.grid = (N + warps - 1) / warps;
  };
  auto block_rows = [&](SubKernel& k) {
    k.mapping = RowMapping::block;
    k.rows_per_block = 1;
    k.threads_per_row = B;
    k.grid = N;
  };

  std::string ran = kernel;
  if (kernel == "v6") {
    // Dynamic shared memory: weight and bias (fp32) plus one row per warp.
    const int64_t smem = 2 * C * 4 + static_cast<int64_t>(warps) * C * eb;
    if (smem > gpu.smem_per_block_bytes) ran = "v5";  // normref's fallback, as the seed describes
  }
  plan.ran = ran;

  if (ran == "v1") {
    SubKernel k = base("ln_v1", N, C, eb, B);
    k.mapping = RowMapping::thread;
    k.rows_per_block = B;
    k.threads_per_row = 1;
    k.grid = (N + B - 1) / B;
    k.registers_per_thread = 32;
    k.uncoalesced = true;
    k.streaming_store = false;
    k.passes = {pass(G, 16, 3, kAccumulate), pass(G, 16, 4, kAccumulate), pass(G, 16, 8, 0)};
    ln_common(k);
    plan.launches.push_back(k);
  } else if (ran == "v2") {
    SubKernel mean = base("ln_v2_mean", N, C, eb, B);
    block_rows(mean);
    mean.registers_per_thread = 18;
    mean.dynamic_smem_bytes = B * 4;
    mean.passes = {pass(G, 4, 3, kAccumulate, Reduction::smem_tree)};
    mean.stats_bytes = N * 4;
    SubKernel rstd = mean;
    rstd.name = "ln_v2_rstd";
    rstd.passes = {pass(G, 4, 5, kAccumulate, Reduction::smem_tree)};
    rstd.extra_read_bytes = N * 4;  // the mean of each row
    SubKernel norm = base("ln_v2_normalize", N, C, eb, B);
    norm.mapping = RowMapping::element;
    norm.rows_per_block = 1;
    norm.threads_per_row = 1;
    norm.grid = (N * C + B - 1) / B;
    norm.registers_per_thread = 18;
        norm.streaming_store = false;
    norm.passes = {pass(G, 1, 12, 0)};  // 64-bit index division, 5 loads, FADD, FMUL, FFMA, store
    norm.param_bytes = 2 * C * 4;
    norm.extra_read_bytes = 2 * N * 4;
    norm.output_bytes = N * C * eb;
    plan.launches = {mean, rstd, norm};
  } else if (ran == "v3" || ran == "v4") {
    SubKernel k = base(ran == "v3" ? "ln_v3" : "ln_v4", N, C, eb, B);
    warp_rows(k);
    k.registers_per_thread = ran == "v3" ? 26 : 24;
    if (ran == "v3")
      k.passes = {pass(G, 4, 3, kAccumulate, Reduction::warp_shuffle),
                  pass(G, 4, 4, kAccumulate, Reduction::warp_shuffle), pass(GS, 1, 8, 0)};
    else
      k.passes = {pass(G, 4, 4, kAccumulate, Reduction::warp_shuffle, 2), pass(GS, 1, 8, 0)};
    ln_common(k);
    plan.launches.push_back(k);
  } else if (ran == "v5") {
    SubKernel k = base("ln_v5", N, C, eb, B);
    block_rows(k);
    k.registers_per_thread = bf16 ? 20 : 22;
    k.static_smem_bytes = 256;
    k.streaming_store = false;
    k.passes = {pass(G, 1, 4 + cvt, kAccumulate, Reduction::block_two_level, 2), pass(GS, 1, 8 + 2 * cvt, 0)};
    ln_common(k);
    plan.launches.push_back(k);
  } else if (ran == "v6") {
    SubKernel k = base("ln_v6", N, C, eb, B);
    warp_rows(k);
    k.registers_per_thread = bf16 ? 32 : 34;
    k.dynamic_smem_bytes = 2 * C * 4 + static_cast<int64_t>(warps) * C * eb;
    k.vector_bytes = 16;
    // The row loop is software-pipelined over four (fp32) or two (bf16)
    // 16-byte registers sets: that many LDG.128 in flight (SASS).
    // Each block first copies gamma and beta into shared memory (float4, 2
    // loads in flight per unrolled body) and waits at a barrier.
    k.passes = {pass(Source::params, 2, 4, 0, Reduction::block_barrier),
                pass(GS, bf16 ? 2 : 4, 3 + cvt, kAccumulate, Reduction::warp_shuffle),
                pass(Source::shared, 4, 3 + cvt, kAccumulate, Reduction::warp_shuffle),
                pass(Source::shared, 4, 7 + 2 * cvt, 0)};
    ln_common(k);
    plan.launches.push_back(k);
  } else if (ran == "welford_warp_reg") {
    SubKernel k = base("welford_warp_reg", N, C, eb, B);
    warp_rows(k);
    const int need = static_cast<int>((C + 31) / 32);
    int vpt = 4;
    while (vpt < need) vpt *= 2;
    k.registers_per_thread = welford_warp_reg_registers(vpt);
    // Fully unrolled, but each element's load sits in its own `if (c < C)`
    // block with the Welford update that uses it (SASS: LDG, then the
    // division, per block): one load in flight at a time.
    k.passes = {welford_pass(GS, 1, Reduction::warp_welford), pass(Source::registers, 1, 7, 0)};
    ln_common(k);
    plan.launches.push_back(k);
  } else if (ran == "welford_block_smem" || ran == "block_reread") {
    const bool smem = ran == "welford_block_smem";
    SubKernel k = base(ran, N, C, eb, B);
    block_rows(k);
    k.registers_per_thread = smem ? 28 : 25;
    k.static_smem_bytes = 384;
    if (smem) {
      k.dynamic_smem_bytes = C * eb;
      k.passes = {welford_pass(GS, 1, Reduction::block_welford), pass(Source::shared, 1, 7 + cvt, 0)};
    } else {
      k.passes = {welford_pass(G, 1, Reduction::block_welford), pass(G, 1, 8 + cvt, 0)};
    }
    ln_common(k);
    plan.launches.push_back(k);
  } else if (ran == "rms_warp" || ran == "rms_block") {
    SubKernel k = base(ran, N, C, eb, B);
    if (ran == "rms_warp") {
      warp_rows(k);
      k.registers_per_thread = bf16 ? 32 : 31;
      k.passes = {pass(G, bf16 ? 14 : 15, 3 + cvt, kAccumulate, Reduction::warp_shuffle), pass(G, 4, 6 + 2 * cvt, 0)};
    } else {
      block_rows(k);
      k.registers_per_thread = bf16 ? 18 : 20;
      k.static_smem_bytes = 128;
      k.passes = {pass(G, 1, 3 + cvt, kAccumulate, Reduction::block_two_level), pass(G, 1, 6 + 2 * cvt, 0)};
    }
    k.param_bytes = C * 4;
    k.output_bytes = N * C * eb;
    k.stats_bytes = N * 4;
    plan.launches.push_back(k);
  }
  return plan;
}

}  // namespace normsim::simt
