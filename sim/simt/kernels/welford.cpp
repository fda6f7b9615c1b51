// The Welford kernels (gpu_ref/kernels/welford_rms.cuh): Welford per lane
// (Welford 1962) merged by Chan's formula, a warp per row with the row in
// registers, a block per row with the row in shared memory, and a block per
// row that re-reads x from global memory to normalise.
#include <cmath>

#include "sim/simt/kernels/emulation_kit.hpp"
#include "sim/simt/kernels/plan_kit.hpp"

namespace normsim::simt {

namespace {

using namespace plan_kit;
using emu::Row;

void plan_warp_reg(const PlanRequest& r, LaunchPlan& plan) {
  SubKernel k = base("welford_warp_reg", r.rows, r.hidden, r.elem_bytes(), r.block);
  warp_rows(k, r);
  const int need = static_cast<int>((r.hidden + 31) / 32);
  int vpt = 4;
  while (vpt < need) vpt *= 2;
  k.values_per_lane = vpt;
  k.function = "welford_warp_reg<float, " + std::to_string(vpt) + ">";
  // Fully unrolled, but each element's load sits in its own `if (c < C)`
  // block with the Welford update that uses it (SASS: LDG, then the
  // division, per block): one load in flight at a time.
  k.passes = {welford_pass(Source::global_streaming, 1, 32, Reduction::warp_welford), pass(Source::registers, 1, 12, 0)};
  k.overhead_instr_per_warp = 400;
  layernorm_bytes(k, r);
  plan.launches.push_back(k);
}

void plan_block(const PlanRequest& r, LaunchPlan& plan) {
  const bool smem = r.kernel == KernelId::welford_block_smem;
  const std::string name = smem ? "welford_block_smem" : "block_reread";
  SubKernel k = base(name, r.rows, r.hidden, r.elem_bytes(), r.block);
  k.function = templated(name, r.bf16());
  block_rows(k, r);
  k.static_smem_bytes = 384;
  k.overhead_instr_per_warp = smem ? 802 : 774;  // two warp_welford butterflies of Chan merges
  const double cvt = r.bf16() ? 1 : 0;         // bf16 -> fp32 conversion per element
  if (smem) {
    k.dynamic_smem_bytes = r.hidden * r.elem_bytes();
    k.passes = {welford_pass(Source::global_streaming, 1, 29 + 3 * cvt, Reduction::block_welford),
                pass(Source::shared, 1, 17 + 2 * cvt, 0)};
    k.passes[0].smem_wavefronts_per_elem = 1;  // the row is stored, one conflict-free wavefront per warp store
    k.passes[1].smem_wavefronts_per_elem = 1;
  } else {
    k.passes = {welford_pass(Source::global, 1, 28, Reduction::block_welford), pass(Source::global, 1, 21, 0)};
  }
  layernorm_bytes(k, r);
  plan.launches.push_back(k);
}

void warp_row(EmulationContext& e, int64_t r, const Row& row) {
  std::array<emu::Welford, 32> st{};
  for (int l = 0; l < 32; ++l)
    for (int64_t c = l; c < row.C; c += 32) emu::push(st[static_cast<size_t>(l)], row.x[c]);
  const emu::Welford w = emu::warp_welford(st);
  const float s = 1.0f / std::sqrt(w.m2 / row.fC + emu::kEps);
  e.normalize_s_last(r, row, w.mean, s);
  e.stats(r, w.mean, s);
}

void block_row(EmulationContext& e, int64_t r, const Row& row) {
  std::vector<emu::Welford> st(static_cast<size_t>(e.B));
  for (int t = 0; t < e.B; ++t)
    for (int64_t c = t; c < row.C; c += e.B) emu::push(st[static_cast<size_t>(t)], row.x[c]);
  const emu::Welford w = emu::block_welford(st);
  const float s = 1.0f / std::sqrt(w.m2 / row.fC + emu::kEps);
  e.normalize_s_last(r, row, w.mean, s);
  e.stats(r, w.mean, s);
}

template <void (*Row_)(EmulationContext&, int64_t, const Row&)>
void emulate(EmulationContext& e) {
  e.begin_forward(false);
  e.for_each_row([&](int64_t r, const Row& x) { Row_(e, r, x); });
}

AsicDatapath asic_warp_reg(int64_t, DType, int) { return {.path = AsicInputPath::sram_replay}; }
AsicDatapath asic_block_smem(int64_t, DType, int block) {
  return {.block_arch = true, .lanes = block, .path = AsicInputPath::sram_replay};
}
AsicDatapath asic_block_reread(int64_t, DType, int block) {
  return {.block_arch = true, .lanes = block, .path = AsicInputPath::dram_reread};
}

const KernelEntry kWelford[] = {
    {KernelId::welford_warp_reg, plan_warp_reg, emulate<warp_row>, asic_warp_reg},
    {KernelId::welford_block_smem, plan_block, emulate<block_row>, asic_block_smem},
    {KernelId::block_reread, plan_block, emulate<block_row>, asic_block_reread},
};

}  // namespace

std::span<const KernelEntry> welford_kernels() { return kWelford; }

}  // namespace normsim::simt
