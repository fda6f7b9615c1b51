// What a normalisation job is, in numbers: which norm over which shape, the
// element types of the stored tensors and how their values are generated.
// The config layer reads it from a workload file (config::Workload adds the
// file's name and path); every model takes it as is.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "sim/core/counter_rng.hpp"
#include "sim/core/element_format.hpp"
#include "sim/core/input_source.hpp"
#include "sim/core/norm_types.hpp"

namespace normsim::core {

/// A stored tensor's element type (and, for int8, its scale).
struct TensorSpec {
  ElemType dtype = ElemType::fp32;
  Int8Scale scale{};  ///< int8 only
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

  int64_t elements() const { return rows * hidden; }
};

}  // namespace normsim::core
