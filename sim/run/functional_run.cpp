#include "sim/run/functional_run.hpp"

#include <algorithm>
#include <cmath>

#include "sim/config/config_error.hpp"
#include "sim/core/float_norm.hpp"
#include "sim/core/norm_datapath.hpp"

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
  if (auto why = c.validate(); !why.empty()) throw config::ConfigError(a.source + ": " + why);
  return c;
}

void generate_input_row(const config::Workload& w, int64_t r, std::vector<double>& x, uint64_t* saturations) {
  x.resize(static_cast<size_t>(w.hidden));
  const uint64_t base = static_cast<uint64_t>(r) * static_cast<uint64_t>(w.hidden);
  for (int64_t i = 0; i < w.hidden; ++i) {
    const double v = rng::sample(w.input_dist, w.seed, rng::kInput, base + static_cast<uint64_t>(i));
    if (w.input.dtype == core::ElemType::int8) {
      if (w.input_dist.kind == rng::Distribution::kInt8) {
        x[i] = v * w.input.scale.scale;  // the codes themselves
      } else {
        bool sat = false;
        x[i] = core::dequantize_int8(core::quantize_int8(v, w.input.scale, &sat), w.input.scale);
        if (sat && saturations) ++*saturations;
      }
    } else {
      x[i] = core::round_to_elem(v, w.input.dtype);
    }
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
  num.warnings = cfg.warnings();
  num.algorithm = cfg.algorithm;
  num.algorithm_name = w.norm == core::NormKind::rmsnorm ? "sum-of-squares" : std::string(core::to_string(cfg.algorithm));
  num.counters.add(dp.parameter_counters());
  const double out_lsb = dp.output_lsb();
  const std::string dtype_name(core::to_string(w.output.dtype));
  if (out_lsb > 0 && w.output.dtype == core::ElemType::fp32) {
    num.ulp_unit = "lsb of the output stage (" + a.formats[static_cast<int>(core::Stage::output)].describe() + ")";
  } else if (out_lsb > 0) {
    num.ulp_unit = "max(output-stage lsb, " + dtype_name + " ulp at |ref|)";
  } else {
    num.ulp_unit = dtype_name + " ulp at |ref|";
  }

  const size_t C = static_cast<size_t>(w.hidden);
  std::vector<double> x, y(C), ref(C), ulp(C);
  if (opt.keep_outputs) {
    res.y.reserve(static_cast<size_t>(w.elements()));
    res.mean.reserve(static_cast<size_t>(w.rows));
    res.rstd.reserve(static_cast<size_t>(w.rows));
  }
  for (int64_t r = 0; r < w.rows; ++r) {
    generate_input_row(w, r, x, &num.input_saturations);
    const core::RowStats s = dp.process_row(x, y, num.counters);
    // The stored output tensor: round the datapath's value to its element type.
    for (size_t i = 0; i < C; ++i) {
      if (w.output.dtype == core::ElemType::int8) {
        const int8_t code = core::quantize_int8(y[i], w.output.scale);
        y[i] = std::isfinite(y[i]) ? core::dequantize_int8(code, w.output.scale) : y[i];
      } else {
        y[i] = core::round_to_elem(y[i], w.output.dtype, w.output.scale);
      }
    }
    const core::RowStats rs = core::reference_stats(x, w.norm, w.eps);
    core::reference_output(x, rs, gamma, beta, ref);
    for (size_t i = 0; i < C; ++i)
      ulp[i] = std::max(out_lsb, core::ulp_of(w.output.dtype, ref[i], w.output.scale));
    num.output_error.add(y, ref, ulp);
    num.mean_max_abs_error = std::max(num.mean_max_abs_error, std::fabs(s.mean - rs.mean));
    const double rstd_rel = std::fabs(s.rstd - rs.rstd) / rs.rstd;
    num.rstd_max_rel_error = std::isfinite(rstd_rel) ? std::max(num.rstd_max_rel_error, rstd_rel) : rstd_rel;
    if (opt.keep_outputs) {
      res.y.insert(res.y.end(), y.begin(), y.end());
      res.mean.push_back(s.mean);
      res.rstd.push_back(s.rstd);
    }
  }
  return res;
}

}  // namespace normsim::run
