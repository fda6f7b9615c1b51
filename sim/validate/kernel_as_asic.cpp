#include "sim/validate/kernel_as_asic.hpp"

#include "sim/config/datapath_config.hpp"
#include "sim/config/embedded_configs.hpp"

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

simt::KernelInputs datapath_inputs(const GoldenCase& g, int64_t rows, const simt::AsicDatapath* m) {
  simt::KernelInputs in = simt::gpu_ref_inputs(rows, g.hidden, g.dtype, g.dist, g.dist_mean, g.dist_sigma, g.seed);
  if (m && m->residual_sum) {
    simt::add_residual(in, g.seed);
    for (size_t i = 0; i < in.x.size(); ++i) in.x[i] = in.x[i] + in.residual[i];
    if (in.bf16) in.x = simt::as_bf16(std::move(in.x));
  }
  if (m && m->params_in_input_type && in.bf16) {
    in.gamma = simt::as_bf16(std::move(in.gamma));
    in.beta = simt::as_bf16(std::move(in.beta));
  }
  return in;
}

}  // namespace normsim::validate
