// One row through the configured normalisation datapath, as the hardware's
// four stages: the lane array (input register + L accumulating lanes), the
// merge tree, the RSQRT unit, and the normalise/affine unit. Two arithmetics:
// fp32 everywhere (the GPU-like pipeline) or fixed point with a format per
// stage. Pure: no time, no SystemC; the ASIC modules call these same stage
// functions (so their outputs are the functional pipeline's, bit for bit).
//
// Lanes: element i goes to lane i mod L; lanes are combined by a binary tree
// (2k, 2k+1), then (4k, 4k+2), ... (adjacent order), or in a GPU's butterfly
// order (below). For Welford the tree is Chan's merge; for sums it is an
// adder tree. Two-pass runs the lanes and tree twice (it needs the mean
// before the second pass).
#pragma once

#include <array>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "sim/core/fixed_units.hpp"
#include "sim/core/fixed_wide.hpp"
#include "sim/core/lane_tree.hpp"
#include "sim/core/float_norm.hpp"
#include "sim/core/norm_types.hpp"
#include "sim/core/residual_add.hpp"

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
  MergeOrder merge_order = MergeOrder::adjacent;
  int merge_group = 32;    ///< lanes per butterfly group (a warp)
  /// Merge units the tree runs on (0: a dedicated tree of lanes - 1 nodes);
  /// structure only: the merges and their order are the same
  /// (sim/core/merge_schedule.hpp has the time, sim/area the area).
  int merge_units = 0;
  /// fp32: fuse the multiply-adds a GPU compiler contracts (Welford's
  /// M2 += d (x - mu'), Chan's mu_a + d (n_b/n) and d^2 (n_a n_b/n) + (M2_a + M2_b),
  /// the lanes' sums of squares a + d d, the single pass's E[x^2] - mu mu,
  /// y = x_hat gamma + beta), each one rounding, as the kernels' SASS shows.
  bool fma_contraction = false;
  /// Elements a lane takes at a time: element i goes to lane (i / V) mod L
  /// (a GPU thread's 16-byte vector: V = 4 fp32 or 8 bf16 values).
  int lane_vector = 1;
  /// fp32: the row splits into this many contiguous shares of whole vectors,
  /// each taken by L / lane_blocks lanes as above (a cluster of GPU blocks,
  /// each holding its share of the row); 1: the whole row over all lanes.
  int lane_blocks = 1;
  /// fp32: the RSQRT unit as a function of var + eps; empty: IEEE 1/sqrt. A
  /// GPU mapping plugs in the hardware rsqrtf (sim/simt's HardwareRsqrt).
  std::function<float(float)> fp32_rsqrt;
  /// Fixed point: keep every per-element operation on the 128-bit
  /// sign-magnitude Exact path even where the formats allow the machine-word
  /// path (identical results, about 10x slower; the reference in tests).
  bool exact_path_only = false;
  /// A residual workload's adder (residual_add.hpp): its arithmetic, the
  /// same wherever the sum is made; and whether this unit holds the adder
  /// and the dropout mask generator (a fused dataflow: area and energy).
  ResidualAddConfig residual_add;
  bool residual_adder = false;
  bool mask_generator = false;
  bool branch_grad_scaler = false;  ///< a Post-Norm backward with dropout: the adder lanes again, r at zero (branch_grad.hpp)
  /// Empty when valid, else the reason (names the offending parameter).
  std::string validate() const;
  /// Legal but noteworthy properties (e.g. eps below the rsqrt_in resolution).
  std::vector<std::string> warnings() const;
};

/// Resolution of the datapath's output register (0 for fp32).
double datapath_output_lsb(const DatapathConfig& cfg);

/// The fixed-point stages whose format the datapath of (kind, algorithm)
/// uses, in Stage order (beta only when the workload has one).
std::vector<Stage> stages_used(NormKind kind, VarianceAlgorithm algorithm, bool has_beta);

/// Per-row state carried from stage to stage (one row in flight per object).
struct RowState {
  // fixed point
  std::vector<Fx> xq;            ///< input register contents (Exact path)
  std::vector<int64_t> xraw;     ///< input register raw values (machine-word path)
  std::vector<int64_t> lane_n, lane_a, lane_b;  ///< machine-word lane states (count, mean/sum, M2/sumsq)
  mutable std::vector<int64_t> yraw;  ///< output register raw values (machine-word path)
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

  /// Which exact intermediate a per-element fixed-point loop uses: 64 or 128
  /// (a Wide machine integer, where wide_fits proves it exact) or 0 (Exact).
  int wide_bits(ElementLoop loop) const { return wide_bits_[static_cast<int>(loop)]; }

 private:
  void fixed_lanes(RowState& s, StageCounters& c, bool second_pass) const;
  void fixed_lanes_exact(RowState& s, StageCounters& c, bool second_pass) const;
  template <class I>
  void fixed_lanes_wide(RowState& s, StageCounters& c, bool second_pass) const;
  void fixed_normalize_exact(const RowState& s, std::span<double> y, StageCounters& c) const;
  template <class Ix, class Iy>
  void fixed_normalize_wide(const RowState& s, std::span<double> y, StageCounters& c) const;
  void fp32_lanes(const std::vector<float>& xf, RowState& s, bool second_pass) const;

  DatapathConfig cfg_;
  std::vector<float> gamma_, beta_;
  std::vector<Fx> gamma_q_, beta_q_, recip_table_, rsqrt_table_;
  std::vector<int64_t> gamma_raw_, beta_raw_, recip_raw_;  ///< the same, for the machine-word loops
  Fx recip_hidden_{};
  Fx eps_q_{};
  std::array<int, 3> wide_bits_{};  ///< per ElementLoop
  StageCounters param_counters_{};
  RowState scratch_;
  std::vector<int> strides_;  ///< merge_strides of the config
};

}  // namespace normsim::core
