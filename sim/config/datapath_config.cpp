#include "sim/config/datapath_config.hpp"

#include "sim/config/config_error.hpp"

namespace normsim::config {

core::DatapathConfig datapath_config(const Workload& w, const Arch& a, std::optional<core::VarianceAlgorithm> algorithm) {
  core::DatapathConfig c;
  c.kind = w.norm;
  c.algorithm = algorithm.value_or(a.algorithm);
  c.lanes = a.lanes;
  c.variance_clamp = a.variance_clamp;
  c.eps = w.eps;
  c.hidden = w.hidden;
  c.arithmetic = a.arithmetic;
  c.formats = a.formats;
  c.rsqrt = a.rsqrt;
  c.merge_order = a.merge_order;
  c.merge_group = a.merge_group;
  c.merge_units = a.merge.units;
  c.fma_contraction = a.fma_contraction;
  if (auto why = c.validate(); !why.empty()) throw ConfigError(a.source + ": " + why);
  return c;
}

}  // namespace normsim::config
