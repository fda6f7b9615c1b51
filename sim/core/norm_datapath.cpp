#include "sim/core/norm_datapath.hpp"

#include "sim/core/fixed_kernels.hpp"
#include "sim/core/lane_tree.hpp"
#include "sim/core/vector_build.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <type_traits>

namespace normsim::core {

std::string DatapathConfig::validate() const {
  if (lanes < 1 || lanes > 4096 || !is_pow2(lanes))
    return "lanes " + std::to_string(lanes) + " must be a power of two in 1..4096";
  if (hidden < 1) return "hidden " + std::to_string(hidden) + " must be >= 1";
  if (residual_add.fixed)
    if (auto why = residual_add.format.validate(); !why.empty()) return "fuse.add_format: " + why;
  if (lane_vector < 1 || lane_vector > 64) return "lane_vector " + std::to_string(lane_vector) + " must be in 1..64";
  if (arithmetic == Arithmetic::fixed && lane_vector != 1) return "lane_vector applies to arithmetic fp32 only";
  if (lane_blocks < 1 || !is_pow2(lane_blocks) || lane_blocks > lanes)
    return "lane_blocks " + std::to_string(lane_blocks) + " must be a power of two in 1..lanes (" +
           std::to_string(lanes) + ")";
  if (arithmetic == Arithmetic::fixed && lane_blocks != 1) return "lane_blocks applies to arithmetic fp32 only";
  if (merge_group < 1 || merge_group > 4096 || !is_pow2(merge_group))
    return "merge_group " + std::to_string(merge_group) + " must be a power of two in 1..4096";
  if (merge_units < 0 || merge_units > lanes - 1)
    return "merge_units " + std::to_string(merge_units) + " must be in 0..lanes - 1 (" + std::to_string(lanes - 1) + ")";
  if (arithmetic == Arithmetic::fixed && merge_order != MergeOrder::adjacent)
    return "merge_order butterfly needs arithmetic fp32 (the fixed-point tree is the RTL's adjacent one)";
  if (arithmetic == Arithmetic::fixed && fma_contraction)
    return "fma_contraction applies to arithmetic fp32 only";
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

RowStats RowState::stats() const {
  if (fixed) return RowStats{to_double(mean), to_double(var), to_double(rstd)};
  return RowStats{meanf, varf, rstdf};
}

NormDatapath::NormDatapath(const DatapathConfig& cfg, std::span<const float> gamma, std::span<const float> beta)
    : cfg_(cfg), gamma_(gamma.begin(), gamma.end()), beta_(beta.begin(), beta.end()) {
  if (auto why = cfg.validate(); !why.empty()) throw std::invalid_argument(why);
  if (static_cast<int64_t>(gamma.size()) != cfg.hidden ||
      (!beta.empty() && static_cast<int64_t>(beta.size()) != cfg.hidden))
    throw std::invalid_argument("gamma/beta length differs from hidden");
  strides_ = merge_strides(cfg.merge_order, cfg.lanes, cfg.merge_group, cfg.lane_blocks);
  if (cfg.arithmetic != Arithmetic::fixed) return;
  const auto& f = cfg.formats;
  for (float g : gamma_) gamma_q_.push_back(quantize_stage(exact_from_double(g), Stage::gamma, f, param_counters_));
  for (float b : beta_) beta_q_.push_back(quantize_stage(exact_from_double(b), Stage::beta, f, param_counters_));
  // A Welford lane sees at most ceil(C / L) elements.
  const int64_t per_lane = (cfg.hidden + cfg.lanes - 1) / cfg.lanes;
  recip_table_ = make_recip_table(std::max<int64_t>(per_lane, 2), fmt(f, Stage::recip));
  recip_hidden_ = make_recip_table(cfg.hidden, fmt(f, Stage::recip))[static_cast<size_t>(cfg.hidden)];
  rsqrt_table_ = make_rsqrt_rom(cfg.rsqrt);
  eps_q_ = quantize(cfg.eps, fmt(f, Stage::rsqrt_in));
  if (!cfg.exact_path_only) {
    for (ElementLoop l : {ElementLoop::lanes, ElementLoop::xhat, ElementLoop::affine})
      wide_bits_[static_cast<int>(l)] = wide_bits_for(f, cfg.kind, cfg.algorithm, l);
    // Raw copies for the machine-word loops (wide_fits bounds these formats to 62 bits).
    auto raws = [](const std::vector<Fx>& v) {
      std::vector<int64_t> r(v.size());
      for (size_t i = 0; i < v.size(); ++i) r[i] = static_cast<int64_t>(v[i].raw);
      return r;
    };
    if (wide_bits_[static_cast<int>(ElementLoop::affine)] != 0) {
      gamma_raw_ = raws(gamma_q_);
      beta_raw_ = raws(beta_q_);
    }
    if (wide_bits_[static_cast<int>(ElementLoop::lanes)] != 0) recip_raw_ = raws(recip_table_);
  }
}

double datapath_output_lsb(const DatapathConfig& cfg) {
  return cfg.arithmetic == Arithmetic::fixed ? fmt(cfg.formats, Stage::output).lsb() : 0.0;
}

std::vector<Stage> stages_used(NormKind kind, VarianceAlgorithm algorithm, bool has_beta) {
  std::vector<Stage> s = {Stage::input};
  if (kind == NormKind::rmsnorm) {
    s.push_back(Stage::sumsq);
  } else {
    switch (algorithm) {
      case VarianceAlgorithm::welford: s.insert(s.end(), {Stage::mean, Stage::m2}); break;
      case VarianceAlgorithm::single_pass: s.insert(s.end(), {Stage::sum, Stage::sumsq, Stage::mean}); break;
      case VarianceAlgorithm::two_pass: s.insert(s.end(), {Stage::sum, Stage::mean, Stage::m2}); break;
    }
  }
  s.insert(s.end(), {Stage::recip, Stage::variance, Stage::rsqrt_in, Stage::rsqrt_out, Stage::xhat, Stage::gamma});
  if (has_beta) s.push_back(Stage::beta);
  s.push_back(Stage::output);
  std::sort(s.begin(), s.end());
  return s;
}

double NormDatapath::output_lsb() const { return datapath_output_lsb(cfg_); }

RowStats NormDatapath::process_row(std::span<const double> x, std::span<double> y, StageCounters& c) {
  if (static_cast<int64_t>(x.size()) != cfg_.hidden || y.size() != x.size())
    throw std::invalid_argument("row length differs from hidden");
  lanes(x, scratch_, c);
  merge(scratch_, c);
  rsqrt(scratch_, c);
  normalize(scratch_, y, c);
  return scratch_.stats();
}

// --- lane array ---------------------------------------------------------------

void NormDatapath::fixed_lanes(RowState& s, StageCounters& c, bool second_pass) const {
  switch (wide_bits(ElementLoop::lanes)) {
    case 64: return fixed_lanes_wide<int64_t>(s, c, second_pass);
    case 128: return fixed_lanes_wide<i128>(s, c, second_pass);
    default: return fixed_lanes_exact(s, c, second_pass);
  }
}

// The reference: every operation on the 128-bit sign-magnitude Exact.
void NormDatapath::fixed_lanes_exact(RowState& s, StageCounters& c, bool second_pass) const {
  const auto& f = cfg_.formats;
  const std::vector<Fx>& xq = s.xq;
  const int L = cfg_.lanes;
  const int64_t C = cfg_.hidden;
  const Exact zero{};
  auto accumulate = [&](std::vector<Fx>& acc, Stage st, auto&& term) {
    acc.assign(static_cast<size_t>(L), quantize(zero, fmt(f, st)));
    for (int64_t i = 0; i < C; ++i) {
      Fx& a = acc[static_cast<size_t>(i % L)];
      a = quantize_stage(add(exact(a), term(i)), st, f, c);
    }
  };
  auto square = [&](int64_t i) { return mul(exact(xq[i]), exact(xq[i])); };
  if (cfg_.kind == NormKind::rmsnorm) {
    accumulate(s.acc2, Stage::sumsq, square);
    return;
  }
  switch (cfg_.algorithm) {
    case VarianceAlgorithm::welford:
      s.wl.assign(static_cast<size_t>(L), FxWelford{0, quantize(zero, fmt(f, Stage::mean)), quantize(zero, fmt(f, Stage::m2))});
      for (int64_t i = 0; i < C; ++i) {
        FxWelford& w = s.wl[static_cast<size_t>(i % L)];
        w = welford_update(w, xq[i], recip_table_[static_cast<size_t>(w.count + 1)], f, c);
      }
      return;
    case VarianceAlgorithm::single_pass:
      accumulate(s.acc1, Stage::sum, [&](int64_t i) { return exact(xq[i]); });
      accumulate(s.acc2, Stage::sumsq, square);
      return;
    case VarianceAlgorithm::two_pass:
      if (!second_pass) {
        accumulate(s.acc1, Stage::sum, [&](int64_t i) { return exact(xq[i]); });
      } else {
        const Exact me = exact(s.mean);
        accumulate(s.acc2, Stage::m2, [&](int64_t i) {
          const Exact d = sub(exact(xq[i]), me);
          return mul(d, d);
        });
      }
      return;
  }
}

// The same loops on machine integers (fixed_kernels.hpp); the lane states
// are handed to the merge tree as Fx, as the Exact path leaves them.
template <class I>
void NormDatapath::fixed_lanes_wide(RowState& s, StageCounters& c, bool second_pass) const {
  const auto& f = cfg_.formats;
  const FixedFormat& fx = fmt(f, Stage::input);
  const int L = cfg_.lanes;
  const int64_t C = cfg_.hidden;
  const std::span<const int64_t> x = s.xraw;
  auto count = [&](Stage st, int64_t n, uint64_t overflows) {
    c.quantizations[static_cast<int>(st)] += static_cast<uint64_t>(n);
    c.overflows[static_cast<int>(st)] += overflows;
  };
  // acc = q_st(acc + term) over all elements, lane i mod L; result to `lanes`.
  auto accumulate = [&](std::vector<Fx>& lanes, Stage st, int term_frac, auto&& term) {
    s.lane_a.assign(static_cast<size_t>(L), 0);
    count(st, C, kernels::accumulate_lanes<I>(C, L, s.lane_a, fmt(f, st), term_frac, term));
    lanes.resize(static_cast<size_t>(L));
    for (int l = 0; l < L; ++l) lanes[static_cast<size_t>(l)] = Fx{s.lane_a[static_cast<size_t>(l)], fmt(f, st).frac_bits};
  };
  auto square = [&](int64_t i) { return kernels::wmul(static_cast<I>(x[i]), static_cast<I>(x[i])); };
  const int fin = fx.frac_bits;
  if (cfg_.kind == NormKind::rmsnorm) {
    accumulate(s.acc2, Stage::sumsq, 2 * fin, square);
    return;
  }
  switch (cfg_.algorithm) {
    case VarianceAlgorithm::welford: {
      s.lane_n.assign(static_cast<size_t>(L), 0);
      s.lane_a.assign(static_cast<size_t>(L), 0);
      s.lane_b.assign(static_cast<size_t>(L), 0);
      uint64_t ovf_mean = 0, ovf_m2 = 0;
      kernels::welford_lanes<I>(x, fx, L, recip_raw_, fmt(f, Stage::recip), fmt(f, Stage::mean), fmt(f, Stage::m2),
                                s.lane_n, s.lane_a, s.lane_b, ovf_mean, ovf_m2);
      count(Stage::mean, C, ovf_mean);
      count(Stage::m2, C, ovf_m2);
      s.wl.resize(static_cast<size_t>(L));
      for (size_t l = 0; l < static_cast<size_t>(L); ++l)
        s.wl[l] = FxWelford{s.lane_n[l], Fx{s.lane_a[l], fmt(f, Stage::mean).frac_bits}, Fx{s.lane_b[l], fmt(f, Stage::m2).frac_bits}};
      return;
    }
    case VarianceAlgorithm::single_pass:
      accumulate(s.acc1, Stage::sum, fin, [&](int64_t i) { return static_cast<I>(x[i]); });
      accumulate(s.acc2, Stage::sumsq, 2 * fin, square);
      return;
    case VarianceAlgorithm::two_pass:
      if (!second_pass) {
        accumulate(s.acc1, Stage::sum, fin, [&](int64_t i) { return static_cast<I>(x[i]); });
      } else {
        // d = x - mean at max(fin, mean frac) fraction bits.
        const int Fd = std::max(fin, s.mean.frac);
        // d is a factor of a 64 x 64 multiply: 62 bits at most (wide_fits).
        const int64_t mean_aligned = static_cast<int64_t>(s.mean.raw) << (Fd - s.mean.frac);
        const int ax = Fd - fin;
        accumulate(s.acc2, Stage::m2, 2 * Fd, [&](int64_t i) {
          const int64_t d = (x[i] << ax) - mean_aligned;
          return kernels::wmul(static_cast<I>(d), static_cast<I>(d));
        });
      }
      return;
  }
}

void NormDatapath::fp32_lanes(const std::vector<float>& xf, RowState& s, bool second_pass) const {
  const int L = cfg_.lanes;
  const int64_t C = cfg_.hidden, V = cfg_.lane_vector;
  const bool fma = cfg_.fma_contraction;
  // Vector i / V of the row: with B lane blocks, block b takes vectors
  // [b P, b P + P) (P = ceil(vectors / B)) over its L / B lanes.
  const int64_t B = cfg_.lane_blocks, BL = L / B, P = ((C + V - 1) / V + B - 1) / B;
  auto lane = [&](int64_t i) {
    const int64_t v = i / V;
    return static_cast<size_t>(B == 1 ? v % L : (v / P) * BL + (v % P) % BL);
  };
  auto accumulate = [&](std::vector<float>& acc, auto&& term) {
    acc.assign(static_cast<size_t>(L), 0.0f);
    for (int64_t i = 0; i < C; ++i) {
      float& a = acc[lane(i)];
      a = a + term(i);
    }
  };
  // a + d d: one FFMA where the compiler fused it.
  auto accumulate_squares = [&](std::vector<float>& acc, auto&& d_of) {
    acc.assign(static_cast<size_t>(L), 0.0f);
    for (int64_t i = 0; i < C; ++i) {
      float& a = acc[lane(i)];
      const float d = d_of(i);
      a = fma ? std::fma(d, d, a) : a + d * d;
    }
  };
  auto x_of = [&](int64_t i) { return xf[i]; };
  if (cfg_.kind == NormKind::rmsnorm) {
    accumulate_squares(s.facc2, x_of);
    return;
  }
  switch (cfg_.algorithm) {
    case VarianceAlgorithm::welford:
      s.wlf.assign(static_cast<size_t>(L), WelfordState<float>{});
      for (int64_t i = 0; i < C; ++i) {
        auto& w = s.wlf[lane(i)];
        w = fma ? welford_update_fma(w, xf[i]) : welford_update(w, xf[i]);
      }
      return;
    case VarianceAlgorithm::single_pass:
      accumulate(s.facc1, x_of);
      accumulate_squares(s.facc2, x_of);
      return;
    case VarianceAlgorithm::two_pass:
      if (!second_pass) {
        accumulate(s.facc1, x_of);
      } else {
        const float m = s.meanf;
        accumulate_squares(s.facc2, [&](int64_t i) { return xf[i] - m; });
      }
      return;
  }
}

void NormDatapath::lanes(std::span<const double> x, RowState& s, StageCounters& c) const {
  s.fixed = cfg_.arithmetic == Arithmetic::fixed;
  s.clamped = false;
  const size_t C = static_cast<size_t>(cfg_.hidden);
  if (s.fixed) {
    // The input register: raw machine words where the format allows (every
    // machine-word loop needs them), Fx for any loop on the Exact path.
    const FixedFormat& in = fmt(cfg_.formats, Stage::input);
    uint64_t overflows = 0;
    QuantFlags fl;
    const bool any_exact = wide_bits(ElementLoop::lanes) == 0 || wide_bits(ElementLoop::xhat) == 0 ||
                           wide_bits(ElementLoop::affine) == 0;
    if (!cfg_.exact_path_only && in.total_bits <= 62) {
      s.xraw.resize(C);
      overflows = DoubleQuantizer(in).row(x.data(), C, s.xraw.data());
      if (any_exact) {
        s.xq.resize(C);
        for (size_t i = 0; i < C; ++i) s.xq[i] = Fx{s.xraw[i], in.frac_bits};
      }
    } else {
      s.xq.resize(C);
      for (size_t i = 0; i < C; ++i) {
        s.xq[i] = quantize(x[i], in, &fl);  // Inf saturates, NaN is 0: both counted
        overflows += fl.overflow;
      }
    }
    c.quantizations[static_cast<int>(Stage::input)] += C;
    c.overflows[static_cast<int>(Stage::input)] += overflows;
    fixed_lanes(s, c, false);
  } else {
    s.xf.resize(C);
    for (size_t i = 0; i < C; ++i) s.xf[i] = static_cast<float>(x[i]);
    fp32_lanes(s.xf, s, false);
  }
}

// --- merge tree ---------------------------------------------------------------

void NormDatapath::merge(RowState& s, StageCounters& c) const {
  const int64_t C = cfg_.hidden;
  const bool rms = cfg_.kind == NormKind::rmsnorm;
  if (s.fixed) {
    const auto& f = cfg_.formats;
    auto add_tree = [&](std::vector<Fx>& acc, Stage st) {
      return reduce_lanes(acc, cfg_.merge_order, strides_, [&](const Fx& a, const Fx& b) { return quantize_stage(add(exact(a), exact(b)), st, f, c); });
    };
    auto by_c = [&](const Fx& v) { return times_recip(exact(v), C, recip_hidden_); };
    if (rms) {
      s.mean = Fx{0, fmt(f, Stage::mean).frac_bits};
      s.var = quantize_stage(by_c(add_tree(s.acc2, Stage::sumsq)), Stage::variance, f, c);
      return;
    }
    switch (cfg_.algorithm) {
      case VarianceAlgorithm::welford: {
        const FxWelford w = reduce_lanes(s.wl, cfg_.merge_order, strides_, [&](const FxWelford& a, const FxWelford& b) { return chan_merge(a, b, f, c); });
        s.mean = w.mean;
        s.var = quantize_stage(by_c(w.m2), Stage::variance, f, c);
        return;
      }
      case VarianceAlgorithm::single_pass: {
        const Fx sum = add_tree(s.acc1, Stage::sum);
        const Fx ss = add_tree(s.acc2, Stage::sumsq);
        s.mean = quantize_stage(by_c(sum), Stage::mean, f, c);
        const Fx ex2 = quantize_stage(by_c(ss), Stage::variance, f, c);
        Exact var = sub(exact(ex2), mul(exact(s.mean), exact(s.mean)));
        if (var.neg && var.mag != 0 && cfg_.variance_clamp) {
          ++c.negative_variance_clamps;  // the single pass's clamp: var <- max(var, 0)
          s.clamped = true;
          var = Exact{};
        }
        s.var = quantize_stage(var, Stage::variance, f, c);
        return;
      }
      case VarianceAlgorithm::two_pass: {
        s.mean = quantize_stage(by_c(add_tree(s.acc1, Stage::sum)), Stage::mean, f, c);
        fixed_lanes(s, c, true);
        s.var = quantize_stage(by_c(add_tree(s.acc2, Stage::m2)), Stage::variance, f, c);
        return;
      }
    }
    return;
  }
  const float n = static_cast<float>(C);
  auto add_tree = [&](std::vector<float>& acc) {
    return reduce_lanes(acc, cfg_.merge_order, strides_, [](float a, float b) { return a + b; });
  };
  if (rms) {
    s.meanf = 0.0f;
    s.varf = add_tree(s.facc2) / n;
    return;
  }
  switch (cfg_.algorithm) {
    case VarianceAlgorithm::welford: {
      const bool fma = cfg_.fma_contraction;
      const auto w = reduce_lanes(s.wlf, cfg_.merge_order, strides_, [fma](const WelfordState<float>& a, const WelfordState<float>& b) {
        return fma ? chan_merge_fma(a, b) : chan_merge(a, b);
      });
      s.meanf = w.mean;
      s.varf = w.m2 / n;
      return;
    }
    case VarianceAlgorithm::single_pass: {
      s.meanf = add_tree(s.facc1) / n;
      const float ex2 = add_tree(s.facc2) / n;
      float var = cfg_.fma_contraction ? std::fma(-s.meanf, s.meanf, ex2) : ex2 - s.meanf * s.meanf;
      if (cfg_.variance_clamp && var < 0.0f) {
        ++c.negative_variance_clamps;
        s.clamped = true;
        var = 0.0f;
      }
      s.varf = var;
      return;
    }
    case VarianceAlgorithm::two_pass: {
      s.meanf = add_tree(s.facc1) / n;
      fp32_lanes(s.xf, s, true);
      s.varf = add_tree(s.facc2) / n;
      return;
    }
  }
}

// --- RSQRT unit ---------------------------------------------------------------

void NormDatapath::rsqrt(RowState& s, StageCounters& c) const {
  if (!s.fixed) {
    const float v = s.varf + static_cast<float>(cfg_.eps);
    s.rstdf = cfg_.fp32_rsqrt ? cfg_.fp32_rsqrt(v) : 1.0f / std::sqrt(v);  // IEEE unless a GPU's rsqrtf is plugged in
    return;
  }
  const auto& f = cfg_.formats;
  const Fx rin = quantize_stage(add(exact(s.var), exact(eps_q_)), Stage::rsqrt_in, f, c);
  QuantFlags fl;
  s.rstd = rsqrt_unit(rin, cfg_.rsqrt, rsqrt_table_, fmt(f, Stage::rsqrt_out), &fl);
  ++c.quantizations[static_cast<int>(Stage::rsqrt_out)];
  if (fl.overflow) ++c.overflows[static_cast<int>(Stage::rsqrt_out)];
}

// --- normalise / affine -------------------------------------------------------

void NormDatapath::normalize(const RowState& s, std::span<double> y, StageCounters& c) const {
  const size_t C = static_cast<size_t>(cfg_.hidden);
  if (!s.fixed) {
    for (size_t i = 0; i < C; ++i) {
      const float xhat = (s.xf[i] - s.meanf) * s.rstdf;
      float v;
      if (cfg_.fma_contraction && !beta_.empty()) {
        v = std::fma(xhat, gamma_[i], beta_[i]);  // FFMA(x_hat, gamma, beta)
      } else {
        v = xhat * gamma_[i];
        if (!beta_.empty()) v = v + beta_[i];
      }
      y[i] = v;
    }
    return;
  }
  // x_hat usually needs more than 64 bits ((x - mean) rstd), the affine
  // step rarely does: each expression takes the narrowest exact integer.
  const int xb = wide_bits(ElementLoop::xhat), yb = wide_bits(ElementLoop::affine);
  if (xb == 128 && yb == 64) return fixed_normalize_wide<i128, int64_t>(s, y, c);
  if (xb == 64 && yb == 64) return fixed_normalize_wide<int64_t, int64_t>(s, y, c);
  if (xb == 128 && yb == 128) return fixed_normalize_wide<i128, i128>(s, y, c);
  if (xb == 64 && yb == 128) return fixed_normalize_wide<int64_t, i128>(s, y, c);
  fixed_normalize_exact(s, y, c);  // either needs more than 128 bits: the reference path
}

void NormDatapath::fixed_normalize_exact(const RowState& s, std::span<double> y, StageCounters& c) const {
  const auto& f = cfg_.formats;
  const Fx zero_beta{0, fmt(f, Stage::beta).frac_bits};
  for (size_t i = 0; i < s.xq.size(); ++i) {
    const Fx b = beta_q_.empty() ? zero_beta : beta_q_[i];
    y[i] = to_double(normalize_affine(s.xq[i], s.mean, s.rstd, gamma_q_[i], b, f, c));
  }
}

namespace {
// The all-64-bit normalise loop (the common one), also built for a vector unit.
NORMSIM_ROW_CLONES void normalize_row_64(const int64_t* x, size_t n, int ax, int64_t mean_aligned, int64_t r,
                                         const kernels::Requant64& rq_xhat, const int64_t* gamma, const int64_t* beta, int sp,
                                         int sb, const kernels::Requant64& rq_out, int64_t* out, uint64_t& ovf_xhat,
                                         uint64_t& ovf_out) {
  if (beta) kernels::normalize_row_64<true>(x, n, ax, mean_aligned, r, rq_xhat, gamma, beta, sp, sb, rq_out, out, ovf_xhat, ovf_out);
  else kernels::normalize_row_64<false>(x, n, ax, mean_aligned, r, rq_xhat, gamma, beta, sp, sb, rq_out, out, ovf_xhat, ovf_out);
}
}  // namespace

template <class Ix, class Iy>
void NormDatapath::fixed_normalize_wide(const RowState& s, std::span<double> y, StageCounters& c) const {
  const auto& f = cfg_.formats;
  const FixedFormat& fout = fmt(f, Stage::output);
  s.yraw.resize(s.xraw.size());
  uint64_t ovf_xhat = 0, ovf_out = 0;
  if constexpr (std::is_same_v<Ix, int64_t> && std::is_same_v<Iy, int64_t>) {
    // normalize_row's alignments (x - mean at F1, x_hat gamma + beta at F2), the loop on plain words.
    const FixedFormat& fx = fmt(f, Stage::input);
    const Fx mean = cfg_.kind == NormKind::rmsnorm ? Fx{0, fx.frac_bits} : s.mean;
    const int F1 = std::max(fx.frac_bits, mean.frac);
    const int Fp = fmt(f, Stage::xhat).frac_bits + fmt(f, Stage::gamma).frac_bits;
    const int F2 = std::max(Fp, fmt(f, Stage::beta).frac_bits);
    normalize_row_64(s.xraw.data(), s.xraw.size(), F1 - fx.frac_bits, static_cast<int64_t>(mean.raw) << (F1 - mean.frac),
                     static_cast<int64_t>(s.rstd.raw), kernels::Requant64(F1 + s.rstd.frac, fmt(f, Stage::xhat)),
                     gamma_raw_.data(), beta_raw_.empty() ? nullptr : beta_raw_.data(), F2 - Fp, F2 - fmt(f, Stage::beta).frac_bits,
                     kernels::Requant64(F2, fout), s.yraw.data(), ovf_xhat, ovf_out);
  } else
    kernels::normalize_row<Ix, Iy>(s.xraw, fmt(f, Stage::input), s.mean, s.rstd, gamma_raw_, fmt(f, Stage::gamma),
                                   beta_raw_, fmt(f, Stage::beta), fmt(f, Stage::xhat), fout, s.yraw, ovf_xhat, ovf_out,
                                   cfg_.kind == NormKind::rmsnorm);
  const uint64_t n = s.xraw.size();
  c.quantizations[static_cast<int>(Stage::xhat)] += n;
  c.overflows[static_cast<int>(Stage::xhat)] += ovf_xhat;
  c.quantizations[static_cast<int>(Stage::output)] += n;
  c.overflows[static_cast<int>(Stage::output)] += ovf_out;
  // to_double: one rounding of the raw value (none below 2^53), then an
  // exact power-of-two scale.
  const double lsb = fout.lsb();
  for (size_t i = 0; i < n; ++i) y[i] = static_cast<double>(s.yraw[i]) * lsb;
}

}  // namespace normsim::core
