#include "sim/core/norm_datapath.hpp"

#include <bit>
#include <cstdio>
#include <cmath>
#include <stdexcept>

namespace normsim::core {

namespace {
const FixedFormat& fmt(const StageFormats& f, Stage s) { return f[static_cast<int>(s)]; }
bool is_pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }
}  // namespace

std::string DatapathConfig::validate() const {
  if (lanes < 1 || lanes > 4096 || !is_pow2(lanes))
    return "lanes " + std::to_string(lanes) + " must be a power of two in 1..4096";
  if (hidden < 1) return "hidden " + std::to_string(hidden) + " must be >= 1";
  if (!(eps > 0) || !std::isfinite(eps)) return "eps must be a positive finite number";
  if (arithmetic == Arithmetic::fixed) {
    for (int s = 0; s < kStageCount; ++s) {
      const std::string why = formats[s].validate();
      if (!why.empty()) return "formats." + std::string(to_string(static_cast<Stage>(s))) + ": " + why;
    }
    if (auto why = rsqrt.validate(); !why.empty()) return "rsqrt: " + why;
    if (fmt(formats, Stage::rsqrt_in).frac_bits < 1) return "formats.rsqrt_in: needs at least 1 fraction bit";
    if (fmt(formats, Stage::recip).frac_bits < 1) return "formats.recip: needs at least 1 fraction bit";
  }
  return {};
}

std::vector<std::string> DatapathConfig::warnings() const {
  std::vector<std::string> w;
  if (arithmetic != Arithmetic::fixed) return w;
  const FixedFormat& rin = fmt(formats, Stage::rsqrt_in);
  if (quantize(eps, rin).raw == 0) {
    char b[200];
    std::snprintf(b, sizeof b,
                  "formats.rsqrt_in: eps %g rounds to 0 with %d fraction bits (lsb %g): a zero-variance row "
                  "saturates rsqrt_out",
                  eps, rin.frac_bits, rin.lsb());
    w.emplace_back(b);
  }
  return w;
}

NormDatapath::NormDatapath(const DatapathConfig& cfg, std::span<const float> gamma, std::span<const float> beta)
    : cfg_(cfg), gamma_(gamma.begin(), gamma.end()), beta_(beta.begin(), beta.end()) {
  if (auto why = cfg.validate(); !why.empty()) throw std::invalid_argument(why);
  if (static_cast<int64_t>(gamma.size()) != cfg.hidden || (!beta.empty() && static_cast<int64_t>(beta.size()) != cfg.hidden))
    throw std::invalid_argument("gamma/beta length differs from hidden");
  xf_.resize(static_cast<size_t>(cfg.hidden));
  yf_.resize(static_cast<size_t>(cfg.hidden));
  if (cfg.arithmetic != Arithmetic::fixed) return;
  const auto& f = cfg.formats;
  xq_.resize(static_cast<size_t>(cfg.hidden));
  for (float g : gamma_) gamma_q_.push_back(quantize_stage(exact_from_double(g), Stage::gamma, f, param_counters_));
  for (float b : beta_) beta_q_.push_back(quantize_stage(exact_from_double(b), Stage::beta, f, param_counters_));
  // A Welford lane sees at most ceil(C / L) elements.
  const int64_t per_lane = (cfg.hidden + cfg.lanes - 1) / cfg.lanes;
  recip_table_ = make_recip_table(std::max<int64_t>(per_lane, 2), fmt(f, Stage::recip));
  recip_hidden_ = make_recip_table(cfg.hidden, fmt(f, Stage::recip))[static_cast<size_t>(cfg.hidden)];
  rsqrt_table_ = make_rsqrt_table(cfg.rsqrt);
  eps_q_ = quantize(cfg.eps, fmt(f, Stage::rsqrt_in));
}

double NormDatapath::output_lsb() const {
  return cfg_.arithmetic == Arithmetic::fixed ? fmt(cfg_.formats, Stage::output).lsb() : 0.0;
}

RowStats NormDatapath::process_row(std::span<const double> x, std::span<double> y, StageCounters& c) {
  if (static_cast<int64_t>(x.size()) != cfg_.hidden || y.size() != x.size())
    throw std::invalid_argument("row length differs from hidden");
  return cfg_.arithmetic == Arithmetic::fixed ? fixed_row(x, y, c) : fp32_row(x, y, c);
}

RowStats NormDatapath::fp32_row(std::span<const double> x, std::span<double> y, StageCounters& c) {
  for (size_t i = 0; i < x.size(); ++i) xf_[i] = static_cast<float>(x[i]);
  Fp32Options o;
  o.kind = cfg_.kind;
  o.algorithm = cfg_.algorithm;
  o.lanes = cfg_.lanes;
  o.variance_clamp = cfg_.variance_clamp;
  o.eps = static_cast<float>(cfg_.eps);
  bool clamped = false;
  const RowStats s = fp32_stats(xf_, o, &clamped);
  if (clamped) ++c.negative_variance_clamps;
  fp32_normalize(xf_, static_cast<float>(s.mean), static_cast<float>(s.rstd), gamma_, beta_, yf_);
  for (size_t i = 0; i < x.size(); ++i) y[i] = yf_[i];
  return s;
}

Fx NormDatapath::fixed_variance(std::span<const Fx> xq, Fx& mean, StageCounters& c) {
  const auto& f = cfg_.formats;
  const int L = cfg_.lanes;
  const int64_t C = cfg_.hidden;
  const Exact zero{};
  // Lane partial accumulators merged by an adder tree (pairs 2k, 2k+1, ...),
  // each add rounded into its accumulator's format.
  auto lane_tree_sum = [&](auto&& term, Stage acc) {
    std::vector<Fx> lane(static_cast<size_t>(L), quantize(zero, fmt(f, acc)));
    for (int64_t i = 0; i < C; ++i) {
      Fx& a = lane[static_cast<size_t>(i % L)];
      a = quantize_stage(add(exact(a), term(i)), acc, f, c);
    }
    for (int stride = 1; stride < L; stride *= 2)
      for (int k = 0; k + stride < L; k += 2 * stride)
        lane[k] = quantize_stage(add(exact(lane[k]), exact(lane[k + stride])), acc, f, c);
    return lane[0];
  };
  auto by_c = [&](const Fx& v) { return times_recip(exact(v), C, recip_hidden_); };

  if (cfg_.kind == NormKind::rmsnorm) {
    mean = Fx{0, fmt(f, Stage::mean).frac_bits};
    const Fx ss = lane_tree_sum([&](int64_t i) { return mul(exact(xq[i]), exact(xq[i])); }, Stage::sumsq);
    return quantize_stage(by_c(ss), Stage::variance, f, c);
  }
  switch (cfg_.algorithm) {
    case VarianceAlgorithm::welford: {
      std::vector<FxWelford> lane(static_cast<size_t>(L));
      for (auto& s : lane) {
        s.mean = quantize(zero, fmt(f, Stage::mean));
        s.m2 = quantize(zero, fmt(f, Stage::m2));
      }
      for (int64_t i = 0; i < C; ++i) {
        FxWelford& s = lane[static_cast<size_t>(i % L)];
        s = welford_update(s, xq[i], recip_table_[static_cast<size_t>(s.count + 1)], f, c);
      }
      for (int stride = 1; stride < L; stride *= 2)
        for (int k = 0; k + stride < L; k += 2 * stride) lane[k] = chan_merge(lane[k], lane[k + stride], f, c);
      mean = lane[0].mean;
      return quantize_stage(by_c(lane[0].m2), Stage::variance, f, c);
    }
    case VarianceAlgorithm::two_pass: {
      const Fx sum = lane_tree_sum([&](int64_t i) { return exact(xq[i]); }, Stage::sum);
      mean = quantize_stage(by_c(sum), Stage::mean, f, c);
      const Exact me = exact(mean);
      const Fx m2 = lane_tree_sum(
          [&](int64_t i) {
            const Exact d = sub(exact(xq[i]), me);
            return mul(d, d);
          },
          Stage::m2);
      return quantize_stage(by_c(m2), Stage::variance, f, c);
    }
    case VarianceAlgorithm::single_pass: {
      const Fx sum = lane_tree_sum([&](int64_t i) { return exact(xq[i]); }, Stage::sum);
      const Fx ss = lane_tree_sum([&](int64_t i) { return mul(exact(xq[i]), exact(xq[i])); }, Stage::sumsq);
      mean = quantize_stage(by_c(sum), Stage::mean, f, c);
      const Fx ex2 = quantize_stage(by_c(ss), Stage::variance, f, c);
      Exact var = sub(exact(ex2), mul(exact(mean), exact(mean)));
      if (var.neg && var.mag != 0 && cfg_.variance_clamp) {
        ++c.negative_variance_clamps;  // seed 001 section 39: var <- max(var, 0)
        var = Exact{};
      }
      return quantize_stage(var, Stage::variance, f, c);
    }
  }
  return Fx{};
}

RowStats NormDatapath::fixed_row(std::span<const double> x, std::span<double> y, StageCounters& c) {
  const auto& f = cfg_.formats;
  for (size_t i = 0; i < x.size(); ++i) xq_[i] = quantize_stage(exact_from_double(x[i]), Stage::input, f, c);
  Fx mean;
  const Fx var = fixed_variance(xq_, mean, c);
  const Fx rin = quantize_stage(add(exact(var), exact(eps_q_)), Stage::rsqrt_in, f, c);
  QuantFlags fl;
  const Fx rstd = rsqrt_nr(rin, cfg_.rsqrt, rsqrt_table_, fmt(f, Stage::rsqrt_out), &fl);
  ++c.quantizations[static_cast<int>(Stage::rsqrt_out)];
  if (fl.overflow) ++c.overflows[static_cast<int>(Stage::rsqrt_out)];
  const Fx zero_beta{0, fmt(f, Stage::beta).frac_bits};
  for (size_t i = 0; i < x.size(); ++i) {
    const Fx b = beta_q_.empty() ? zero_beta : beta_q_[i];
    y[i] = to_double(normalize_affine(xq_[i], mean, rstd, gamma_q_[i], b, f, c));
  }
  return RowStats{to_double(mean), to_double(var), to_double(rstd)};
}

}  // namespace normsim::core
