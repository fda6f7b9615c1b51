// Building blocks of the kernel families' launch plans (kernels/*.cpp).
//
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
#pragma once

#include <string>

#include "sim/simt/kernels/kernel_registry.hpp"

namespace normsim::simt::plan_kit {

inline constexpr double kAccumulate = 4;  // FADD/FFMA latency (cycles)

inline Pass pass(Source s, int unroll, double instr, double chain, Reduction after = Reduction::none, int reductions = 1) {
  Pass p;
  p.source = s;
  p.loads_in_flight = unroll;
  p.instr_per_elem = instr;
  p.chain_cycles_per_elem = chain;
  p.after = after;
  p.reductions = reductions;
  return p;
}

/// Welford push: n += 1, d = x - mean, mean += d / n, m2 += d (x - mean).
inline Pass welford_pass(Source s, int unroll, double instr, Reduction after) {
  Pass p = pass(s, unroll, instr, 3 * kAccumulate, after, 3);
  p.divisions_per_elem = 1;  // the division's latency comes from the arch (fdiv_latency_cycles)
  return p;
}

/// A launch named `name` over the request's rows, x read once.
inline SubKernel base(const std::string& name, int64_t rows, int64_t hidden, int eb, int block) {
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

inline std::string element_type(bool bf16) { return bf16 ? "__nv_bfloat16" : "float"; }

/// "name<float>" / "name<__nv_bfloat16>": a kernel templated on its element type, as the SASS names it.
inline std::string templated(const std::string& name, bool bf16) { return name + "<" + element_type(bf16) + ">"; }

/// LayerNorm's gamma and beta (fp32), y, mean and rstd.
inline void layernorm_bytes(SubKernel& k, const PlanRequest& r) {
  k.param_bytes = 2 * r.hidden * 4;
  k.output_bytes = r.rows * r.hidden * r.elem_bytes();
  k.stats_bytes = 2 * r.rows * 4;
}

/// A warp per row, the block's warps on consecutive rows.
inline void warp_rows(SubKernel& k, const PlanRequest& r) {
  const int warps = r.block / r.gpu->warp_size;
  k.mapping = RowMapping::warp;
  k.rows_per_block = warps;
  k.threads_per_row = r.gpu->warp_size;
  k.grid = (r.rows + warps - 1) / warps;
}

/// A block per row.
inline void block_rows(SubKernel& k, const PlanRequest& r) {
  k.mapping = RowMapping::block;
  k.rows_per_block = 1;
  k.threads_per_row = r.block;
  k.grid = r.rows;
}

}  // namespace normsim::simt::plan_kit
