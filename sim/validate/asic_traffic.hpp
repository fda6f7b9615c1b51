// The ASIC input paths' DRAM identities against the GPU kernels they stand
// for (regress's `asic_traffic`): a kernel that keeps its row on chip is SRAM
// replay, one that reads x again to normalise is DRAM re-read; the paths'
// closed forms (asic/traffic_identity.hpp) and the same path behind an L1
// and L2 with the H200's measured reuse curves (asic/l2_model.hpp) against
// ncu's bytes.
#pragma once

#include <string>
#include <vector>

#include "sim/simt/gpu_arch.hpp"
#include "sim/validate/golden.hpp"

namespace normsim::validate {

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
std::vector<AsicTrafficCase> asic_traffic_cases(const std::vector<GoldenCase>& cases, const simt::GpuArch& gpu);

/// The mapped paths behind the arch's L2: how many read within
/// kThresholds.asic_traffic_read_rel_error of ncu.
struct TrafficSummary {
  size_t cases = 0, read_within_5pct = 0;
  double read_mae = 0, read_max_rel_error = 0;
};
TrafficSummary summarize_traffic(const std::vector<AsicTrafficCase>& t);

}  // namespace normsim::validate
