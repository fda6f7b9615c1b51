#include "sim/validate/kernel_as_asic.hpp"

#include "sim/config/datapath_config.hpp"
#include "sim/config/embedded_configs.hpp"
#include "sim/core/residual_add.hpp"

namespace normsim::validate {

std::optional<simt::AsicDatapath> asic_datapath(simt::KernelId kernel, const GoldenCase& g) {
  const simt::KernelEntry& e = simt::kernel_entry(kernel);
  if (!e.asic) return std::nullopt;
  return e.asic(g.hidden, g.dtype, g.block);
}

const char* mapped_arch_path(bool block) {
  return block ? config::embedded::kGpuBlockArchPath : config::embedded::kGpuWarpArchPath;
}

const config::Arch& mapped_arch(bool block) {
  static const config::Arch warp = config::parse_arch_text(config::embedded::kGpuWarpArchYaml, mapped_arch_path(false));
  static const config::Arch blk = config::parse_arch_text(config::embedded::kGpuBlockArchYaml, mapped_arch_path(true));
  return block ? blk : warp;
}

core::DatapathConfig case_datapath(const GoldenCase& g, const config::Arch& arch, bool rms,
                                   std::optional<core::VarianceAlgorithm> algorithm) {
  config::Workload w;
  w.name = g.id;
  w.norm = rms ? core::NormKind::rmsnorm : core::NormKind::layernorm;
  w.rows = g.rows;
  w.hidden = g.hidden;
  w.eps = 1e-5;  // gpu_ref/kernels/common.cuh kEps (the fp32 datapath adds it as a float)
  return config::datapath_config(w, arch, algorithm);
}

core::BackwardConfig case_backward_config(const GoldenCase& g, const config::Arch& arch, const simt::AsicDatapath& m) {
  const core::DatapathConfig fwd = case_datapath(g, arch, m.rms, std::nullopt);
  core::BackwardConfig b;
  b.kind = fwd.kind;
  b.hidden = g.hidden;
  b.lanes = m.lanes ? m.lanes : fwd.lanes;
  b.lane_vector = m.lane_vector;
  b.merge_order = fwd.merge_order;
  b.merge_group = fwd.merge_group;
  b.arithmetic = fwd.arithmetic;
  b.fma_contraction = fwd.fma_contraction;
  b.forward = fwd.formats;
  b.param_grad = m.param_grad;
  if (b.param_grad.strided && b.param_grad.partials == 0) b.param_grad.partials = g.grid;
  return b;
}

simt::KernelInputs datapath_inputs(const GoldenCase& g, int64_t rows, const simt::AsicDatapath* m) {
  simt::KernelInputs in = simt::gpu_ref_inputs(rows, g.hidden, g.dtype, g.dist, g.dist_mean, g.dist_sigma, g.seed);
  if (m && m->residual_sum) {
    // z as the ASIC model's residual adder makes it (fp32, the kernel's mask): what the lanes normalise.
    simt::add_residual(in, g.seed);
    core::ResidualSpec spec;
    spec.dropout_p = g.dropout_p;
    const core::ResidualAddConfig fp32_adder;
    core::ResidualAddCounters counters;
    const size_t C = static_cast<size_t>(g.hidden);
    std::vector<double> x(C), r(C);
    for (int64_t row = 0; row < rows; ++row) {
      const size_t base = static_cast<size_t>(row) * C;
      for (size_t c = 0; c < C; ++c) x[c] = in.x[base + c], r[c] = in.residual[base + c];
      core::residual_add_row(spec, fp32_adder, g.seed, row, x, r, in.bf16 ? core::ElemType::bf16 : core::ElemType::fp32, counters);
      for (size_t c = 0; c < C; ++c) in.x[base + c] = static_cast<float>(x[c]);
    }
  }
  if (m && m->params_in_input_type && in.bf16) {
    in.gamma = simt::as_bf16(std::move(in.gamma));
    in.beta = simt::as_bf16(std::move(in.beta));
  }
  return in;
}

}  // namespace normsim::validate
