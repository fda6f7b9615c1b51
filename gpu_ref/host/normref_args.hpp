// Host-side logic of the normref harness, kept free of CUDA so that CI (no
// GPU, maybe no nvcc) unit-tests it: argument parsing, the kernel registry
// with each kernel's limits, validation against the fp64 reference, JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace normref {

enum class DType { fp32, bf16 };
/// What a kernel computes, which decides its inputs, outputs and validation.
enum class KernelKind {
  forward,         ///< y = norm(x), mean, rstd
  fused_residual,  ///< z = x + r, y = LN(z) (Post-Norm), mean, rstd
  backward,        ///< dx, dgamma, dbeta from dy, x, gamma, mean, rstd
};
enum class Mode { full, profile };

struct Args {
  std::string kernel;
  int64_t rows = 0;
  int64_t hidden = 0;
  DType dtype = DType::fp32;
  int block = 0;  ///< 0: the kernel's default
  std::string dist = "normal";
  double dist_mean = 0.0, dist_sigma = 1.0;
  uint64_t seed = 1;
  int reps = 25, warmup = 3;
  Mode mode = Mode::full;
  std::string json_path;        ///< empty: stdout
  std::string npy_dir;          ///< empty: no dumps
  int64_t npy_max_elements = int64_t(1) << 20;
  bool allow_invalid = false;   ///< record a failed validation instead of exiting 1
};

/// What each kernel supports; the harness refuses anything else with exit 2.
struct KernelInfo {
  std::string name;
  std::string description;
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
};

const std::vector<KernelInfo>& kernel_registry();
const KernelInfo* find_kernel(const std::string& name);

/// Parses argv. On error returns the one-line message (exit 2), else nullopt.
std::optional<std::string> parse_args(int argc, const char* const* argv, Args& out);
/// Checks args against the kernel's limits (message for exit 2, or nullopt).
std::optional<std::string> check_supported(const Args& a, const KernelInfo& k);
std::string usage();
int effective_block(const Args& a, const KernelInfo& k);

}  // namespace normref
