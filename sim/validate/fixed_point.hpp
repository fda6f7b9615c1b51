// A 16-bit fixed-point datapath on the golden cases' inputs (regress's
// `fixed_point_cases`): what the unit would cost in accuracy against the
// GPU's fp32 outputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/validate/golden.hpp"

namespace normsim::validate {

/// A fixed-point datapath (workloads/arch/fixed16.yaml) on a golden fp32
/// case's inputs: what a 16-bit unit would cost in accuracy against the GPU.
struct FixedPointCase {
  std::string id, kernel, arch;
  uint64_t elements = 0;
  double rel_l2_error = 0;          ///< ||y_fixed - y_gpu|| / ||y_gpu||
  double max_abs_error = 0;         ///< max |y_fixed - y_gpu| (output units)
  double output_lsb = 0;            ///< the fixed output format's resolution
  uint64_t input_overflows = 0;     ///< inputs the input format saturated (e.g. mean 1e4)
  uint64_t other_overflows = 0;     ///< every later stage's overflows
  std::string error;
};

/// Every fp32 golden case with recorded outputs (LayerNorm or RMSNorm).
std::vector<FixedPointCase> fixed_point_cases(const std::vector<GoldenCase>& cases, const std::string& golden_dir);

}  // namespace normsim::validate
