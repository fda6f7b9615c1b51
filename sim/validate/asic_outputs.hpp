// The ASIC datapath model checked against the CUDA kernels it stands for
// (regress's `asic_cases`): a warp-per-row Welford kernel is a 32-lane fp32
// Welford datapath merged in the shuffle butterfly's order
// (workloads/arch/gpu-warp.yaml), a block-per-row one a (block)-lane datapath
// with a two-level tree (gpu-block.yaml). The datapath (sim/core's
// NormDatapath -- the arithmetic the SystemC modules call, bit-identical to
// them by test) runs on each golden case's inputs and its fp32 output is
// compared with the GPU's .npy bit for bit. The backward kernels are the
// backward datapath (core::NormBackward) configured in their order: dx,
// dgamma and dbeta against the GPU's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/simt/emulate.hpp"
#include "sim/validate/golden.hpp"

namespace normsim::validate {

struct AsicCase {
  std::string id, kernel;
  std::string arch;              ///< the mapped ASIC arch (its file)
  int lanes = 0;
  std::string merge_order;       ///< adjacent | butterfly
  uint64_t elements_compared = 0, elements_differing = 0;  ///< y, mean and rstd (backward: dx, dgamma, dbeta) entries
  double max_ulp = 0;            ///< largest difference in fp32 (bf16 outputs: bf16) ulps
  bool backward = false;         ///< dx, dgamma and dbeta (core::NormBackward)
  /// Atomics (bwd_atomic): the GPU adds the blocks' partials in no fixed
  /// order, so dgamma/dbeta are not compared bit for bit; their largest gap
  /// in fp32 ulps against the datapath's block order.
  bool parameter_order_free = false;
  double order_free_max_ulp = 0;
  bool bit_exact = false;
  std::string error;             ///< why the comparison could not run
};

/// Every golden case with recorded outputs whose kernel has a mapping.
/// `hw`: the GPU's rsqrtf (the golden dir's table) for the kernels that call it.
std::vector<AsicCase> asic_output_cases(const std::vector<GoldenCase>& cases, const std::string& golden_dir,
                                        const simt::HardwareRsqrt& hw);

}  // namespace normsim::validate
