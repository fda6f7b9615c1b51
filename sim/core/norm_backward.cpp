#include "sim/core/norm_backward.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/core/backward_units.hpp"
#include "sim/core/fixed_units.hpp"

namespace normsim::core {

void BackwardCounters::add(const BackwardCounters& o) {
  for (int i = 0; i < kBackwardStageCount; ++i) {
    quantizations[static_cast<size_t>(i)] += o.quantizations[static_cast<size_t>(i)];
    overflows[static_cast<size_t>(i)] += o.overflows[static_cast<size_t>(i)];
  }
}

std::vector<BackwardStage> backward_stages_used(NormKind kind) {
  using S = BackwardStage;
  if (kind == NormKind::rmsnorm) return {S::dy, S::g, S::xhat, S::sum_gxhat, S::row_mean, S::dx, S::dgamma};
  return {S::dy, S::g, S::xhat, S::sum_g, S::sum_gxhat, S::row_mean, S::dx, S::dgamma, S::dbeta};
}

std::string BackwardConfig::validate() const {
  if (hidden < 1) return "hidden " + std::to_string(hidden) + " must be >= 1";
  if (lanes < 1 || lanes > 4096 || !is_pow2(lanes))
    return "lanes " + std::to_string(lanes) + " must be a power of two in 1..4096";
  if (lane_vector < 1 || lane_vector > 64) return "lane_vector " + std::to_string(lane_vector) + " must be in 1..64";
  if (merge_group < 1 || merge_group > 4096 || !is_pow2(merge_group))
    return "merge_group " + std::to_string(merge_group) + " must be a power of two in 1..4096";
  if (param_grad.strided && param_grad.partials < 1)
    return "param_grad.partials " + std::to_string(param_grad.partials) + " must be >= 1";
  if (!param_grad.strided && param_grad.rows_per_partial < 0)
    return "param_grad.rows_per_partial " + std::to_string(param_grad.rows_per_partial) + " must be >= 0";
  if (param_grad.column_lanes < 1)
    return "param_grad.column_lanes " + std::to_string(param_grad.column_lanes) + " must be >= 1";
  if (arithmetic == Arithmetic::fixed) {
    if (lane_vector != 1) return "lane_vector applies to arithmetic fp32 only";
    for (BackwardStage s : backward_stages_used(kind))
      if (auto why = fmt(formats, s).validate(); !why.empty())
        return "backward.formats." + std::string(kBackwardStages.name(s)) + ": " + why;
  }
  return "";
}

void backward_reference_row(NormKind kind, std::span<const double> x, std::span<const double> dy,
                            std::span<const double> gamma, double mean, double rstd, std::span<double> dx,
                            std::span<double> dgamma, std::span<double> dbeta) {
  const size_t C = x.size();
  const bool rms = kind == NormKind::rmsnorm;
  double s1 = 0, s2 = 0;
  for (size_t i = 0; i < C; ++i) {
    const double xh = rms ? x[i] * rstd : (x[i] - mean) * rstd, g = dy[i] * gamma[i];
    s1 += g;
    s2 += g * xh;
    dgamma[i] += dy[i] * xh;
    if (!rms && !dbeta.empty()) dbeta[i] += dy[i];
  }
  const double n = static_cast<double>(C);
  for (size_t i = 0; i < C; ++i) {
    const double xh = rms ? x[i] * rstd : (x[i] - mean) * rstd, g = dy[i] * gamma[i];
    dx[i] = rstd / n * (n * g - (rms ? 0.0 : s1) - xh * s2);
  }
}

NormBackward::NormBackward(const BackwardConfig& cfg, std::span<const float> gamma, int64_t rows)
    : cfg_(cfg), gamma_(gamma.begin(), gamma.end()) {
  if (auto why = cfg.validate(); !why.empty()) throw std::invalid_argument("backward datapath: " + why);
  if (static_cast<int64_t>(gamma.size()) != cfg.hidden)
    throw std::invalid_argument("backward datapath: gamma has " + std::to_string(gamma.size()) + " entries, hidden is " +
                                std::to_string(cfg.hidden));
  const ParamGradOrder& o = cfg.param_grad;
  partials_ = o.strided ? o.partials
                        : (o.rows_per_partial > 0 ? std::max<int64_t>(1, (rows + o.rows_per_partial - 1) / o.rows_per_partial) : 1);
  strides_ = merge_strides(cfg.merge_order, cfg.lanes, cfg.merge_group);
  const size_t C = static_cast<size_t>(cfg.hidden), L = static_cast<size_t>(cfg.lanes);
  const size_t P = static_cast<size_t>(partials_) * C;
  if (cfg.arithmetic == Arithmetic::fp32) {
    pg_f_.assign(P, 0.0f);
    pb_f_.assign(P, 0.0f);
    lane1_f_.resize(L), lane2_f_.resize(L), xh_f_.resize(C), g_f_.resize(C);
    return;
  }
  StageCounters pc;  // gamma's overflows are the forward's (its own register)
  for (float v : gamma_) gamma_q_.push_back(core::quantize_stage(exact_from_double(v), Stage::gamma, cfg.forward, pc));
  recip_hidden_ = make_recip_table(cfg.hidden, fmt(cfg.forward, Stage::recip))[C];
  const Fx zero_g{0, fmt(cfg.formats, BackwardStage::dgamma).frac_bits}, zero_b{0, fmt(cfg.formats, BackwardStage::dbeta).frac_bits};
  pg_q_.assign(P, zero_g);
  pb_q_.assign(P, zero_b);
  lane_sums_.resize(L), tree_scratch_.resize(L), operands_.resize(C);
}

double NormBackward::dx_lsb() const {
  return cfg_.arithmetic == Arithmetic::fixed ? fmt(cfg_.formats, BackwardStage::dx).lsb() : 0.0;
}

void NormBackward::process_row(int64_t row, std::span<const double> x, std::span<const double> dy, double mean,
                               double rstd, std::span<double> dx, BackwardCounters& c) {
  const size_t C = static_cast<size_t>(cfg_.hidden);
  if (x.size() != C || dy.size() != C || dx.size() != C)
    throw std::invalid_argument("backward datapath: a row of " + std::to_string(x.size()) + " elements, hidden is " +
                                std::to_string(C));
  if (cfg_.arithmetic == Arithmetic::fp32)
    fp32_row(row, x, dy, static_cast<float>(mean), static_cast<float>(rstd), dx);
  else
    fixed_row(row, x, dy, mean, rstd, dx, c);
}

// gpu_ref's ln_backward per element: x_hat = (x - mu) rstd (FADD, FMUL),
// g = dy gamma, S1 += g, S2 = FFMA(x_hat, g, S2), dgamma = FFMA(dy, x_hat, .),
// dbeta += dy; dx = FFMA(-S2, x_hat, FFMA(C, g, -S1)) (rstd / C).
void NormBackward::fp32_row(int64_t row, std::span<const double> x, std::span<const double> dy, float mu, float rs,
                            std::span<double> dx) {
  const int64_t C = cfg_.hidden, V = cfg_.lane_vector, L = cfg_.lanes;
  const bool rms = cfg_.kind == NormKind::rmsnorm, fma = cfg_.fma_contraction;
  std::fill(lane1_f_.begin(), lane1_f_.end(), 0.0f);
  std::fill(lane2_f_.begin(), lane2_f_.end(), 0.0f);
  float* pg = pg_f_.data() + cfg_.param_grad.partial_of(row) * C;
  float* pb = pb_f_.data() + cfg_.param_grad.partial_of(row) * C;
  for (int64_t i = 0; i < C; ++i) {
    const size_t l = static_cast<size_t>((i / V) % L), k = static_cast<size_t>(i);
    const float d = static_cast<float>(dy[k]), xv = static_cast<float>(x[k]);
    const float xh = cfg_.xhat_stored ? xv : rms ? xv * rs : (xv - mu) * rs;
    const float g = d * gamma_[k];
    xh_f_[k] = xh;
    g_f_[k] = g;
    lane1_f_[l] += g;
    lane2_f_[l] = fma ? std::fmaf(xh, g, lane2_f_[l]) : lane2_f_[l] + xh * g;
    pg[k] = fma ? std::fmaf(d, xh, pg[k]) : pg[k] + d * xh;
    pb[k] += d;
  }
  auto add = [](float a, float b) { return a + b; };
  const float S1 = rms ? 0.0f : reduce_lanes(lane1_f_, cfg_.merge_order, strides_, add);
  const float S2 = reduce_lanes(lane2_f_, cfg_.merge_order, strides_, add);
  const float Cf = static_cast<float>(C), scale = rs / Cf;
  for (int64_t i = 0; i < C; ++i) {
    const size_t k = static_cast<size_t>(i);
    const float cg = rms ? Cf * g_f_[k] : (fma ? std::fmaf(Cf, g_f_[k], -S1) : Cf * g_f_[k] - S1);
    const float u = fma ? std::fmaf(-S2, xh_f_[k], cg) : cg - xh_f_[k] * S2;
    dx[k] = static_cast<double>(u * scale);
  }
}

// Fixed point: the units of backward_units.hpp, every register rounded into
// its stage's format; dx rounded once from the exact rstd (g - S1/C - x_hat S2/C).
void NormBackward::fixed_row(int64_t row, std::span<const double> x, std::span<const double> dy, double mean,
                             double rstd, std::span<double> dx, BackwardCounters& c) {
  using S = BackwardStage;
  const BackwardFormats& f = cfg_.formats;
  const StageFormats& fw = cfg_.forward;
  const int64_t C = cfg_.hidden, L = cfg_.lanes;
  const NormKind kind = cfg_.kind;
  const bool rms = kind == NormKind::rmsnorm;
  StageCounters forward_registers;  // x, mean and rstd are the forward's registers: exact round trips, not counted
  const Fx mu = rms ? Fx{0, 0} : quantize(mean, fmt(fw, Stage::mean));
  const Fx rs = quantize(rstd, fmt(fw, Stage::rsqrt_out));
  const RowSums zero{Fx{0, fmt(f, S::sum_g).frac_bits}, Fx{0, fmt(f, S::sum_gxhat).frac_bits}};
  std::fill(lane_sums_.begin(), lane_sums_.end(), zero);
  const int64_t partial = cfg_.param_grad.partial_of(row) * C;
  for (int64_t i = 0; i < C; ++i) {
    const size_t l = static_cast<size_t>(i % L), k = static_cast<size_t>(i);
    const Fx d = quantize_backward(exact_from_double(dy[k]), S::dy, f, c);
    // x as the input converter holds it: the forward's input register, or
    // (stored) the xhat register, its rounding counted as the backward's.
    const Fx xin = cfg_.xhat_stored ? quantize_backward(exact_from_double(x[k]), S::xhat, f, c)
                                    : core::quantize_stage(exact_from_double(x[k]), Stage::input, fw, forward_registers);
    const BackwardOperands o = backward_operands(kind, cfg_.xhat_stored, xin, mu, rs, d, gamma_q_[k], f, c);
    operands_[k] = o;
    lane_sums_[l] = row_sum_update(kind, lane_sums_[l], o, f, c);
    const size_t at = static_cast<size_t>(partial + i);
    const ParamGrads pgu = param_grad_update(kind, {pg_q_[at], pb_q_[at]}, d, o.xhat, f, c);
    pg_q_[at] = pgu.dgamma;
    pb_q_[at] = pgu.dbeta;
  }
  auto tree = [&](auto member, S st) {
    std::vector<Fx>& lanes = tree_scratch_;
    for (size_t l = 0; l < lane_sums_.size(); ++l) lanes[l] = lane_sums_[l].*member;
    return reduce_lanes(lanes, cfg_.merge_order, strides_, [&](const Fx& a, const Fx& b) { return backward_add(a, b, st, f, c); });
  };
  const Fx m1 = rms ? Fx{0, 0} : row_mean(tree(&RowSums::s1, S::sum_g), C, recip_hidden_, f, c);
  const Fx m2 = row_mean(tree(&RowSums::s2, S::sum_gxhat), C, recip_hidden_, f, c);
  for (int64_t i = 0; i < C; ++i) {
    const size_t k = static_cast<size_t>(i);
    dx[k] = to_double(dx_value(kind, operands_[k], rs, m1, m2, f, c));
  }
}

void NormBackward::finish(std::span<double> dgamma, std::span<double> dbeta, BackwardCounters& c) {
  const int64_t C = cfg_.hidden, P = partials_, Lc = cfg_.param_grad.column_lanes;
  const bool rms = cfg_.kind == NormKind::rmsnorm;
  if (static_cast<int64_t>(dgamma.size()) != C || (!rms && static_cast<int64_t>(dbeta.size()) != C))
    throw std::invalid_argument("backward datapath: dgamma/dbeta must hold hidden entries");
  for (int64_t col = 0; col < C; ++col) {
    if (cfg_.arithmetic == Arithmetic::fp32) {
      float G = 0.0f, B = 0.0f;
      for (int64_t lane = 0; lane < Lc; ++lane) {
        float gs = 0.0f, bs = 0.0f;
        for (int64_t k = lane; k < P; k += Lc) gs += pg_f_[static_cast<size_t>(k * C + col)], bs += pb_f_[static_cast<size_t>(k * C + col)];
        G += gs, B += bs;
      }
      dgamma[static_cast<size_t>(col)] = G;
      if (!rms) dbeta[static_cast<size_t>(col)] = B;
      continue;
    }
    using S = BackwardStage;
    const BackwardFormats& f = cfg_.formats;
    auto sum = [&](const std::vector<Fx>& parts, S st) {
      if (P == 1) return parts[static_cast<size_t>(col)];  // one accumulator: it is the result
      Fx total{0, fmt(f, st).frac_bits};
      for (int64_t lane = 0; lane < Lc; ++lane) {
        Fx s{0, fmt(f, st).frac_bits};
        for (int64_t k = lane; k < P; k += Lc) s = backward_add(s, parts[static_cast<size_t>(k * C + col)], st, f, c);
        total = backward_add(total, s, st, f, c);
      }
      return total;
    };
    dgamma[static_cast<size_t>(col)] = to_double(sum(pg_q_, S::dgamma));
    if (!rms) dbeta[static_cast<size_t>(col)] = to_double(sum(pb_q_, S::dbeta));
  }
}

}  // namespace normsim::core
