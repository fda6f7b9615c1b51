#include "sim/config/datapath_config.hpp"

#include "sim/config/config_error.hpp"

namespace normsim::config {

void check_fusion(const Workload& w, const Arch& a) {
  const std::string mode(to_string(a.fuse.mode));
  if (a.fuse.mode != FuseMode::none && !w.residual)
    throw ConfigError(format_config_error(a.source, 0, "fuse.mode",
                                          mode + " adds a residual stream, and workload " + w.name + " has none",
                                          "none, or a workload with a residual: section"));
  if (w.residual && w.residual->dropout_p > 0 && a.fuse.mode == FuseMode::residual)
    throw ConfigError(format_config_error(a.source, 0, "fuse.mode",
                                          "residual cannot apply workload " + w.name + "'s dropout (p = " +
                                              format_number(w.residual->dropout_p) + ")",
                                          "residual_dropout (the unit regenerates the mask), or none (a separate adder)"));
}

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
  // The residual adder: its arithmetic, and whether this unit holds it.
  check_fusion(w, a);
  c.residual_add = a.fuse.add;
  c.residual_adder = unit_adds_residual(w, a);
  c.mask_generator = w.residual && a.fuse.mode == FuseMode::residual_dropout;
  c.branch_grad_scaler = w.writes_branch_grad() && a.fuse.mode == FuseMode::residual_dropout;
  if (auto why = c.validate(); !why.empty()) throw ConfigError(a.source + ": " + why);
  return c;
}

core::BackwardConfig backward_config(const Workload& w, const Arch& a) {
  core::BackwardConfig b;
  b.kind = w.norm;
  b.hidden = w.hidden;
  b.lanes = a.lanes;
  b.merge_order = a.merge_order;
  b.merge_group = a.merge_group;
  b.arithmetic = a.arithmetic;
  b.fma_contraction = a.fma_contraction;
  b.forward = a.formats;
  if (a.arithmetic == core::Arithmetic::fixed) {
    if (!a.backward_formats)
      throw ConfigError(format_config_error(a.origin_of("backward_formats"), 0, "backward_formats",
                                            "missing: workload " + w.name + " is a backward pass and the arch is fixed point",
                                            "a format per backward stage: " + std::string(core::kBackwardStages.joined())));
    b.formats = *a.backward_formats;
  }
  if (a.asic) {
    b.xhat_stored = a.asic->backward.xhat == XhatSource::stored;
    if (a.asic->param_grad_accumulator.path == ParamGradPath::partials)
      b.param_grad = core::ParamGradOrder{.strided = false, .rows_per_partial = a.asic->param_grad_accumulator.partial_rows};
  }
  if (auto why = b.validate(); !why.empty()) throw ConfigError(a.source + ": " + why);
  return b;
}

}  // namespace normsim::config
