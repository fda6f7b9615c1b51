#include "sim/simt/kernel_desc.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "gpu_ref/host/fast_shape.hpp"
#include "gpu_ref/host/kernel_table.hpp"
#include "sim/config/config_error.hpp"
#include "sim/simt/simt_model.hpp"

namespace normsim::simt {

namespace {

// Instructions per element of each pass are the SASS loop body's length
// divided by the elements one iteration handles (golden normref.sass.gz);
// the per-warp overhead of a row (reductions, rsqrt, statistics stores) is
// the straight-line code, checked against ncu's smsp__inst_executed on the
// profiled cases (lab/records/h200/ncu_sections.tar.gz: e.g. v4 3893 warp
// instructions per row = 32 x 34 + 128 x 21 + 117). The dependency chain of
// an accumulation is one FADD/FFMA (4 cycles) per element; an IEEE division
// adds the arch's fdiv_latency_cycles.
// The unroll of each pass (x loads in flight per thread) is read off the
// SASS (golden normref.sass.gz: LDG instructions per loop body): nvcc unrolls
// the warp-strided loops of v1-v4, v2 and rms_warp by 4 or 16, and leaves the
// block-strided loops (v5, rms_block, block_reread, welford_block_smem) and
// every normalise loop at one load of x per iteration; welford_warp_reg's
// unrolled body keeps each load next to its use.
constexpr double kAccumulate = 4;   // FADD/FFMA latency (cycles)

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
Pass welford_pass(Source s, int unroll, double instr, Reduction after) {
  Pass p = pass(s, unroll, instr, 3 * kAccumulate, after, 3);
  p.divisions_per_elem = 1;  // the division's latency comes from the arch (fdiv_latency_cycles)
  return p;
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


std::string element_type(bool bf16) { return bf16 ? "__nv_bfloat16" : "float"; }

// The frontier kernels (gpu_ref/kernels/fast_norm.cuh, fused_bwd.cuh), shaped
// by host/fast_shape.hpp as normref launches them. Instructions per element
// and per warp-row come from ncu's smsp__inst_executed on the golden cases
// (ncu_profile.json: e.g. fast_ln fp32 431 warp instructions per row at C =
// 768, one warp, and 3552 at C = 4096, 16 warps -> 13.29 per element and
// lane + 115.3 per warp).
SubKernel frontier_forward(const std::string& kernel, int64_t N, int64_t C, int eb, const GpuArch& gpu) {
  const bool bf16 = eb == 2, rms = kernel == "fast_rms", fused = kernel == "fused_residual";
  const std::string T = element_type(bf16), R = rms ? "true" : "false";
  const Source G = Source::global, REG = Source::registers;
  normref::FastShape sh = normref::fast_norm_shape(C, eb);
  if (fused) {  // one block of fused_residual_threads per row, the maximum vectors a thread
    sh = normref::FastShape{};
    sh.threads_per_row = normref::fused_residual_threads(C, eb);
    sh.vecs = normref::fast_max_vecs(eb);
  }
  SubKernel k = base(fused ? "fused_residual_ln" : "fast_norm", N, C, eb, sh.block());
  k.grid = sh.grid(N, gpu.sms);  // the cluster scheme: one cluster of two blocks per SM pair, persistent
  k.threads_per_row = sh.threads_per_row;
  k.rows_per_block = sh.rows_per_block;
  k.blocks_per_row = sh.cluster;
  k.mapping = sh.threads_per_row == 32 && !fused ? RowMapping::warp : RowMapping::block;
  k.vector_bytes = 16;
  k.streaming_store = false;  // plain 128-bit stores
  Reduction red = sh.threads_per_row == 32 ? Reduction::warp_shuffle : Reduction::block_two_level;
  const std::string th = std::to_string(sh.threads_per_row), v = std::to_string(sh.vecs);
  if (fused) {
    k.function = "fused_residual_ln<" + T + ", " + th + ", " + v + ">";
  } else if (sh.scheme == normref::FastScheme::registers) {
    k.function = "fast_norm<" + T + ", " + T + ", " + R + ", " + th + ", " + v + ", " + std::to_string(sh.rows_per_block) + ">";
  } else if (sh.scheme == normref::FastScheme::cluster) {
    // A persistent grid: each block's half of the next row arrives in shared
    // memory (one bulk copy) while the current one is reduced and stored.
    // gamma/beta staged in shared memory beside the buffer where both fit in
    // a block's opt-in shared memory (fast_launch.cuh: bf16).
    k.name = "fast_norm_cluster_stream";
    const int with_params = normref::stream_smem_bytes(eb, eb, rms);
    const bool params_smem = with_params + normref::kStreamStaticSmemBytes <= gpu.smem_per_block_bytes;
    k.function = "fast_norm_cluster_stream<" + T + ", " + T + ", " + R + ", 1024, " + v + ", 2, true, " +
                 (params_smem ? "true" : "false") + ">";
    k.dynamic_smem_bytes = params_smem ? with_params
                                       : std::min<int64_t>((C * eb / 16 + 1) / 2, 1024 * sh.vecs) * 16;
    red = Reduction::cluster_two_level;
  } else {
    k.name = "fast_norm_two_sweep";
    k.function = "fast_norm_two_sweep<" + T + ", " + T + ", " + R + ", 1024>";
  }
  // Per element: LN fp32 13.29, RMS fp32 8.68, LN bf16 17.1, RMS bf16 8.5,
  // fused fp32 15.5, fused bf16 19.75 (the conversions, and the second input).
  // fp32 (least squares over its golden register-scheme cases, within 4%):
  // the evict-last policy is made per load, and the 2-vector threads carry
  // their reductions and parameter set-up over fewer elements each.
  const double a = fused ? (bf16 ? 19.75 : 15.5) : rms ? (bf16 ? 8.5 : 8.68) : (bf16 ? 17.1 : 13.29);
  k.overhead_instr_per_warp = fused ? (bf16 ? 35 : 40) : rms ? (bf16 ? 83 : 81.3) : (bf16 ? 21 : 115.3);
  const int in_flight = sh.vecs * (fused ? 2 : 1);  // every vector of the row (x and r) loaded before the first use
  if (sh.scheme == normref::FastScheme::two_sweep) {
    // Sum and sum of squares in one sweep (unrolled by four: SASS), then x
    // again with evict-first loads to normalise.
    k.passes = {pass(G, 4, 0.4 * a, kAccumulate, Reduction::block_two_level, rms ? 1 : 2),
                pass(Source::global_streaming, 4, 0.6 * a, 0)};
  } else if (rms) {
    k.passes = {pass(G, in_flight, 0.3 * a, kAccumulate, red), pass(REG, 1, 0.7 * a, 0)};
  } else {
    k.passes = {pass(G, in_flight, 0.25 * a, kAccumulate, red), pass(REG, 1, 0.2 * a, kAccumulate, red),
                pass(REG, 1, 0.55 * a, 0)};
  }
  const int params = rms ? 1 : 2;
  k.param_bytes = params * C * (fused ? 4 : eb);  // fast_* bf16 reads bf16 gamma/beta (as torch keeps them)
  k.output_bytes = N * C * eb * (fused ? 2 : 1);  // fused: z and y
  k.input_bytes = N * C * eb * (fused ? 2 : 1);   // fused: x and r
  k.stats_bytes = params * N * 4;
  return k;
}

// ln_backward: a persistent grid (every SM full), each block walking rows
// blockIdx.x, += gridDim.x; x and dy read once, dx written once; dgamma and
// dbeta by atomics into the L2, or as per-block partials summed by
// bwd_column_sum (which ncu profiles with cold caches: it reads them from
// DRAM).
std::vector<SubKernel> backward_launches(bool two_level, int64_t N, int64_t C, int eb, const GpuArch& gpu) {
  const bool bf16 = eb == 2;
  const int threads = normref::backward_threads(C, eb), vecs = normref::backward_vecs(eb);
  SubKernel k = base("ln_backward", N, C, eb, threads);
  k.function = "ln_backward<" + element_type(bf16) + ", " + std::to_string(threads) + ", " + std::to_string(vecs) + ", " +
               (two_level ? "true" : "false") + ">";
  k.registers_per_thread = sass_facts(k.function).registers_per_thread;
  k.mapping = RowMapping::block;
  k.threads_per_row = threads;
  k.rows_per_block = 1;
  k.vector_bytes = 16;
  k.streaming_store = false;
  k.grid = 1;  // occupancy below decides
  const int64_t per_sm = occupancy(k, gpu).blocks_per_sm;
  k.grid = std::min<int64_t>(N, gpu.sms * per_sm);
  // Per element 8.7 (fp32) / 13.6 (bf16) instructions, 134 / 116 per
  // warp-row: ncu_profile.json's bwd_atomic cases give 204 / 225 a warp-row
  // (8 elements a lane at every width, so only the sum is pinned; split as
  // the SASS's loop bodies and row code were before gamma left the loop).
  const double a = bf16 ? 13.6 : 8.7;
  k.overhead_instr_per_warp = bf16 ? 116 : 134;
  // The two row reductions of seed 001 section 29 share one shared-memory
  // stage (row_sum2): one block reduction's latency.
  k.passes = {pass(Source::global, 2 * vecs, 0.6 * a, 2 * kAccumulate, Reduction::block_two_level, 1),
              pass(Source::registers, 1, 0.4 * a, 0)};
  k.input_bytes = 2 * N * C * eb;  // x and dy
  k.output_bytes = N * C * eb;     // dx
  k.param_bytes = C * 4;           // gamma
  k.extra_read_bytes = 2 * N * 4;  // mean, rstd
  const int64_t partial_bytes = 2 * k.grid * C * 4;
  k.stats_bytes = two_level ? partial_bytes : 2 * C * 4;  // the atomics' lines reach DRAM as dgamma/dbeta
  // Each thread's dgamma/dbeta partials, one scalar operation per element
  // (SASS: 16 RED.E.ADD.F32 or 16 STG.E a thread).
  (two_level ? k.epilogue_stores_per_thread : k.epilogue_atomics_per_thread) = 2 * vecs * (16 / eb);
  k.epilogue_lane_stride_bytes = 4 * (16 / eb);  // a lane's columns: one 16-byte vector of x apart
  if (!two_level) return {k};
  // bwd_column_sum: 32 x 32 threads per 32 columns; thread (ty, tx) adds
  // partials ty, ty + 32, ... of its column (loads unrolled: SASS), then a
  // shared-memory stage in fixed order. Seen as one "row" per column thread
  // group: 32 threads a row of 2 x grid partial values.
  SubKernel s = base("bwd_column_sum", C, 2 * k.grid, 4, 1024);
  s.mapping = RowMapping::block;
  s.grid = (C + 31) / 32;
  s.rows_per_block = 32;  // columns a block
  s.threads_per_row = 32;
  s.input_bytes = partial_bytes;
  s.passes = {pass(Source::global, 16, 3, kAccumulate, Reduction::block_barrier)};
  s.overhead_instr_per_warp = 80;
  s.stats_bytes = 2 * C * 4;
  return {k, s};
}
}  // namespace

// Instructions and registers of every function of the golden build
// (tools/simt/sass_table.py; a test recounts the SASS). ncu's DRAM read
// counters include the launch's code: with the caches flushed before a
// profiled kernel, the whole function comes from DRAM (residuals of the
// 256 x 768 cases: code size + a constant 2.5 KB).
SassFacts sass_facts(const std::string& function) {
  static const std::map<std::string, SassFacts> table = {
#include "sim/simt/sass_instructions.inc"
  };
  const auto it = table.find(function);
  if (it == table.end()) throw std::logic_error("sass_facts: the golden build has no function " + function);
  return it->second;
}

int SubKernel::global_passes() const {
  int n = 0;
  for (const auto& p : passes) n += is_global(p.source);
  return n;
}

std::vector<std::string> simt_kernel_names() {
  std::vector<std::string> v;
  for (const auto& k : normref::kKernelTable) v.push_back(k.name);
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
  const normref::DType dt = dtype == "bf16" ? normref::DType::bf16 : normref::DType::fp32;
  if (auto why = normref::check_supported(*info, hidden, dt, block)) throw bad(*why);

  const int B = normref::effective_block(*info, hidden, dt, block);
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
    k.uncoalesced = true;
    k.streaming_store = false;
    k.passes = {pass(G, 16, 2.4, kAccumulate), pass(G, 16, 3.4, kAccumulate), pass(G, 16, 7.8, 0)};
    for (Pass& p : k.passes) {  // SASS: 16-element bodies, then 4- and 1-element loops (the 1-element cost here)
      p.body_elems = 16;
      p.remainder_instr_per_elem = 8;
    }
    k.overhead_instr_per_warp = 100;
    ln_common(k);
    plan.launches.push_back(k);
  } else if (ran == "v2") {
    SubKernel mean = base("ln_v2_mean", N, C, eb, B);
    block_rows(mean);
    mean.dynamic_smem_bytes = B * 4;
    mean.passes = {pass(G, 4, 5, kAccumulate, Reduction::smem_tree)};
    mean.passes[0].body_elems = 4;
    mean.passes[0].remainder_instr_per_elem = 9;
    mean.overhead_instr_per_warp = 100;
    mean.stats_bytes = N * 4;
    SubKernel rstd = mean;
    rstd.name = "ln_v2_rstd";
    rstd.passes = {pass(G, 4, 6, kAccumulate, Reduction::smem_tree)};
    rstd.passes[0].body_elems = 4;
    rstd.passes[0].remainder_instr_per_elem = 10;
    rstd.extra_read_bytes = N * 4;  // the mean of each row
    SubKernel norm = base("ln_v2_normalize", N, C, eb, B);
    norm.mapping = RowMapping::element;
    norm.rows_per_block = 1;
    norm.threads_per_row = 1;
    norm.grid = (N * C + B - 1) / B;
        norm.streaming_store = false;
    // No loop: one element per thread; the 64-bit idx / C and idx % C call
    // the integer-division subroutine, most of the 78 instructions per
    // element that ncu counts (golden ncu_profile.json).
    norm.passes = {pass(G, 1, 78, 0)};
    norm.param_bytes = 2 * C * 4;
    norm.extra_read_bytes = 2 * N * 4;
    norm.output_bytes = N * C * eb;
    plan.launches = {mean, rstd, norm};
  } else if (ran == "v3" || ran == "v4") {
    SubKernel k = base(ran == "v3" ? "ln_v3" : "ln_v4", N, C, eb, B);
    warp_rows(k);
    k.overhead_instr_per_warp = 117;
    if (ran == "v3")
      k.passes = {pass(G, 4, 7.5, kAccumulate, Reduction::warp_shuffle),
                  pass(G, 4, 8.75, kAccumulate, Reduction::warp_shuffle), pass(GS, 1, 21, 0)};
    else
      k.passes = {pass(G, 4, 8.5, kAccumulate, Reduction::warp_shuffle, 2), pass(GS, 1, 21, 0)};
    ln_common(k);
    plan.launches.push_back(k);
  } else if (ran == "v5") {
    SubKernel k = base("ln_v5", N, C, eb, B);
    block_rows(k);
    k.static_smem_bytes = 256;
    k.streaming_store = false;
    k.passes = {pass(G, 1, 11 + cvt, kAccumulate, Reduction::block_two_level, 2), pass(GS, 1, 21 + cvt, 0)};
    k.overhead_instr_per_warp = 134;
    ln_common(k);
    plan.launches.push_back(k);
  } else if (ran == "v6") {
    SubKernel k = base("ln_v6", N, C, eb, B);
    warp_rows(k);
    k.dynamic_smem_bytes = 2 * C * 4 + static_cast<int64_t>(warps) * C * eb;
    k.vector_bytes = 16;
    k.overhead_instr_per_warp = 120;
    // The row loop is software-pipelined over four (fp32) or two (bf16)
    // 16-byte registers sets: that many LDG.128 in flight (SASS).
    // Each block first copies gamma and beta into shared memory (float4, 2
    // loads in flight per unrolled body) and waits at a barrier.
    k.passes = {pass(Source::params, 2, 4, 0, Reduction::block_barrier),
                pass(GS, bf16 ? 2 : 4, bf16 ? 2.9 : 1.6, kAccumulate, Reduction::warp_shuffle),
                pass(Source::shared, 4, bf16 ? 3.75 : 2.5, kAccumulate, Reduction::warp_shuffle),
                pass(Source::shared, 4, bf16 ? 7.9 : 6.1, 0)};
    // Shared-memory wavefronts per lane-element: the row's 16-byte stores and
    // loads take 512 B (4 wavefronts) per warp instruction, V elements per
    // lane; the normalise pass reads s_w[c + k] and s_b[c + k] with lanes V
    // words apart: a V-way bank conflict for each of the two scalar loads.
    const double V = bf16 ? 8 : 4;
    k.passes[1].smem_wavefronts_per_elem = 4 / V;
    k.passes[2].smem_wavefronts_per_elem = 4 / V;
    k.passes[3].smem_wavefronts_per_elem = 4 / V + 2 * V;
    ln_common(k);
    plan.launches.push_back(k);
  } else if (ran == "welford_warp_reg") {
    SubKernel k = base("welford_warp_reg", N, C, eb, B);
    warp_rows(k);
    const int need = static_cast<int>((C + 31) / 32);
    int vpt = 4;
    while (vpt < need) vpt *= 2;
    k.values_per_lane = vpt;
    // Fully unrolled, but each element's load sits in its own `if (c < C)`
    // block with the Welford update that uses it (SASS: LDG, then the
    // division, per block): one load in flight at a time.
    k.passes = {welford_pass(GS, 1, 32, Reduction::warp_welford), pass(Source::registers, 1, 12, 0)};
    k.overhead_instr_per_warp = 400;
    ln_common(k);
    plan.launches.push_back(k);
  } else if (ran == "welford_block_smem" || ran == "block_reread") {
    const bool smem = ran == "welford_block_smem";
    SubKernel k = base(ran, N, C, eb, B);
    block_rows(k);
    k.static_smem_bytes = 384;
    k.overhead_instr_per_warp = smem ? 802 : 774;  // two warp_welford butterflies of Chan merges
    if (smem) {
      k.dynamic_smem_bytes = C * eb;
      k.passes = {welford_pass(GS, 1, 29 + 3 * cvt, Reduction::block_welford), pass(Source::shared, 1, 17 + 2 * cvt, 0)};
      k.passes[0].smem_wavefronts_per_elem = 1;  // the row is stored, one conflict-free wavefront per warp store
      k.passes[1].smem_wavefronts_per_elem = 1;
    } else {
      k.passes = {welford_pass(G, 1, 28, Reduction::block_welford), pass(G, 1, 21, 0)};
    }
    ln_common(k);
    plan.launches.push_back(k);
  } else if (ran == "rms_warp" || ran == "rms_block") {
    SubKernel k = base(ran, N, C, eb, B);
    if (ran == "rms_warp") {
      warp_rows(k);
      k.passes = {pass(G, bf16 ? 14 : 15, bf16 ? 3.3 : 2.3, kAccumulate, Reduction::warp_shuffle),
                  pass(G, 4, bf16 ? 8 : 7.75, 0)};
      // SASS: 16-element bodies, then 1-element loops of 10/11 and 21/23 instructions.
      k.passes[0].body_elems = 16;
      k.passes[0].remainder_instr_per_elem = bf16 ? 11 : 10;
      k.passes[1].body_elems = bf16 ? 16 : 4;
      k.passes[1].remainder_instr_per_elem = bf16 ? 23 : 21;
      k.overhead_instr_per_warp = 118;
    } else {
      block_rows(k);
      k.static_smem_bytes = 128;
      k.passes = {pass(G, 1, 10 + cvt, kAccumulate, Reduction::block_two_level), pass(G, 1, 18 + 2 * cvt, 0)};
      k.overhead_instr_per_warp = 100;
    }
    k.param_bytes = C * 4;
    k.output_bytes = N * C * eb;
    k.stats_bytes = N * 4;
    plan.launches.push_back(k);
  } else if (ran == "fast_ln" || ran == "fast_rms" || ran == "fused_residual") {
    plan.launches.push_back(frontier_forward(ran, N, C, eb, gpu));
  } else if (ran == "bwd_atomic" || ran == "bwd_twolevel") {
    plan.launches = backward_launches(ran == "bwd_twolevel", N, C, eb, gpu);
  }
  const std::string T = element_type(bf16);
  for (SubKernel& k : plan.launches) {
    if (k.function.empty()) {
      const bool templated = k.name == "ln_v5" || k.name == "ln_v6" || k.name == "rms_warp" || k.name == "rms_block" ||
                             k.name == "welford_block_smem" || k.name == "block_reread";
      k.function = k.name == "welford_warp_reg" ? "welford_warp_reg<float, " + std::to_string(k.values_per_lane) + ">"
                   : templated                   ? k.name + "<" + T + ">"
                                                 : k.name;
    }
    const SassFacts f = sass_facts(k.function);
    k.code_bytes = 16 * static_cast<int64_t>(f.instructions);
    k.registers_per_thread = f.registers_per_thread;
  }
  return plan;
}

}  // namespace normsim::simt
