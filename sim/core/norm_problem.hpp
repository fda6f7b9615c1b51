// What a normalisation job is, in numbers: which norm over which shape, the
// element types of the stored tensors and how their values are generated.
// The config layer reads it from a workload file (config::Workload adds the
// file's name and path); every model takes it as is.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sim/core/counter_rng.hpp"
#include "sim/core/element_format.hpp"
#include "sim/core/enum_names.hpp"
#include "sim/core/input_source.hpp"
#include "sim/core/norm_types.hpp"

namespace normsim::core {

/// A stored tensor's element type (and, for int8, its scale).
struct TensorSpec {
  ElemType dtype = ElemType::fp32;
  Int8Scale scale{};  ///< int8 only
};

/// Where a residual sum sits in the block (docs/ASIC.md, "Fusion").
enum class Dataflow {
  post_norm,  ///< y = LN(x + F(x)): the sum is normalised; y is the residual stream
  pre_norm,   ///< the sum is the next block's residual stream (always written); LN(sum) feeds its sublayer
};

/// A residual stream added to the input before it is normalised: z =
/// dropout_p(x) + r, with x the sublayer's output (the branch) and r the
/// residual. z is stored in the input's type and is what the norm sees.
struct ResidualSpec {
  TensorSpec tensor;  ///< r's stored type (fp32, bf16 or fp16)
  rng::Distribution dist = rng::Distribution::normal(0.0, 1.0);
  std::shared_ptr<const InputSource> source;  ///< a .npy tensor instead of dist
  double dropout_p = 0;    ///< drop probability of the branch x (0: no dropout)
  bool write_sum = false;  ///< the workload keeps z (training saves it for the backward)
  Dataflow dataflow = Dataflow::post_norm;
  /// Rows of the whole tensor these rows are (a row sample, row_sample.hpp); null: row r is row r.
  std::shared_ptr<const std::vector<int64_t>> tensor_rows;
  /// z goes to DRAM: asked for, or the next block's residual stream.
  bool sum_written() const { return write_sum || dataflow == Dataflow::pre_norm; }
  int64_t tensor_row(int64_t r) const { return tensor_rows ? (*tensor_rows)[static_cast<size_t>(r)] : r; }
};

/// Which pass of the norm a workload is (docs/ASIC.md, "Backward").
enum class Pass { forward, backward };
inline constexpr EnumNames<Pass, 2> kPasses{{"forward", "backward"}};

/// The backward's upstream gradient dy, of the output's shape; mean and rstd
/// are the forward's of the same x (normsim's own forward computes them).
struct BackwardSpec {
  TensorSpec dy;  ///< dy's stored type (fp32, bf16 or fp16)
  rng::Distribution dist = rng::Distribution::normal(0.0, 1.0);
  std::shared_ptr<const InputSource> source;  ///< a .npy tensor instead of dist
};

struct NormProblem {
  NormKind norm = NormKind::layernorm;
  int64_t rows = 0;
  int64_t hidden = 0;
  double eps = 1e-5;
  uint64_t seed = 0;  ///< of the counter-based RNG that generates x, gamma and beta
  TensorSpec input, output;
  rng::Distribution input_dist = rng::Distribution::normal(0.0, 1.0);
  /// When set, the rows come from here (a .npy file, the LLM-activation
  /// model) instead of input_dist.
  std::shared_ptr<const InputSource> input_source;
  rng::Distribution gamma = rng::Distribution::constant(1.0);
  std::optional<rng::Distribution> beta;  ///< nullopt: no beta (RMSNorm default)
  std::optional<ResidualSpec> residual;   ///< nullopt: the input is normalised as it is
  Pass pass = Pass::forward;
  BackwardSpec backward;  ///< pass backward: dy

  bool is_backward() const { return pass == Pass::backward; }
  /// A Post-Norm backward with dropout writes the branch's gradient dz
  /// mask / (1 - p) beside dz (without dropout the two are the same tensor).
  bool writes_branch_grad() const { return is_backward() && residual && residual->dropout_p > 0; }
  /// A Post-Norm backward re-makes z from x and r (the forward did not keep
  /// it), else it reads z as the forward wrote it.
  bool backward_remakes_sum() const { return is_backward() && residual && !residual->sum_written(); }

  int64_t elements() const { return rows * hidden; }
};

}  // namespace normsim::core
