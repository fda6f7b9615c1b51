// The RMSNorm kernels (gpu_ref/kernels/welford_rms.cuh): the sum of squares
// by a warp per row or a block per row, x re-read from global memory to
// normalise.
#include <cmath>

#include "sim/simt/kernels/emulation_kit.hpp"
#include "sim/simt/kernels/plan_kit.hpp"

namespace normsim::simt {

namespace {

using namespace plan_kit;
using emu::Row;

void plan_rms(const PlanRequest& r, LaunchPlan& plan) {
  const bool warp = r.kernel == KernelId::rms_warp, bf16 = r.bf16();
  const std::string name = warp ? "rms_warp" : "rms_block";
  SubKernel k = base(name, r.rows, r.hidden, r.elem_bytes(), r.block);
  k.function = templated(name, bf16);
  const Source G = Source::global;
  if (warp) {
    warp_rows(k, r);
    k.passes = {pass(G, bf16 ? 14 : 15, bf16 ? 3.3 : 2.3, kAccumulate, Reduction::warp_shuffle),
                pass(G, 4, bf16 ? 8 : 7.75, 0)};
    // SASS: 16-element bodies, then 1-element loops of 10/11 and 21/23 instructions.
    k.passes[0].body_elems = 16;
    k.passes[0].remainder_instr_per_elem = bf16 ? 11 : 10;
    k.passes[1].body_elems = bf16 ? 16 : 4;
    k.passes[1].remainder_instr_per_elem = bf16 ? 23 : 21;
    k.overhead_instr_per_warp = 118;
  } else {
    block_rows(k, r);
    k.static_smem_bytes = 128;
    const double cvt = bf16 ? 1 : 0;  // bf16 -> fp32 conversion per element
    k.passes = {pass(G, 1, 10 + cvt, kAccumulate, Reduction::block_two_level), pass(G, 1, 18 + 2 * cvt, 0)};
    k.overhead_instr_per_warp = 100;
  }
  k.param_bytes = r.hidden * 4;
  k.output_bytes = r.rows * r.hidden * r.elem_bytes();
  k.stats_bytes = r.rows * 4;
  plan.launches.push_back(k);
}

template <bool kBlock>
void emulate(EmulationContext& e) {
  e.begin_forward(true);
  e.for_each_row([&](int64_t r, const Row& row) {
    auto sq = [](float a, float x) { return std::fmaf(x, x, a); };
    const float ss = kBlock ? emu::block_sum(e.strided(row, e.B, sq)) : emu::warp_sum(emu::lanes(e.strided(row, 32, sq)));
    const float s = e.rsqrt(ss / row.fC + emu::kEps);
    for (int64_t c = 0; c < e.C; ++c) e.store(r, c, (row.x[c] * s) * e.g(c));
    e.stats(r, 0.0f, s);
  });
}

AsicDatapath asic_warp(int64_t, DType, int) {
  return {.rms = true, .hw_rsqrt = true, .path = AsicInputPath::dram_reread};
}
AsicDatapath asic_block(int64_t, DType, int block) {
  return {.block_arch = true, .rms = true, .lanes = block, .hw_rsqrt = true, .path = AsicInputPath::dram_reread};
}

const KernelEntry kRms[] = {
    {KernelId::rms_warp, plan_rms, emulate<false>, asic_warp},
    {KernelId::rms_block, plan_rms, emulate<true>, asic_block},
};

}  // namespace

std::span<const KernelEntry> rms_kernels() { return kRms; }

}  // namespace normsim::simt
