// v1-v6: the LayerNorm forward ladder of llm.c's layernorm_forward.cu
// (gpu_ref/kernels/ladder.cuh): a thread per row, three kernels, a warp per
// row two-pass and single-pass, a block per row, and the row in shared
// memory with 128-bit access.
#include <cmath>

#include "sim/simt/kernels/emulation_kit.hpp"
#include "sim/simt/kernels/plan_kit.hpp"

namespace normsim::simt {

namespace {

using namespace plan_kit;
using emu::Row;

void plan_v1(const PlanRequest& r, LaunchPlan& plan) {
  SubKernel k = base("ln_v1", r.rows, r.hidden, r.elem_bytes(), r.block);
  k.mapping = RowMapping::thread;
  k.rows_per_block = r.block;
  k.threads_per_row = 1;
  k.grid = (r.rows + r.block - 1) / r.block;
  k.uncoalesced = true;
  k.streaming_store = false;
  const Source G = Source::global;
  k.passes = {pass(G, 16, 2.4, kAccumulate), pass(G, 16, 3.4, kAccumulate), pass(G, 16, 7.8, 0)};
  for (Pass& p : k.passes) {  // SASS: 16-element bodies, then 4- and 1-element loops (the 1-element cost here)
    p.body_elems = 16;
    p.remainder_instr_per_elem = 8;
  }
  k.overhead_instr_per_warp = 100;
  layernorm_bytes(k, r);
  plan.launches.push_back(k);
}

void plan_v2(const PlanRequest& r, LaunchPlan& plan) {
  const int64_t N = r.rows, C = r.hidden;
  const int eb = r.elem_bytes(), B = r.block;
  const Source G = Source::global;
  SubKernel mean = base("ln_v2_mean", N, C, eb, B);
  block_rows(mean, r);
  mean.dynamic_smem_bytes = B * 4;
  mean.passes = {pass(G, 4, 5, kAccumulate, Reduction::smem_tree)};
  mean.passes[0].body_elems = 4;
  mean.passes[0].remainder_instr_per_elem = 9;
  mean.overhead_instr_per_warp = 100;
  mean.stats_bytes = N * 4;
  SubKernel rstd = mean;
  rstd.name = rstd.function = "ln_v2_rstd";
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
  rstd.input_read_before = norm.input_read_before = true;
  plan.launches = {mean, rstd, norm};
}

void plan_v3_v4(const PlanRequest& r, LaunchPlan& plan) {
  const bool v3 = r.kernel == KernelId::v3;
  SubKernel k = base(v3 ? "ln_v3" : "ln_v4", r.rows, r.hidden, r.elem_bytes(), r.block);
  warp_rows(k, r);
  k.overhead_instr_per_warp = 117;
  const Source G = Source::global, GS = Source::global_streaming;
  if (v3)
    k.passes = {pass(G, 4, 7.5, kAccumulate, Reduction::warp_shuffle), pass(G, 4, 8.75, kAccumulate, Reduction::warp_shuffle),
                pass(GS, 1, 21, 0)};
  else
    k.passes = {pass(G, 4, 8.5, kAccumulate, Reduction::warp_shuffle, 2), pass(GS, 1, 21, 0)};
  layernorm_bytes(k, r);
  plan.launches.push_back(k);
}

void plan_v5(const PlanRequest& r, LaunchPlan& plan) {
  SubKernel k = base("ln_v5", r.rows, r.hidden, r.elem_bytes(), r.block);
  k.function = templated("ln_v5", r.bf16());
  block_rows(k, r);
  k.static_smem_bytes = 256;
  k.streaming_store = false;
  const double cvt = r.bf16() ? 1 : 0;  // bf16 -> fp32 conversion per element
  k.passes = {pass(Source::global, 1, 11 + cvt, kAccumulate, Reduction::block_two_level, 2),
              pass(Source::global_streaming, 1, 21 + cvt, 0)};
  k.overhead_instr_per_warp = 134;
  layernorm_bytes(k, r);
  plan.launches.push_back(k);
}

void plan_v6(const PlanRequest& r, LaunchPlan& plan) {
  // Dynamic shared memory: weight and bias (fp32) plus one row per warp.
  const int warps = r.block / r.gpu->warp_size;
  const int64_t smem = 2 * r.hidden * 4 + static_cast<int64_t>(warps) * r.hidden * r.elem_bytes();
  if (smem > r.gpu->smem_per_block_bytes) {  // normref's fallback, as llm.c's v6 does
    plan.ran = KernelId::v5;
    return plan_v5(r, plan);
  }
  const bool bf16 = r.bf16();
  SubKernel k = base("ln_v6", r.rows, r.hidden, r.elem_bytes(), r.block);
  k.function = templated("ln_v6", bf16);
  warp_rows(k, r);
  k.dynamic_smem_bytes = smem;
  k.vector_bytes = 16;
  k.overhead_instr_per_warp = 120;
  // The row loop is software-pipelined over four (fp32) or two (bf16)
  // 16-byte registers sets: that many LDG.128 in flight (SASS).
  // Each block first copies gamma and beta into shared memory (float4, 2
  // loads in flight per unrolled body) and waits at a barrier.
  k.passes = {pass(Source::params, 2, 4, 0, Reduction::block_barrier),
              pass(Source::global_streaming, bf16 ? 2 : 4, bf16 ? 2.9 : 1.6, kAccumulate, Reduction::warp_shuffle),
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
  layernorm_bytes(k, r);
  plan.launches.push_back(k);
}

// --- emulation -----------------------------------------------------------------

void emulate_rows(EmulationContext& e, void (*row)(EmulationContext&, int64_t, const Row&)) {
  e.begin_forward(false);
  e.for_each_row([&](int64_t r, const Row& x) { row(e, r, x); });
}

void v1_row(EmulationContext& e, int64_t r, const Row& row) {
  float m = 0.0f;
  for (int64_t i = 0; i < row.C; ++i) m += row.x[i];
  m = m / row.fC;
  float v = 0.0f;
  for (int64_t i = 0; i < row.C; ++i) {
    const float xs = row.x[i] - m;
    v = std::fmaf(xs, xs, v);
  }
  v = v / row.fC;
  const float s = 1.0f / std::sqrt(v + emu::kEps);
  e.normalize_s_first(r, row, m, s);
  e.stats(r, m, s);
}

// Shared-memory tree of ln_v2_mean / ln_v2_rstd: shared[t] += shared[t + stride].
float smem_tree(std::vector<float> sh, int block) {
  for (int stride = block / 2; stride >= 1; stride /= 2)
    for (int t = 0; t < stride; ++t) sh[static_cast<size_t>(t)] += sh[static_cast<size_t>(t + stride)];
  return sh[0];
}

void v2_row(EmulationContext& e, int64_t r, const Row& row) {
  const float m = smem_tree(e.strided(row, e.B, emu::add), e.B) / row.fC;
  const float ss = smem_tree(e.strided(row, e.B,
                                       [m](float a, float x) {
                                         const float d = x - m;
                                         return std::fmaf(d, d, a);
                                       }),
                             e.B);
  const float s = 1.0f / std::sqrt(ss / row.fC + emu::kEps);
  for (int64_t c = 0; c < e.C; ++c) e.store(r, c, std::fmaf((row.x[c] - m) * s, e.g(c), e.b(c)));
  e.stats(r, m, s);
}

void v3_row(EmulationContext& e, int64_t r, const Row& row) {
  const float m = emu::warp_sum(emu::lanes(e.strided(row, 32, emu::add))) / row.fC;
  const float v = emu::warp_sum(emu::lanes(e.strided(row, 32, [m](float a, float x) {
    const float d = x - m;
    return std::fmaf(d, d, a);
  })));
  const float s = e.rsqrt(v / row.fC + emu::kEps);
  e.normalize_s_first(r, row, m, s);
  e.stats(r, m, s);
}

void v4_row(EmulationContext& e, int64_t r, const Row& row) {
  const float sum = emu::warp_sum(emu::lanes(e.strided(row, 32, emu::add))) / row.fC;
  const float sum2 =
      emu::warp_sum(emu::lanes(e.strided(row, 32, [](float a, float x) { return std::fmaf(x, x, a); }))) / row.fC;
  const float var = std::fmaf(-sum, sum, sum2);  // SASS: FFMA(-sum, sum, sum2)
  const float s = e.rsqrt(var + emu::kEps);
  e.normalize_s_first(r, row, sum, s);
  e.stats(r, sum, s);
}

void v5_row(EmulationContext& e, int64_t r, const Row& row) {
  const float bsum = emu::block_sum(e.strided(row, e.B, emu::add)) / row.fC;
  const float bsum2 = emu::block_sum(e.strided(row, e.B, [](float a, float x) { return std::fmaf(x, x, a); })) / row.fC;
  const float s = e.rsqrt(std::fmaf(-bsum, bsum, bsum2) + emu::kEps);
  e.normalize_s_first(r, row, bsum, s);
  e.stats(r, bsum, s);
}

// v6: lane l takes 16-byte chunks l*V, l*V + 32V, ..., the V elements of a chunk in order.
template <typename F>
emu::Lanes chunked(const EmulationContext& e, const Row& row, F&& term) {
  const int V = e.in.bf16 ? 8 : 4;
  emu::Lanes acc{};
  for (int l = 0; l < 32; ++l)
    for (int64_t c = static_cast<int64_t>(l) * V; c < row.C; c += 32 * V)
      for (int k = 0; k < V; ++k) acc[static_cast<size_t>(l)] = term(acc[static_cast<size_t>(l)], row.x[c + k]);
  return acc;
}

void v6_row(EmulationContext& e, int64_t r, const Row& row) {
  const float m = emu::warp_sum(chunked(e, row, emu::add)) / row.fC;
  const float v = emu::warp_sum(chunked(e, row, [m](float a, float x) {
    const float d = x - m;
    return std::fmaf(d, d, a);
  }));
  const float s = e.rsqrt(v / row.fC + emu::kEps);
  e.normalize_s_first(r, row, m, s);
  e.stats(r, m, s);
}

// --- the ASIC datapaths (sim/validate's cross-check) ---------------------------

using VA = core::VarianceAlgorithm;

AsicDatapath asic_v1(int64_t, DType, int) {
  return {.algorithm = VA::two_pass, .lanes = 1};  // a thread walks its row alone
}
AsicDatapath asic_v2(int64_t, DType, int block) {
  return {.block_arch = true, .algorithm = VA::two_pass, .lanes = block, .whole_block_group = true};
}
AsicDatapath asic_v3(int64_t, DType, int) { return {.algorithm = VA::two_pass, .lanes = 0, .hw_rsqrt = true}; }
AsicDatapath asic_v4(int64_t, DType, int) {
  return {.algorithm = VA::single_pass, .lanes = 0, .hw_rsqrt = true, .clamp = false, .path = AsicInputPath::dram_reread};
}
AsicDatapath asic_v5(int64_t, DType, int block) {
  return {.block_arch = true, .algorithm = VA::single_pass, .lanes = block, .hw_rsqrt = true, .clamp = false,
          .path = AsicInputPath::dram_reread};
}
AsicDatapath asic_v6(int64_t, DType dtype, int) {
  return {.algorithm = VA::two_pass, .lanes = 0, .lane_vector = vector_elems(dtype), .hw_rsqrt = true,
          .path = AsicInputPath::sram_replay};
}

const KernelEntry kLadder[] = {
    {KernelId::v1, plan_v1, [](EmulationContext& e) { emulate_rows(e, v1_row); }, asic_v1},
    {KernelId::v2, plan_v2, [](EmulationContext& e) { emulate_rows(e, v2_row); }, asic_v2},
    {KernelId::v3, plan_v3_v4, [](EmulationContext& e) { emulate_rows(e, v3_row); }, asic_v3},
    {KernelId::v4, plan_v3_v4, [](EmulationContext& e) { emulate_rows(e, v4_row); }, asic_v4},
    {KernelId::v5, plan_v5, [](EmulationContext& e) { emulate_rows(e, v5_row); }, asic_v5},
    {KernelId::v6, plan_v6, [](EmulationContext& e) { emulate_rows(e, v6_row); }, asic_v6},
};

}  // namespace

std::span<const KernelEntry> ladder_kernels() { return kLadder; }

}  // namespace normsim::simt
