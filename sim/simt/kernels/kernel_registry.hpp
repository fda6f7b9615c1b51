// The SIMT model's kernel registry: one entry per gpu_ref kernel, keyed by
// KernelId (gpu_ref/host/kernel_table.hpp, the table normref itself uses),
// each giving
//   * its launch plan: the launches normref makes and, per launch, what the
//     SIMT model needs (mapping of rows to threads, passes over x, loads in
//     flight, instructions, shared memory, code size);
//   * its fp32 emulation: the kernel's arithmetic in its own order, bit for
//     bit with the GPU's outputs;
//   * its ASIC mapping: which datapath of the ASIC model the kernel is, for
//     the cross-check in sim/validate (plain data: simt knows nothing of the
//     ASIC model).
// One file per kernel family under sim/simt/kernels/ defines its entries.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_ref/host/kernel_table.hpp"
#include "sim/core/norm_backward.hpp"
#include "sim/core/norm_types.hpp"
#include "sim/simt/kernel_desc.hpp"

namespace normsim::simt {

struct EmulationContext;  // kernels/emulation_kit.hpp

/// What the planners need: the launch as asked, its shape checked.
struct PlanRequest {
  KernelId kernel{};
  int64_t rows = 0, hidden = 0;
  DType dtype = DType::fp32;
  int block = 0;  ///< the effective block (normref's rules)
  const GpuArch* gpu = nullptr;
  int elem_bytes() const { return normref::elem_bytes(dtype); }
  bool bf16() const { return dtype == DType::bf16; }
};

/// The input path of the ASIC model a kernel's passes over x are.
enum class AsicInputPath {
  none,         ///< no single path (x read three times, two inputs, the backward)
  sram_replay,  ///< the row kept on chip (registers or shared memory) between its passes
  dram_reread,  ///< x read again from global memory to normalise
};

/// The ASIC datapath a kernel is at one launch shape (validate configures the
/// ASIC model so, and compares its outputs and DRAM bytes with the kernel's).
struct AsicDatapath {
  bool block_arch = false;  ///< workloads/arch/gpu-block.yaml (else gpu-warp.yaml)
  core::VarianceAlgorithm algorithm = core::VarianceAlgorithm::welford;
  bool rms = false;
  int lanes = 0;             ///< threads holding the row (the block, a cluster); 0: the arch's (a warp)
  int lane_vector = 1;       ///< elements a lane takes at a time (16-byte vectors: 4 fp32, 8 bf16)
  int lane_blocks = 1;       ///< blocks sharing a row (a cluster)
  bool whole_block_group = false;  ///< one shared-memory tree over all lanes (no warp level)
  bool hw_rsqrt = false;     ///< rsqrtf (MUFU.RSQ), replayed from the measured table
  bool clamp = true;         ///< a single-pass variance clamped at 0
  bool residual_sum = false; ///< normalises z = x + r, rounded to the dtype
  bool params_in_input_type = false;  ///< reads gamma/beta in the input's type (bf16 runs: bf16), not fp32
  AsicInputPath path = AsicInputPath::none;
  /// The LayerNorm backward (dx, dgamma, dbeta: core::NormBackward) and its
  /// parameter-gradient order; `param_grad.partials` 0: one partial per
  /// block of the launch's grid (the case's).
  bool backward = false;
  core::ParamGradOrder param_grad{};
  bool param_grad_order_free = false;  ///< atomics: the GPU's order of the partials is not fixed
};

/// Elements of one 16-byte vector: what a lane of a 128-bit-access kernel takes at a time.
constexpr int vector_elems(DType d) { return 16 / normref::elem_bytes(d); }

struct KernelEntry {
  KernelId id{};
  /// Fills plan.launches (and plan.ran where the kernel falls back to another).
  void (*plan)(const PlanRequest& req, LaunchPlan& plan) = nullptr;
  /// Emulates every row of the kernel that ran; nullptr: no emulation.
  void (*emulate)(EmulationContext& ctx) = nullptr;
  /// The ASIC datapath at a shape; nullptr: the kernel has no ASIC mapping.
  AsicDatapath (*asic)(int64_t hidden, DType dtype, int block) = nullptr;
};

/// The entry of a kernel (every KernelId has exactly one: a test checks).
const KernelEntry& kernel_entry(KernelId id);
/// The gpu_ref name of a kernel ("v1", "fast_ln", ...).
std::string_view kernel_name(KernelId id);
/// The kernel named `name`; ConfigError "simt: --kernel: unknown kernel ..."
/// naming the allowed values otherwise.
KernelId parse_kernel(std::string_view name);
/// fp32 or bf16; ConfigError "simt: --dtype: ..." otherwise.
DType parse_dtype(std::string_view name);
/// Every kernel, in gpu_ref's order.
std::span<const normref::KernelInfo> kernel_infos();

// The families (one file each under sim/simt/kernels/).
std::span<const KernelEntry> ladder_kernels();    ///< v1-v6: llm.c's layernorm_forward ladder
std::span<const KernelEntry> welford_kernels();   ///< welford_warp_reg, welford_block_smem, block_reread
std::span<const KernelEntry> rms_kernels();       ///< rms_warp, rms_block
std::span<const KernelEntry> frontier_kernels();  ///< fast_ln, fast_rms, fused_residual
std::span<const KernelEntry> backward_kernels();  ///< bwd_atomic, bwd_twolevel

}  // namespace normsim::simt
