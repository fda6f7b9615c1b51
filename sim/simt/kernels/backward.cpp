// The LayerNorm backward (gpu_ref/kernels/fused_bwd.cuh): dx from the two
// row sums, dgamma/dbeta by global atomics (bwd_atomic) or by per-block
// partials and a column-sum kernel (bwd_twolevel).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gpu_ref/host/fast_shape.hpp"
#include "sim/core/float_norm.hpp"
#include "sim/simt/kernels/emulation_kit.hpp"
#include "sim/simt/kernels/plan_kit.hpp"
#include "sim/simt/simt_model.hpp"

namespace normsim::simt {

namespace {

using namespace plan_kit;

// ln_backward: a persistent grid (every SM full), each block walking rows
// blockIdx.x, += gridDim.x; x and dy read once, dx written once; dgamma and
// dbeta by atomics into the L2, or as per-block partials summed by
// bwd_column_sum (which ncu profiles with cold caches: it reads them from
// DRAM).
void plan_backward(const PlanRequest& r, LaunchPlan& plan) {
  const bool two_level = r.kernel == KernelId::bwd_twolevel, bf16 = r.bf16();
  const int64_t N = r.rows, C = r.hidden;
  const int eb = r.elem_bytes();
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
  const int64_t per_sm = occupancy(k, *r.gpu).blocks_per_sm;
  k.grid = std::min<int64_t>(N, r.gpu->sms * per_sm);
  // Per element 8.7 (fp32) / 13.6 (bf16) instructions, 134 / 116 per
  // warp-row: ncu_profile.json's bwd_atomic cases give 204 / 225 a warp-row
  // (8 elements a lane at every width, so only the sum is pinned; split as
  // the SASS's loop bodies and row code were before gamma left the loop).
  const double a = bf16 ? 13.6 : 8.7;
  k.overhead_instr_per_warp = bf16 ? 116 : 134;
  // The two row reductions (S1 = sum g, S2 = sum g x_hat) share one
  // shared-memory stage (row_sum2): one block reduction's latency.
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
  if (!two_level) {
    plan.launches = {k};
    return;
  }
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
  plan.launches = {k, s};
}

// ln_backward (fused_bwd.cuh, SASS of ln_backward<float, 128, 2, true>):
// block b walks rows b, b + grid, ...; thread t holds vectors t + k T.
//   x_hat = (x - mu) rstd (FADD, FMUL); g = dy gamma (FMUL);
//   s1 += g (FADD); s2 = FFMA(x_hat, g, s2); pg = FFMA(dy, x_hat, pg); pb += dy;
//   dx = FFMA(-S2, x_hat, FFMA(C, g, -S1)) (rstd / C).
// The statistics are the harness's (core::reference_stats_fp32). Two
// levels: partials per block, then bwd_column_sum's order (thread ty adds
// blocks ty, ty + 32, ...; then the 32 sums in ty order).
template <bool kTwoLevel>
void emulate_backward(EmulationContext& e) {
  const SubKernel& s = e.plan.launches.at(0);
  const KernelInputs& in = e.in;
  KernelOutputs& out = e.out;
  const int64_t C = e.C;
  if (in.grad_out.size() != in.x.size()) throw std::invalid_argument("emulate: the backward needs add_grad_out");
  const int T = s.threads_per_row, kn = in.bf16 ? 8 : 4, V = in.bf16 ? 1 : 2;
  const int64_t blocks = s.grid, nvec = C / kn, rows = in.rows;
  std::vector<float> mean, rstd;
  core::reference_stats_fp32(in.x, rows, C, emu::kEps, mean, rstd);
  out.y.assign(static_cast<size_t>(rows * C), 0.0f);
  if (in.bf16) out.y_bf16.assign(out.y.size(), 0);
  std::vector<float> pg(static_cast<size_t>(blocks * C), 0.0f), pb(pg.size(), 0.0f);
  std::vector<float> s1(static_cast<size_t>(T)), s2(static_cast<size_t>(T)), xh(static_cast<size_t>(C)),
      g(static_cast<size_t>(C));
  const float Cf = static_cast<float>(C);
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t r = b; r < rows; r += blocks) {
      const float mu = mean[static_cast<size_t>(r)], rs = rstd[static_cast<size_t>(r)];
      for (int t = 0; t < T; ++t) {
        float a1 = 0.0f, a2 = 0.0f;
        for (int k = 0; k < V; ++k) {
          const int64_t i = t + static_cast<int64_t>(k) * T;
          if (i >= nvec) continue;
          for (int j = 0; j < kn; ++j) {
            const int64_t c = i * kn + j;
            const size_t el = static_cast<size_t>(r * C + c), pc = static_cast<size_t>(b * C + c);
            const float dy = in.grad_out[el];
            xh[static_cast<size_t>(c)] = (in.x[el] - mu) * rs;
            g[static_cast<size_t>(c)] = dy * in.gamma[static_cast<size_t>(c)];
            a1 += g[static_cast<size_t>(c)];
            a2 = std::fmaf(xh[static_cast<size_t>(c)], g[static_cast<size_t>(c)], a2);
            pg[pc] = std::fmaf(dy, xh[static_cast<size_t>(c)], pg[pc]);
            pb[pc] += dy;
          }
        }
        s1[static_cast<size_t>(t)] = a1;
        s2[static_cast<size_t>(t)] = a2;
      }
      const float S1 = T <= 32 ? emu::warp_sum(emu::lanes(s1)) : emu::block_sum(s1);
      const float S2 = T <= 32 ? emu::warp_sum(emu::lanes(s2)) : emu::block_sum(s2);
      const float scale = rs / Cf;
      for (int64_t c = 0; c < C; ++c) {
        const float u = std::fmaf(-S2, xh[static_cast<size_t>(c)], std::fmaf(Cf, g[static_cast<size_t>(c)], -S1));
        e.store(r, c, u * scale);
      }
    }
  out.dgamma.assign(static_cast<size_t>(C), 0.0f);
  out.dbeta.assign(static_cast<size_t>(C), 0.0f);
  for (int64_t c = 0; c < C; ++c) {
    float G = 0.0f, Bt = 0.0f;
    if constexpr (kTwoLevel) {
      for (int ty = 0; ty < 32; ++ty) {
        float gs = 0.0f, bs = 0.0f;
        for (int64_t k = ty; k < blocks; k += 32) gs += pg[static_cast<size_t>(k * C + c)], bs += pb[static_cast<size_t>(k * C + c)];
        G += gs, Bt += bs;
      }
    } else {  // atomics from zero, here in block order
      for (int64_t k = 0; k < blocks; ++k) G += pg[static_cast<size_t>(k * C + c)], Bt += pb[static_cast<size_t>(k * C + c)];
    }
    out.dgamma[static_cast<size_t>(c)] = G;
    out.dbeta[static_cast<size_t>(c)] = Bt;
  }
  out.parameter_order_free = !kTwoLevel;
}

// The backward as a datapath (core::NormBackward): one lane per thread of
// the block, a thread's 16-byte vectors, the block's two-level butterfly
// (gpu-block.yaml), the SASS's fused multiply-adds; dgamma/dbeta as the
// grid's persistent blocks deal the rows (row r to block r mod grid), then
// summed by bwd_column_sum's 32 column lanes or, for the atomics, in block
// order (one order of many the GPU may take).
template <bool kTwoLevel>
AsicDatapath asic_backward(int64_t hidden, DType dtype, int) {
  const int eb = normref::elem_bytes(dtype);
  AsicDatapath m{.block_arch = true, .lanes = normref::backward_threads(hidden, eb), .lane_vector = vector_elems(dtype)};
  m.backward = true;
  m.param_grad = {.strided = true, .partials = 0, .rows_per_partial = 0, .column_lanes = kTwoLevel ? 32 : 1};
  m.param_grad_order_free = !kTwoLevel;
  return m;
}

const KernelEntry kBackward[] = {
    {KernelId::bwd_atomic, plan_backward, emulate_backward<false>, asic_backward<false>},
    {KernelId::bwd_twolevel, plan_backward, emulate_backward<true>, asic_backward<true>},
};

}  // namespace

std::span<const KernelEntry> backward_kernels() { return kBackward; }

}  // namespace normsim::simt
