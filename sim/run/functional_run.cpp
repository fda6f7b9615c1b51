#include "sim/run/functional_run.hpp"

#include <algorithm>
#include <cmath>

#include "sim/config/config_error.hpp"
#include "sim/core/float_norm.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/core/rng_batch.hpp"

namespace normsim::run {

core::DatapathConfig make_datapath_config(const config::Workload& w, const config::Arch& a, const RunOptions& opt) {
  core::DatapathConfig c;
  c.kind = w.norm;
  c.algorithm = opt.algorithm.value_or(a.algorithm);
  c.lanes = a.lanes;
  c.variance_clamp = a.variance_clamp;
  c.eps = w.eps;
  c.hidden = w.hidden;
  c.arithmetic = a.arithmetic;
  c.formats = a.formats;
  c.rsqrt = a.rsqrt;
  c.merge_order = a.merge_order;
  c.merge_group = a.merge_group;
  c.fma_contraction = a.fma_contraction;
  if (auto why = c.validate(); !why.empty()) throw config::ConfigError(a.source + ": " + why);
  return c;
}

void generate_input_row(const config::Workload& w, int64_t r, std::vector<double>& x, uint64_t* saturations) {
  x.resize(static_cast<size_t>(w.hidden));
  const uint64_t base = static_cast<uint64_t>(r) * static_cast<uint64_t>(w.hidden);
  rng::sample_batch(w.input_dist, w.seed, rng::kInput, base, x.size(), x.data());
  switch (w.input.dtype) {
    case core::ElemType::fp32:
      for (double& v : x) v = core::round_to_elem(v, core::ElemType::fp32);
      return;
    case core::ElemType::bf16:
      for (double& v : x) v = core::round_to_elem(v, core::ElemType::bf16);
      return;
    case core::ElemType::fp16:
      for (double& v : x) v = core::round_to_elem(v, core::ElemType::fp16);
      return;
    case core::ElemType::int8:
      if (w.input_dist.kind == rng::Distribution::kInt8) {
        for (double& v : x) v *= w.input.scale.scale;  // the codes themselves
        return;
      }
      for (double& v : x) {
        bool sat = false;
        v = core::dequantize_int8(core::quantize_int8(v, w.input.scale, &sat), w.input.scale);
        if (sat && saturations) ++*saturations;
      }
      return;
  }
}

void generate_params(const config::Workload& w, std::vector<float>& gamma, std::vector<float>& beta) {
  gamma.resize(static_cast<size_t>(w.hidden));
  for (int64_t i = 0; i < w.hidden; ++i)
    gamma[i] = static_cast<float>(rng::sample(w.gamma, w.seed, rng::kGamma, static_cast<uint64_t>(i)));
  beta.clear();
  if (!w.beta) return;
  beta.resize(static_cast<size_t>(w.hidden));
  for (int64_t i = 0; i < w.hidden; ++i)
    beta[i] = static_cast<float>(rng::sample(*w.beta, w.seed, rng::kBeta, static_cast<uint64_t>(i)));
}

RunResult run_functional(const config::Workload& w, const config::Arch& a, const RunOptions& opt) {
  RunResult res;
  res.workload = w;
  res.arch = a;
  const core::DatapathConfig cfg = make_datapath_config(w, a, opt);
  std::vector<float> gamma, beta;
  generate_params(w, gamma, beta);
  core::NormDatapath dp(cfg, gamma, beta);

  NumericsResult& num = res.numerics;
  init_numerics(num, w, cfg);
  num.counters.add(dp.parameter_counters());
  OutputChecker checker(w, a, dp.output_lsb(), gamma, beta, opt.keep_outputs, num);

  std::vector<double> x, y(static_cast<size_t>(w.hidden));
  for (int64_t r = 0; r < w.rows; ++r) {
    generate_input_row(w, r, x, &num.input_saturations);
    const core::RowStats s = dp.process_row(x, y, num.counters);
    checker.check_row(x, y, s);
  }
  res.y = std::move(checker.y);
  res.mean = std::move(checker.mean);
  res.rstd = std::move(checker.rstd);
  return res;
}

}  // namespace normsim::run
