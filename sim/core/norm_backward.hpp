// The backward pass of LayerNorm/RMSNorm, one row at a time, as a datapath:
// with g = dy gamma and x_hat = (x - mean) rstd (RMSNorm: x rstd),
//   LayerNorm: dx = rstd / C (C g - S1 - x_hat S2),  S1 = sum g, S2 = sum g x_hat
//   RMSNorm:   dx = rstd / C (C g - x_hat S2)
// and the parameter gradients, reduced across rows rather than along them:
//   dgamma = sum over rows of dy x_hat,  dbeta = sum over rows of dy.
// The two row sums are taken by the same lanes and merge tree as the
// forward's (element i to lane (i / V) mod L, lane_tree.hpp), as plain sums.
//
// Two arithmetics, as the forward's: fp32 in a GPU kernel's order of
// operations (gpu_ref's ln_backward: the lanes' sums, the shuffle tree, the
// fused multiply-adds of its SASS), so that the datapath configured as
// bwd_atomic / bwd_twolevel reproduces them bit for bit; or fixed point with
// a format per backward stage (BackwardStage), every quantisation counted.
// The fp64 reference (backward_reference_row) is the yardstick of both.
//
// The statistics are the forward's, as it saved them: mean and rstd per row,
// in the forward's formats (fixed) or fp32.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/core/backward_units.hpp"
#include "sim/core/fixed_stage.hpp"
#include "sim/core/lane_tree.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/core/norm_types.hpp"

namespace normsim::core {

/// How dgamma/dbeta reduce across rows: rows are dealt to `partials`
/// accumulators (contiguous blocks of `rows_per_partial` rows -- a unit
/// that writes or read-modify-writes its accumulator every so many rows --,
/// or row r to partial r mod `partials`: a GPU's persistent blocks), each
/// summing its rows in order; then partial k goes to column lane
/// k mod `column_lanes`, each lane sums its partials in order, and the lanes'
/// sums are added in lane order (bwd_column_sum: 32 lanes; a unit: 1).
struct ParamGradOrder {
  bool strided = false;
  int64_t partials = 1;          ///< strided: the accumulators
  int64_t rows_per_partial = 0;  ///< contiguous: rows an accumulator sums (0: every row, one accumulator)
  int column_lanes = 1;
  /// The partial row r adds into.
  int64_t partial_of(int64_t row) const {
    if (strided) return row % partials;
    return rows_per_partial > 0 ? row / rows_per_partial : 0;
  }
};

struct BackwardConfig {
  NormKind kind = NormKind::layernorm;
  int64_t hidden = 0;
  int lanes = 1;        ///< row-sum lanes, a power of two
  int lane_vector = 1;  ///< fp32: elements a lane takes at a time (a thread's 16-byte vector)
  MergeOrder merge_order = MergeOrder::adjacent;
  int merge_group = 32;
  Arithmetic arithmetic = Arithmetic::fp32;
  /// fp32: the multiply-adds the kernel's SASS fuses (S2 += x_hat g,
  /// dgamma += dy x_hat, and dx's two), each one rounding.
  bool fma_contraction = false;
  BackwardFormats formats{};   ///< fixed: the backward's stages
  StageFormats forward{};      ///< fixed: x (input), gamma, mean, rstd (rsqrt_out) and 1/C (recip) as the forward holds them
  ParamGradOrder param_grad{};
  /// The x operand of process_row is x_hat as the forward stored it (its
  /// input register is the xhat stage); mean is then unused.
  bool xhat_stored = false;
  std::string validate() const;
};

/// One row's fp64 backward and the row's contribution to dgamma/dbeta
/// (added into `dgamma`/`dbeta`, C entries each; dbeta may be empty).
void backward_reference_row(NormKind kind, std::span<const double> x, std::span<const double> dy,
                            std::span<const double> gamma, double mean, double rstd, std::span<double> dx,
                            std::span<double> dgamma, std::span<double> dbeta);

class NormBackward {
 public:
  /// `gamma` has `hidden` entries; `rows` is the number of rows the run will
  /// feed (it sizes the parameter-gradient partials).
  NormBackward(const BackwardConfig& cfg, std::span<const float> gamma, int64_t rows);

  /// One row (row index `row`, for the parameter-gradient order): x and dy
  /// as stored, the forward's mean and rstd; `dx` receives the datapath's
  /// output values (before conversion to the output tensor type).
  void process_row(int64_t row, std::span<const double> x, std::span<const double> dy, double mean, double rstd,
                   std::span<double> dx, BackwardCounters& c);

  /// dgamma and dbeta after every row: the partials' reduction.
  void finish(std::span<double> dgamma, std::span<double> dbeta, BackwardCounters& c);

  const BackwardConfig& config() const { return cfg_; }
  /// Resolution of the dx register (0 for fp32).
  double dx_lsb() const;

 private:
  void fp32_row(int64_t row, std::span<const double> x, std::span<const double> dy, float mean, float rstd,
                std::span<double> dx);
  void fixed_row(int64_t row, std::span<const double> x, std::span<const double> dy, double mean, double rstd,
                 std::span<double> dx, BackwardCounters& c);

  BackwardConfig cfg_;
  std::vector<float> gamma_;
  std::vector<Fx> gamma_q_;
  Fx recip_hidden_{};
  std::vector<int> strides_;
  int64_t partials_ = 1;
  // Parameter-gradient partials, [partial][column].
  std::vector<float> pg_f_, pb_f_;
  std::vector<Fx> pg_q_, pb_q_;
  // Per-row scratch.
  std::vector<float> lane1_f_, lane2_f_, xh_f_, g_f_;
  std::vector<RowSums> lane_sums_;
  std::vector<Fx> tree_scratch_;
  std::vector<BackwardOperands> operands_;
};

}  // namespace normsim::core
