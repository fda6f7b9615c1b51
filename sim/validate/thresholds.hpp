// Every pass/fail threshold of `normsim regress`, in one place (docs/FIDELITY.md
// says what each guards). The regression, its report, its tests and
// tools/fidelity/fidelity_report.py (through `regress --json`) read them
// from here.
#pragma once

namespace normsim::validate {

struct Thresholds {
  // The SIMT model against ncu.
  /// |predicted / measured - 1| of DRAM bytes read, on every firm case (DRAM-read
  /// elasticity below simt::kCliffElasticity); cliff cases are held to their range.
  double dram_read_firm_max_rel_error = 0.05;
  /// Every training case's measured DRAM bytes read inside the prediction's
  /// range (the ranges are fitted to hold them), and at least this share of
  /// the held-out cases, which no range parameter saw.
  bool dram_read_inside_range = true;
  double held_out_range_coverage = 0.90;
  /// On the training and on the held-out cases separately.
  double duration_mae = 0.10;   ///< mean |relative error| of the duration
  double duration_corr = 0.98;  ///< Pearson r of predicted and measured durations
  /// No case's |relative error| of any counter more than this above its
  /// committed baseline (regress_baseline.json beside the golden index).
  double baseline_slack = 0.01;
  /// Targets reported, not gating: the held-out cases inside the other
  /// counters' ranges, and the median width of firm DRAM-read ranges.
  double range_coverage_target = 0.90;
  double firm_read_width_target = 0.03;
  // The SIMT model's warp states against ncu's Warp State Statistics
  // (ncu_profile.json), over every profiled case; reported per kernel.
  double warp_dominant_agreement = 0.85;  ///< cases whose largest warp state is ncu's (gating)
  double limiter_agreement = 0.90;        ///< cases whose limiter (simt::limiter) is ncu's (gating)
  double warp_share_mad = 0.10;           ///< each state's mean |predicted - measured| share (a target: reported, not gating)
  // The ASIC model configured as the GPU.
  double asic_time_mae = 0.15;             ///< its time against ncu's duration on the bandwidth-bound cases
  double asic_traffic_read_rel_error = 0.05;  ///< "within" for the mapped paths' DRAM reads behind the L2 (counted, not gating)
};

inline constexpr Thresholds kThresholds{};

}  // namespace normsim::validate
