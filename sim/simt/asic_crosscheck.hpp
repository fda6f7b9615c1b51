// The ASIC datapath model checked against the CUDA kernels it stands for
// (regress's `asic_cases`): a warp-per-row Welford kernel is a 32-lane fp32
// Welford datapath merged in the shuffle butterfly's order
// (workloads/arch/gpu-warp.yaml), a block-per-row one a (block)-lane datapath
// with a two-level tree (gpu-block.yaml). The datapath (sim/core's
// NormDatapath -- the arithmetic the SystemC modules call, bit-identical to
// them by test) runs on each golden case's inputs and its fp32 output is
// compared with the GPU's .npy bit for bit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/simt/emulate.hpp"
#include "sim/simt/golden.hpp"
#include "sim/simt/gpu_arch.hpp"

namespace normsim::simt {

struct AsicCase {
  std::string id, kernel;
  std::string arch;              ///< the mapped ASIC arch (its file)
  int lanes = 0;
  std::string merge_order;       ///< adjacent | butterfly
  uint64_t elements_compared = 0, elements_differing = 0;  ///< y, mean and rstd entries
  double max_ulp = 0;            ///< largest difference in fp32 (bf16 outputs: bf16) ulps
  bool bit_exact = false;
  std::string error;             ///< why the comparison could not run
};

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

/// The mapped ASIC path's DRAM bytes (the model's exact identities: SRAM
/// replay reads x once, DRAM re-read twice; y, gamma/beta and the
/// statistics once) against ncu's, with the cause of the gap named.
struct AsicTrafficCase {
  std::string id, kernel, path;  ///< path: sram-replay | dram-reread
  double closed_form_read = 0, closed_form_written = 0;
  double measured_read = 0, measured_written = 0;
  double read_gap = 0, write_gap = 0;  ///< (measured - closed form) / closed form
  std::string read_cause, write_cause;
  // With the arch's L2 in front of the DRAM (asic/l2_model.hpp), the GPU's
  // rows in flight and the kernel's cache hints.
  double rows_in_flight = 0;
  double l1_reread_hit = 0;  ///< fraction of the re-read the near caches (the SMs' L1) served
  double l2_reread_hit = 1;  ///< fraction of the rest of the re-read the L2 served
  double code_bytes = 0;     ///< the launches' code and constants, read once (in l2_read)
  double l2_read = 0, l2_written = 0;
  double l2_read_error = 0, l2_write_error = 0;  ///< (L2 model - measured) / measured
};

/// Every golden case of a mapped kernel (rows in flight from the SIMT model's occupancy on `gpu`).
std::vector<AsicTrafficCase> asic_traffic_cases(const std::vector<GoldenCase>& cases, const GpuArch& gpu);

/// Every golden case with recorded outputs whose kernel has a mapping.
/// `hw`: the GPU's rsqrtf (the golden dir's table) for the kernels that call it.
std::vector<AsicCase> asic_output_cases(const std::vector<GoldenCase>& cases, const std::string& golden_dir,
                                        const HardwareRsqrt& hw);

}  // namespace normsim::simt
