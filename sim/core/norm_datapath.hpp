// One row through the configured normalisation datapath: statistics (by the
// chosen variance algorithm), RSQRT, normalise + affine. Two arithmetics:
// fp32 everywhere (the GPU-like pipeline) or fixed point with a format per
// stage. Pure: no time, no SystemC; the ASIC modules and the RTL cross-check
// call the same units.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sim/core/fixed_units.hpp"
#include "sim/core/float_norm.hpp"
#include "sim/core/norm_types.hpp"

namespace normsim::core {

enum class Arithmetic { fp32, fixed };

struct DatapathConfig {
  NormKind kind = NormKind::layernorm;
  VarianceAlgorithm algorithm = VarianceAlgorithm::welford;
  int lanes = 1;               ///< Welford lanes / partial-sum lanes, a power of two
  bool variance_clamp = true;  ///< single-pass: var = max(var, 0)
  double eps = 1e-5;
  int64_t hidden = 0;  ///< row length C
  Arithmetic arithmetic = Arithmetic::fp32;
  StageFormats formats{};  ///< used when arithmetic == fixed
  RsqrtConfig rsqrt{};     ///< used when arithmetic == fixed
  /// Empty when valid, else the reason (names the offending parameter).
  std::string validate() const;
  /// Legal but noteworthy properties (e.g. eps below the rsqrt_in resolution).
  std::vector<std::string> warnings() const;
};

class NormDatapath {
 public:
  /// gamma has `hidden` entries; beta has `hidden` entries or is empty (no beta).
  NormDatapath(const DatapathConfig& cfg, std::span<const float> gamma, std::span<const float> beta);

  /// Normalises one row of stored input values into `y` (the datapath's output
  /// values, before conversion to the output tensor's element type).
  /// Counters accumulate into `c`.
  RowStats process_row(std::span<const double> x, std::span<double> y, StageCounters& c);

  /// Overflows met while quantising gamma/beta (once, at construction).
  const StageCounters& parameter_counters() const { return param_counters_; }
  const DatapathConfig& config() const { return cfg_; }
  /// Resolution of the datapath's output register (0 for fp32).
  double output_lsb() const;

 private:
  RowStats fixed_row(std::span<const double> x, std::span<double> y, StageCounters& c);
  RowStats fp32_row(std::span<const double> x, std::span<double> y, StageCounters& c);
  Fx fixed_variance(std::span<const Fx> xq, Fx& mean, StageCounters& c);

  DatapathConfig cfg_;
  std::vector<float> gamma_, beta_;
  // fixed point
  std::vector<Fx> gamma_q_, beta_q_, recip_table_, rsqrt_table_;
  Fx recip_hidden_{};
  Fx eps_q_{};
  StageCounters param_counters_{};
  // scratch
  std::vector<float> xf_, yf_;
  std::vector<Fx> xq_;
};

}  // namespace normsim::core
