// A workload: which normalisation, over which tensor shape and element
// types, on which generated inputs (schema documented in workloads/README.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/yaml_reader.hpp"

#include "sim/core/counter_rng.hpp"
#include "sim/core/element_format.hpp"
#include "sim/core/norm_types.hpp"

namespace normsim::config {

struct TensorSpec {
  core::ElemType dtype = core::ElemType::fp32;
  core::Int8Scale scale{};  ///< int8 only
};

struct Workload {
  std::string name;
  std::string source;  ///< file it came from ("<embedded default>" for the built-in one)
  core::NormKind norm = core::NormKind::layernorm;
  int64_t rows = 0;
  int64_t hidden = 0;
  double eps = 1e-5;
  uint64_t seed = 0;
  TensorSpec input, output;
  rng::Distribution input_dist = rng::Distribution::normal(0.0, 1.0);
  rng::Distribution gamma = rng::Distribution::constant(1.0);
  std::optional<rng::Distribution> beta;  ///< nullopt: no beta (RMSNorm default)

  int64_t elements() const { return rows * hidden; }
};

inline constexpr int64_t kMaxHidden = int64_t(1) << 24;
inline constexpr int64_t kMaxRows = int64_t(1) << 32;

Workload parse_workload_text(const std::string& text, const std::string& file, const std::vector<Override>& overrides = {});
Workload load_workload(const std::string& path, const std::vector<Override>& overrides = {});
/// The built-in default (workloads/llama2-7b.yaml, embedded at build time).
Workload default_workload(const std::vector<Override>& overrides = {});

}  // namespace normsim::config
