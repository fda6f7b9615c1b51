// The frontier kernels (gpu_ref/kernels/fast_norm.cuh, fused_bwd.cuh): the
// row in registers -- a warp, a block or a two-block cluster per row, two
// sweeps beyond -- with 128-bit access and exact two-pass statistics;
// fused_residual adds a residual stream first (Post-Norm), z = x + r;
// fused_residual_dropout drops elements of x first (sim/core/dropout_mask.hpp).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gpu_ref/host/fast_shape.hpp"
#include "sim/core/dropout_mask.hpp"
#include "sim/simt/kernels/emulation_kit.hpp"
#include "sim/simt/kernels/plan_kit.hpp"

namespace normsim::simt {

namespace {

using namespace plan_kit;

// Shaped by gpu_ref/host/fast_shape.hpp as normref launches them.
// Instructions per element and per warp-row come from ncu's
// smsp__inst_executed on the golden cases (ncu_profile.json: e.g. fast_ln
// fp32 431 warp instructions per row at C = 768, one warp, and 3552 at C =
// 4096, 16 warps -> 13.29 per element and lane + 115.3 per warp).
void plan_frontier(const PlanRequest& r, LaunchPlan& plan) {
  const int64_t N = r.rows, C = r.hidden;
  const int eb = r.elem_bytes();
  const bool dropout = r.kernel == KernelId::fused_residual_dropout;
  const bool bf16 = r.bf16(), rms = r.kernel == KernelId::fast_rms, fused = r.kernel == KernelId::fused_residual || dropout;
  const std::string T = element_type(bf16), R = rms ? "true" : "false";
  const Source G = Source::global, REG = Source::registers;
  normref::FastShape sh = normref::fast_norm_shape(C, eb, rms);
  if (fused) {  // one block of fused_residual_threads per row, the maximum vectors a thread
    sh = normref::FastShape{};
    sh.threads_per_row = normref::fused_residual_threads(C, eb);
    sh.vecs = normref::fast_max_vecs(eb);
  }
  SubKernel k = base(dropout ? "fused_residual_dropout_ln" : fused ? "fused_residual_ln" : "fast_norm", N, C, eb, sh.block());
  k.grid = sh.grid(N, r.gpu->sms);  // the cluster scheme: one cluster of two blocks per SM pair, persistent
  k.threads_per_row = sh.threads_per_row;
  k.rows_per_block = sh.rows_per_block;
  k.blocks_per_row = sh.cluster;
  k.mapping = sh.threads_per_row == 32 && !fused ? RowMapping::warp : RowMapping::block;
  k.vector_bytes = 16;
  k.streaming_store = false;  // plain 128-bit stores
  Reduction red = sh.threads_per_row == 32 ? Reduction::warp_shuffle : Reduction::block_two_level;
  const std::string th = std::to_string(sh.threads_per_row), v = std::to_string(sh.vecs);
  if (fused) {
    k.function = k.name + "<" + T + ", " + th + ", " + v + ">";
  } else if (sh.scheme == normref::FastScheme::registers) {
    k.function = "fast_norm<" + T + ", " + T + ", " + R + ", " + th + ", " + v + ", " + std::to_string(sh.rows_per_block) + ">";
  } else if (sh.scheme == normref::FastScheme::cluster) {
    // A persistent grid: each block's half of the next row arrives in shared
    // memory (one bulk copy) while the current one is reduced and stored.
    // gamma/beta staged in shared memory beside the buffer where both fit in
    // a block's opt-in shared memory (fast_launch.cuh: bf16).
    k.name = "fast_norm_cluster_stream";
    const int with_params = normref::stream_smem_bytes(eb, eb, rms);
    const bool params_smem = with_params + normref::kStreamStaticSmemBytes <= r.gpu->smem_per_block_bytes;
    k.function = "fast_norm_cluster_stream<" + T + ", " + T + ", " + R + ", 1024, " + v + ", " +
                 std::to_string(sh.cluster) + ", true, " + (params_smem ? "true" : "false") + ">";
    k.dynamic_smem_bytes =
        params_smem ? with_params : std::min<int64_t>((C * eb / 16 + sh.cluster - 1) / sh.cluster, 1024 * sh.vecs) * 16;
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
  double a = fused ? (bf16 ? 19.75 : 15.5) : rms ? (bf16 ? 8.5 : 8.68) : (bf16 ? 17.1 : 13.29);
  // The dropout kernel is fused_residual with a Philox evaluation per four
  // elements, unrolled: its instructions per element scale with its SASS
  // over fused_residual's at the same shape (2.3-2.5x in fp32, 2.0x in bf16;
  // ncu executes 2.7x and 2.1x at 32768 x 4096).
  if (dropout) {
    const double plain = a;
    a *= static_cast<double>(sass_facts(k.function).instructions) /
         sass_facts("fused_residual_ln<" + T + ", " + th + ", " + v + ">").instructions;
    k.independent_instr_share = (a - plain) / a;  // the Philox rounds: a chain per vector, beside the row's arithmetic
  }
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
  plan.launches.push_back(k);
}

// --- emulation -----------------------------------------------------------------
// A row's T threads sit in `blocks` blocks (a cluster; one block but for
// fast_norm_cluster_stream). Block b holds vectors [b P, b P + P) of the
// row (P = ceil(vectors / blocks)); its thread t holds vectors b P + t,
// b P + t + T/blocks, ... (zero beyond its share), each of kN elements.
class RegisterRows {
 public:
  explicit RegisterRows(EmulationContext& e) : e_(e) {
    const SubKernel& s = e.plan.launches.at(0);
    if (s.name != "fast_norm" && s.name != "fused_residual_ln" && s.name != "fused_residual_dropout_ln" &&
        s.name != "fast_norm_cluster_stream")
      throw std::invalid_argument("emulate: no emulation of " + s.function + " (only the register-resident kernels)");
    threads_ = s.threads_per_row;
    blocks_ = s.blocks_per_row;
    kn_ = e.in.bf16 ? 8 : 4;
    block_threads_ = threads_ / blocks_;
    per_block_ = (e.C / kn_ + blocks_ - 1) / blocks_;
    vecs_ = static_cast<int>((per_block_ + block_threads_ - 1) / block_threads_);
    const bool fused = e.plan.ran == KernelId::fused_residual || e.plan.ran == KernelId::fused_residual_dropout;
    const bool bf16_params = !fused && e.in.bf16;  // fast_* bf16 reads bf16 gamma/beta
    params_g_ = bf16_params ? as_bf16(e.in.gamma) : e.in.gamma;
    params_b_ = bf16_params ? as_bf16(e.in.beta) : e.in.beta;
  }

  // Exact two-pass statistics from the registers, then y = FFMA(n, g, b) (RMS: n g).
  void row(int64_t r, const float* v, bool is_rms) {
    const int64_t C = e_.C;
    std::vector<float> acc(static_cast<size_t>(threads_), 0.0f);
    float mean = 0.0f;
    if (!is_rms) {
      for (int t = 0; t < threads_; ++t)
        for (int k = 0; k < vecs_; ++k) {
          const int64_t i = vector_of(t, k);
          for (int j = 0; j < kn_; ++j) acc[static_cast<size_t>(t)] += i >= 0 ? v[i * kn_ + j] : 0.0f;
        }
      mean = row_sum(acc) / static_cast<float>(C);
    }
    for (int t = 0; t < threads_; ++t) {
      float q = 0.0f;
      for (int k = 0; k < vecs_; ++k) {
        const int64_t i = vector_of(t, k);
        if (i < 0) continue;
        for (int j = 0; j < kn_; ++j) {
          const float d = v[i * kn_ + j] - mean;
          q = std::fmaf(d, d, q);
        }
      }
      acc[static_cast<size_t>(t)] = q;
    }
    const float rstd = e_.rsqrt(row_sum(acc) / static_cast<float>(C) + emu::kEps);
    for (int64_t c = 0; c < C; ++c) {
      const float n = (v[c] - mean) * rstd;
      e_.store(r, c, is_rms ? n * params_g_[static_cast<size_t>(c)]
                            : std::fmaf(n, params_g_[static_cast<size_t>(c)], params_b_[static_cast<size_t>(c)]));
    }
    e_.stats(r, mean, rstd);
  }

 private:
  // row_sum<THREADS>: a warp's butterfly, or the block's two levels; over a
  // cluster, each block's sum, added in rank order (from 0.0f, as the kernel).
  float row_sum(const std::vector<float>& per_thread) const {
    if (threads_ <= 32) return emu::warp_sum(emu::lanes(per_thread));
    if (blocks_ == 1) return emu::block_sum(per_thread);
    const size_t bt = per_thread.size() / static_cast<size_t>(blocks_);
    float total = 0.0f;
    for (int b = 0; b < blocks_; ++b)
      total += emu::block_sum(std::vector<float>(per_thread.begin() + static_cast<std::ptrdiff_t>(b * bt),
                                                 per_thread.begin() + static_cast<std::ptrdiff_t>((b + 1) * bt)));
    return total;
  }
  // Vector k of thread t (global index over the cluster), or -1 past its share.
  int64_t vector_of(int t, int k) const {
    const int64_t b = t / block_threads_, local = t % block_threads_ + static_cast<int64_t>(k) * block_threads_;
    const int64_t mine = std::max<int64_t>(0, std::min(per_block_, e_.C / kn_ - b * per_block_));
    return local < mine ? b * per_block_ + local : -1;
  }

  EmulationContext& e_;
  int threads_ = 0, blocks_ = 1, block_threads_ = 1, vecs_ = 0, kn_ = 4;
  int64_t per_block_ = 0;  ///< vectors of a row each block holds
  std::vector<float> params_g_, params_b_;
};

template <bool kRms>
void emulate_fast_norm(EmulationContext& e) {
  e.begin_forward(false);
  RegisterRows rows(e);
  e.for_each_row([&](int64_t r, const emu::Row& row) { rows.row(r, row.x, kRms); });
}

// z = x + r (fused_residual_dropout: keep ? x * scale : 0, then + r; each
// rounded to fp32, the mask regenerated as the kernel does) rounded to the
// dtype and stored; the row normalised from the stored z.
void emulate_fused_residual(EmulationContext& e) {
  e.begin_forward(false);
  RegisterRows rows(e);
  if (e.in.residual.size() != e.in.x.size()) throw std::invalid_argument("emulate: fused_residual needs add_residual");
  e.out.z.resize(e.in.x.size());
  const int64_t C = e.C;
  const bool dropout = e.plan.ran == KernelId::fused_residual_dropout;
  const uint32_t threshold = rng::dropout_threshold(e.in.dropout_p);
  const float scale = rng::dropout_scale(e.in.dropout_p);
  std::vector<float> z(static_cast<size_t>(C));
  for (int64_t r = 0; r < e.in.rows; ++r) {
    for (int64_t c = 0; c < C; ++c) {
      const size_t i = static_cast<size_t>(r * C + c);
      float branch = e.in.x[i];
      if (dropout) branch = rng::dropout_keep(e.in.seed, i, threshold) ? branch * scale : 0.0f;
      const float sum = branch + e.in.residual[i];
      z[static_cast<size_t>(c)] = e.in.bf16 ? core::bf16_bits_to_fp32(emu::bf16_rne(sum)) : sum;
      e.out.z[i] = z[static_cast<size_t>(c)];
    }
    rows.row(r, z.data(), false);
  }
}

// --- the ASIC datapaths (sim/validate's cross-check) ---------------------------

using VA = core::VarianceAlgorithm;

// The fast_* datapath: as many lanes as the row's threads, each block of a
// cluster a share of the row; x read twice where the row outgrows the
// registers (two sweeps).
template <bool kRms>
AsicDatapath asic_fast_norm(int64_t hidden, DType dtype, int) {
  const normref::FastShape sh = normref::fast_norm_shape(hidden, normref::elem_bytes(dtype), kRms);
  return {.algorithm = kRms ? VA::welford : VA::two_pass, .rms = kRms, .lanes = sh.threads_per_row,
          .lane_vector = vector_elems(dtype), .lane_blocks = sh.cluster, .hw_rsqrt = true, .params_in_input_type = true,
          .path = sh.scheme == normref::FastScheme::two_sweep ? AsicInputPath::dram_reread : AsicInputPath::sram_replay};
}
AsicDatapath asic_fused_residual(int64_t hidden, DType dtype, int) {
  return {.algorithm = VA::two_pass, .lanes = normref::fused_residual_threads(hidden, normref::elem_bytes(dtype)),
          .lane_vector = vector_elems(dtype), .hw_rsqrt = true, .residual_sum = true};
}

const KernelEntry kFrontier[] = {
    {KernelId::fast_ln, plan_frontier, emulate_fast_norm<false>, asic_fast_norm<false>},
    {KernelId::fast_rms, plan_frontier, emulate_fast_norm<true>, asic_fast_norm<true>},
    {KernelId::fused_residual, plan_frontier, emulate_fused_residual, asic_fused_residual},
    {KernelId::fused_residual_dropout, plan_frontier, emulate_fused_residual, asic_fused_residual},
};

}  // namespace

std::span<const KernelEntry> frontier_kernels() { return kFrontier; }

}  // namespace normsim::simt
