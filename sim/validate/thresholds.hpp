// Every pass/fail threshold of `normsim regress`, in one place (docs/FIDELITY.md
// says what each guards). The regression, its tests and its report read them
// from here.
#pragma once

namespace normsim::validate {

struct Thresholds {
  // The SIMT model against ncu, on all cases and on the held-out cases separately.
  double dram_read_max_rel_error = 0.05;  ///< |predicted / measured - 1| of DRAM bytes read, every case
  double duration_mae = 0.10;             ///< mean |relative error| of the duration
  double duration_corr = 0.98;            ///< Pearson r of predicted and measured durations
  // The ASIC model configured as the GPU.
  double asic_time_mae = 0.15;             ///< its time against ncu's duration on the bandwidth-bound cases
  double asic_traffic_read_rel_error = 0.05;  ///< "within" for the mapped paths' DRAM reads behind the L2 (counted, not gating)
};

inline constexpr Thresholds kThresholds{};

}  // namespace normsim::validate
