// The gpu_ref kernels and what each supports: one entry per kernel, keyed by
// KernelId, with the limits normref enforces (block size, dtype, row
// length) and the launch block each picks. Header-only plain C++ so that the
// harness (normref), its host tests and the SIMT model -- which must plan
// the same launches -- read one table. Nothing here knows CUDA.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fast_shape.hpp"  // same folder: also found from sim/ as gpu_ref/host/

namespace normref {

enum class DType { fp32, bf16 };
constexpr int elem_bytes(DType d) { return d == DType::bf16 ? 2 : 4; }
constexpr std::string_view to_string(DType d) { return d == DType::bf16 ? "bf16" : "fp32"; }

/// Every kernel, in the order normref lists them (the golden data and `normsim
/// simt --kernel` use the names of kernel_table()).
enum class KernelId {
  v1, v2, v3, v4, v5, v6,
  welford_warp_reg, welford_block_smem, block_reread,
  rms_warp, rms_block,
  fast_ln, fast_rms, fused_residual,
  bwd_atomic, bwd_twolevel,
  fused_residual_dropout,
};
inline constexpr int kKernelCount = static_cast<int>(KernelId::fused_residual_dropout) + 1;

/// What a kernel computes, which decides its inputs, outputs and validation.
enum class KernelKind {
  forward,         ///< y = norm(x), mean, rstd
  fused_residual,  ///< z = x + r (or dropout(x) + r), y = LN(z) (Post-Norm), mean, rstd
  backward,        ///< dx, dgamma, dbeta from dy, x, gamma, mean, rstd
};

/// What each kernel supports; the harness refuses anything else with exit 2.
struct KernelInfo {
  KernelId id{};
  const char* name = "";
  const char* description = "";
  bool bf16 = false;             ///< has a bf16 in/out variant
  int default_block = 256;
  int min_block = 32, max_block = 1024;
  bool block_multiple_of_32 = true;
  int64_t hidden_multiple = 1;   ///< e.g. 8 for 128-bit vector access of bf16
  /// Largest hidden for the kernel's on-chip scheme (0: unlimited), per dtype byte size.
  int64_t max_hidden_fp32 = 0, max_hidden_bf16 = 0;
  bool layernorm = true;         ///< false: RMSNorm (no mean, no beta)
  bool single_pass_variance = false;
  KernelKind kind = KernelKind::forward;
  bool block_from_hidden = false;  ///< the kernel picks its block from hidden (host/fast_shape.hpp)
  bool dropout = false;            ///< fused_residual: z = dropout_p(x) + r (sim/core/dropout_mask.hpp)
};

// Shared-memory limits: 227 KiB of opt-in dynamic shared memory per block on sm_90.
inline constexpr std::array<KernelInfo, kKernelCount> kKernelTable = {{
    {.id = KernelId::v1, .name = "v1", .description = "one thread per row, three serial passes over x"},
    {.id = KernelId::v2, .name = "v2",
     .description = "three kernels: mean, rstd (shared-memory tree reductions), normalise"},
    {.id = KernelId::v3, .name = "v3", .description = "warp per row (cooperative groups), exact two-pass, streaming hints"},
    {.id = KernelId::v4, .name = "v4", .description = "warp per row, single-pass sum / sum of squares, rsqrtf",
     .single_pass_variance = true},
    {.id = KernelId::v5, .name = "v5", .description = "block per row, single pass, warp shuffle then shared-memory reduction",
     .bf16 = true, .single_pass_variance = true},
    {.id = KernelId::v6, .name = "v6",
     .description = "warp per row, 128-bit access, weight/bias/row in dynamic shared memory (falls back to v5)",
     .bf16 = true, .hidden_multiple = 8},
    {.id = KernelId::welford_warp_reg, .name = "welford_warp_reg",
     .description = "warp per row, Welford per lane + shuffle Chan merge, row held in registers",
     .max_hidden_fp32 = 4096, .max_hidden_bf16 = 4096},
    {.id = KernelId::welford_block_smem, .name = "welford_block_smem",
     .description = "block per row, Welford, row cached in shared memory", .bf16 = true,
     .max_hidden_fp32 = 56 * 1024, .max_hidden_bf16 = 112 * 1024},
    {.id = KernelId::block_reread, .name = "block_reread",
     .description = "block per row, Welford, x re-read from global memory to normalise"},
    {.id = KernelId::rms_warp, .name = "rms_warp", .description = "RMSNorm, warp per row, x re-read to normalise",
     .bf16 = true, .layernorm = false},
    {.id = KernelId::rms_block, .name = "rms_block", .description = "RMSNorm, block per row, two-level reduction, x re-read",
     .bf16 = true, .layernorm = false},
    // The frontier kernels: shapes from host/fast_shape.hpp, 128-bit access (hidden a multiple of 8).
    {.id = KernelId::fast_ln, .name = "fast_ln",
     .description = "row in registers (warp, block or 2-block cluster per row; two sweeps beyond), 128-bit access, "
                    "exact two-pass statistics; bf16 runs take bf16 gamma/beta",
     .bf16 = true, .default_block = 0, .hidden_multiple = 8, .block_from_hidden = true},
    {.id = KernelId::fast_rms, .name = "fast_rms", .description = "RMSNorm as fast_ln", .bf16 = true, .default_block = 0,
     .hidden_multiple = 8, .layernorm = false, .block_from_hidden = true},
    {.id = KernelId::fused_residual, .name = "fused_residual",
     .description = "Post-Norm: z = x + r and y = LN(z) in one pass, block per row, row in registers", .bf16 = true,
     .default_block = 0, .hidden_multiple = 8, .max_hidden_fp32 = 32768, .max_hidden_bf16 = 32768,
     .kind = KernelKind::fused_residual, .block_from_hidden = true},
    {.id = KernelId::bwd_atomic, .name = "bwd_atomic",
     .description = "LayerNorm backward: dx by the two row reductions, dgamma/dbeta by global atomics", .bf16 = true,
     .default_block = 0, .hidden_multiple = 8, .max_hidden_fp32 = 8192, .max_hidden_bf16 = 8192,
     .kind = KernelKind::backward, .block_from_hidden = true},
    {.id = KernelId::bwd_twolevel, .name = "bwd_twolevel",
     .description = "LayerNorm backward: dgamma/dbeta by per-block partials and a column-sum kernel", .bf16 = true,
     .default_block = 0, .hidden_multiple = 8, .max_hidden_fp32 = 8192, .max_hidden_bf16 = 8192,
     .kind = KernelKind::backward, .block_from_hidden = true},
    {.id = KernelId::fused_residual_dropout, .name = "fused_residual_dropout",
     .description = "Post-Norm with dropout on the branch: z = dropout_p(x) + r (the mask regenerated by Philox from "
                    "the seed and the element index) and y = LN(z) in one pass, as fused_residual",
     .bf16 = true, .default_block = 0, .hidden_multiple = 8, .max_hidden_fp32 = 32768, .max_hidden_bf16 = 32768,
     .kind = KernelKind::fused_residual, .block_from_hidden = true, .dropout = true},
}};

constexpr const KernelInfo& kernel_info(KernelId id) { return kKernelTable[static_cast<size_t>(id)]; }

inline const KernelInfo* find_kernel(std::string_view name) {
  for (const auto& k : kKernelTable)
    if (name == k.name) return &k;
  return nullptr;
}

/// "v1, v2, ..., bwd_twolevel": the allowed values of a --kernel flag.
inline std::string kernel_names() {
  std::string s;
  for (const auto& k : kKernelTable) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

/// The block a kernel launches with: its own choice from hidden, or `block`
/// (0: the kernel's default).
inline int effective_block(const KernelInfo& k, int64_t hidden, DType dtype, int block) {
  if (!k.block_from_hidden) return block ? block : k.default_block;
  const int eb = elem_bytes(dtype);
  switch (k.kind) {
    case KernelKind::forward: return fast_norm_shape(hidden, eb, k.id == KernelId::fast_rms).block();
    case KernelKind::fused_residual: return fused_residual_threads(hidden, eb);
    case KernelKind::backward: return backward_threads(hidden, eb);
  }
  return 0;
}

/// Checks a launch against the kernel's limits: the one-line message for
/// exit 2 (starting "normref: --flag: "), or nullopt.
inline std::optional<std::string> check_supported(const KernelInfo& k, int64_t hidden, DType dtype, int block) {
  const std::string name = k.name;
  const int b = effective_block(k, hidden, dtype, block);
  if (k.block_from_hidden) {
    if (block && block != b)
      return "normref: --block: " + name + " picks its block from --hidden (allowed: 0 or " + std::to_string(b) +
             " at hidden " + std::to_string(hidden) + ")";
  } else if (b < k.min_block || b > k.max_block || (k.block_multiple_of_32 && b % 32 != 0)) {
    return "normref: --block: " + std::to_string(b) + " not supported by " + name + " (allowed: multiples of 32 in " +
           std::to_string(k.min_block) + ".." + std::to_string(k.max_block) + ")";
  }
  if (dtype == DType::bf16 && !k.bf16) return "normref: --dtype: " + name + " has no bf16 variant (allowed: fp32)";
  if (hidden % k.hidden_multiple != 0)
    return "normref: --hidden: " + name + " needs a multiple of " + std::to_string(k.hidden_multiple) +
           " (128-bit vector access), got " + std::to_string(hidden);
  const int64_t lim = dtype == DType::bf16 ? k.max_hidden_bf16 : k.max_hidden_fp32;
  if (lim && hidden > lim)
    return "normref: --hidden: " + std::to_string(hidden) + " exceeds " + name + "'s on-chip scheme (allowed: " +
           std::to_string(k.hidden_multiple) + ".." + std::to_string(lim) + " for " + std::string(to_string(dtype)) + ")";
  return std::nullopt;
}

}  // namespace normref
