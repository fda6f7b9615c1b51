// One row through the configured normalisation datapath, as the hardware's
// four stages: the lane array (input register + L accumulating lanes), the
// merge tree, the RSQRT unit, and the normalise/affine unit. Two arithmetics:
// fp32 everywhere (the GPU-like pipeline) or fixed point with a format per
// stage. Pure: no time, no SystemC; the ASIC modules call these same stage
// functions (so their outputs are the functional pipeline's, bit for bit).
//
// Lanes: element i goes to lane i mod L; lanes are combined by a binary tree
// (2k, 2k+1), then (4k, 4k+2), ... For Welford the tree is Chan's merge; for
// sums it is an adder tree. Two-pass runs the lanes and tree twice (it needs
// the mean before the second pass).
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

/// Per-row state carried from stage to stage (one row in flight per object).
struct RowState {
  // fixed point
  std::vector<Fx> xq;            ///< input register contents
  std::vector<FxWelford> wl;     ///< Welford lane states
  std::vector<Fx> acc1, acc2;    ///< sum / sum-of-squares lane accumulators
  Fx mean{}, var{}, rstd{};
  // fp32
  std::vector<float> xf;
  std::vector<WelfordState<float>> wlf;
  std::vector<float> facc1, facc2;
  float meanf = 0, varf = 0, rstdf = 0;
  bool clamped = false;
  RowStats stats() const;  ///< filled by rsqrt()
  bool fixed = false;
};

class NormDatapath {
 public:
  /// gamma has `hidden` entries; beta has `hidden` entries or is empty (no beta).
  NormDatapath(const DatapathConfig& cfg, std::span<const float> gamma, std::span<const float> beta);

  // The four hardware stages, in order.
  void lanes(std::span<const double> x, RowState& s, StageCounters& c) const;
  void merge(RowState& s, StageCounters& c) const;
  void rsqrt(RowState& s, StageCounters& c) const;
  void normalize(const RowState& s, std::span<double> y, StageCounters& c) const;

  /// All four stages on one row of stored input values; `y` receives the
  /// datapath's output values (before conversion to the output tensor type).
  RowStats process_row(std::span<const double> x, std::span<double> y, StageCounters& c);

  /// Overflows met while quantising gamma/beta (once, at construction).
  const StageCounters& parameter_counters() const { return param_counters_; }
  const DatapathConfig& config() const { return cfg_; }
  /// Resolution of the datapath's output register (0 for fp32).
  double output_lsb() const;

 private:
  void fixed_lanes(const std::vector<Fx>& xq, RowState& s, StageCounters& c, bool second_pass) const;
  void fp32_lanes(const std::vector<float>& xf, RowState& s, bool second_pass) const;

  DatapathConfig cfg_;
  std::vector<float> gamma_, beta_;
  std::vector<Fx> gamma_q_, beta_q_, recip_table_, rsqrt_table_;
  Fx recip_hidden_{};
  Fx eps_q_{};
  StageCounters param_counters_{};
  RowState scratch_;
};

}  // namespace normsim::core
