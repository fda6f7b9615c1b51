// The ASIC model in time as the GPU (regress's `asic_time`): the SystemC
// model, timing only, configured as the H200 -- workloads/arch/gpu-warp.yaml
// or gpu-block.yaml: its clock, DRAM bandwidth and latency, as many
// datapaths as the GPU runs warps (blocks) at once -- on the golden cases of
// the mapped forward kernels that read x once (SRAM replay) and stream at
// >= 2/3 of the DRAM bandwidth; its time at the SM clock against ncu's
// duration. Each case runs in a forked child (asic/isolated_run.hpp).
#pragma once

#include <string>
#include <vector>

#include "sim/simt/gpu_arch.hpp"
#include "sim/validate/golden.hpp"

namespace normsim::validate {

struct AsicTimeCase {
  std::string id, kernel;
  std::string arch;  ///< gpu-warp | gpu-block
  double asic_cycles = 0, asic_us = 0, measured_us = 0;
  double rel_error = 0;  ///< (asic - measured) / measured
};

struct AsicTime {
  std::vector<AsicTimeCase> cases;
  double mae = 0;  ///< mean |rel_error|
};

AsicTime asic_time_cases(const std::vector<GoldenCase>& cases, const simt::GpuArch& gpu);

}  // namespace normsim::validate
