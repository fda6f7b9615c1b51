// Host-side logic of the normref harness, kept free of CUDA so that CI (no
// GPU, maybe no nvcc) unit-tests it: argument parsing against the kernel
// table (host/kernel_table.hpp), validation against the fp64 reference, JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host/kernel_table.hpp"

namespace normref {

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
  double dropout_p = -1;        ///< fused_residual_dropout's drop probability; < 0: its default
  /// The drop probability the run uses: --dropout, or kDefaultDropoutP for a
  /// dropout kernel; 0 for every other kernel.
  double dropout() const;
};

/// fused_residual_dropout's drop probability when --dropout is not given.
inline constexpr double kDefaultDropoutP = 0.1;

/// Parses argv. On error returns the one-line message (exit 2), else nullopt.
std::optional<std::string> parse_args(int argc, const char* const* argv, Args& out);
/// Checks args against the kernel's limits (message for exit 2, or nullopt).
inline std::optional<std::string> check_supported(const Args& a, const KernelInfo& k) {
  return check_supported(k, a.hidden, a.dtype, a.block);
}
inline int effective_block(const Args& a, const KernelInfo& k) { return effective_block(k, a.hidden, a.dtype, a.block); }
std::string usage();

}  // namespace normref
