#include "sim/validate/simt_regress.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

#include "sim/core/npy.hpp"
#include "sim/simt/kernels/kernel_registry.hpp"
#include "sim/simt/limiter.hpp"
#include "sim/validate/thresholds.hpp"

namespace normsim::validate {

namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = a.size();
  if (n < 2) return 0;
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n, mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

CounterSummary summarise(const std::vector<const CaseResult*>& cs, double CaseResult::*err, double (*pred)(const CaseResult&),
                         double (*meas)(const CaseResult&)) {
  CounterSummary s;
  std::vector<double> p, m;
  for (const CaseResult* c : cs) {
    const double e = std::fabs(c->*err);
    if (!std::isfinite(e)) continue;  // a counter measured as 0 has no relative error
    ++s.n;
    s.mae += e;
    s.max_err = std::max(s.max_err, e);
    p.push_back(pred(*c));
    m.push_back(meas(*c));
  }
  if (s.n) s.mae /= static_cast<double>(s.n);
  s.corr = pearson(p, m);
  return s;
}

RangeSummary range_summary(const std::vector<const CaseResult*>& cs, bool CaseResult::*inside,
                           const simt::Range simt::PredictionRanges::*range, double simt::Prediction::*value) {
  RangeSummary s;
  std::vector<double> widths;
  for (const CaseResult* c : cs) {
    ++s.n;
    s.inside += c->*inside;
    widths.push_back((c->pred.ranges.*range).relative_width(c->pred.*value));
  }
  if (!widths.empty()) {
    std::sort(widths.begin(), widths.end());
    const size_t m = widths.size() / 2;
    s.median_width = widths.size() % 2 ? widths[m] : (widths[m - 1] + widths[m]) / 2;
  }
  return s;
}

Summary summary(const std::vector<const CaseResult*>& cs) {
  Summary s;
  s.cases = cs.size();
  s.dram_read_range = range_summary(cs, &CaseResult::dram_read_in_range, &simt::PredictionRanges::dram_bytes_read,
                                    &simt::Prediction::dram_bytes_read);
  s.dram_write_range = range_summary(cs, &CaseResult::dram_write_in_range, &simt::PredictionRanges::dram_bytes_written,
                                     &simt::Prediction::dram_bytes_written);
  s.l2_range = range_summary(cs, &CaseResult::l2_in_range, &simt::PredictionRanges::l2_bytes, &simt::Prediction::l2_bytes);
  s.duration_range = range_summary(cs, &CaseResult::duration_in_range, &simt::PredictionRanges::duration_us,
                                   &simt::Prediction::duration_us);
  for (const CaseResult* c : cs) {
    s.outputs_compared += c->outputs_compared;
    s.bit_exact += c->bit_exact;
  }
  s.dram_read = summarise(cs, &CaseResult::dram_read_err, [](const CaseResult& c) { return c.pred.dram_bytes_read; },
                          [](const CaseResult& c) { return c.golden.dram_bytes_read; });
  s.dram_write = summarise(cs, &CaseResult::dram_write_err, [](const CaseResult& c) { return c.pred.dram_bytes_written; },
                           [](const CaseResult& c) { return c.golden.dram_bytes_written; });
  s.l2 = summarise(cs, &CaseResult::l2_err, [](const CaseResult& c) { return c.pred.l2_bytes; },
                   [](const CaseResult& c) { return c.golden.l2_bytes; });
  s.duration = summarise(cs, &CaseResult::duration_err, [](const CaseResult& c) { return c.pred.duration_us; },
                         [](const CaseResult& c) { return c.golden.duration_us; });
  for (const CaseResult* c : cs) {
    if (!c->warps_compared) continue;
    WarpStateSummary& w = s.warps;
    ++w.n;
    w.dominant_agree += c->dominant_agrees;
    w.limiter_agree += c->limiter_agrees;
    const simt::WarpProfile &p = c->pred.warps, &m = c->ncu_warps;
    for (size_t i = 0; i < simt::kWarpStates; ++i) w.share_mad[i] += std::fabs(p.share[i] - m.share[i]);
    w.occupancy_mad += std::fabs(p.achieved_occupancy - m.achieved_occupancy);
    w.issue_active_mad += std::fabs(p.issue_active - m.issue_active);
    w.dram_throughput_mad += std::fabs(p.dram_throughput - m.dram_throughput);
  }
  if (const double n = static_cast<double>(s.warps.n); n > 0) {
    for (double& v : s.warps.share_mad) v /= n;
    s.warps.occupancy_mad /= n;
    s.warps.issue_active_mad /= n;
    s.warps.dram_throughput_mad /= n;
  }
  return s;
}

// A case's emulated rows: a long-row case keeps its first rows only (the
// counter RNG gives them the same inputs); the backward's dgamma/dbeta sum
// every row, so it emulates them all and compares dx's first rows.
bool is_backward(const GoldenCase& g) { return g.outputs.count("dx") > 0; }
int64_t emulated_rows(const GoldenCase& g) { return is_backward(g) ? g.rows : g.output_rows; }

// What a case's inputs are drawn from: cases that share it (kernels run on
// the same tensors) share one draw.
using InputKey = std::tuple<int64_t, int64_t, int, std::string, double, double, uint64_t>;
InputKey input_key(const GoldenCase& g) {
  return {emulated_rows(g), g.hidden, static_cast<int>(g.dtype), g.dist, g.dist_mean, g.dist_sigma, g.seed};
}

// The draws of one input key: x, gamma and beta at once; r and dy when a
// case first needs them, then kept (a kernel reads only the tensors it takes).
struct SharedInputs {
  simt::KernelInputs in;
  explicit SharedInputs(const GoldenCase& g)
      : in(simt::gpu_ref_inputs(emulated_rows(g), g.hidden, g.dtype, g.dist, g.dist_mean, g.dist_sigma, g.seed)) {}
  const simt::KernelInputs& for_case(const GoldenCase& g) {
    if (normref::kernel_info(g.kernel).kind == normref::KernelKind::fused_residual && in.residual.empty())
      simt::add_residual(in, g.seed);
    if (is_backward(g) && in.grad_out.empty()) simt::add_grad_out(in, g.seed);
    in.dropout_p = g.dropout_p;
    return in;
  }
};

void compare_outputs(CaseResult& c, const std::string& dir, const simt::HardwareRsqrt& rsqrt, const simt::GpuArch& gpu,
                     const simt::KernelInputs& in) {
  const GoldenCase& g = c.golden;
  c.outputs_compared = true;
  try {
    const bool backward = is_backward(g);
    auto path = [&](const std::string& key) { return (std::filesystem::path(dir) / g.outputs.at(key)).string(); };
    const int64_t rows = emulated_rows(g);
    const simt::KernelOutputs out = simt::emulate(
        rows == g.rows ? c.pred.plan : simt::plan_launch(g.kernel, rows, g.hidden, g.dtype, g.block, gpu), in, rsqrt);
    uint64_t differing = 0;
    double max_ulp = 0;
    auto cmp = [&](float want, float got, double ulp_scale) {
      const double u = ulp_distance(want, got) / ulp_scale;
      if (u != 0) ++differing;
      max_ulp = std::max(max_ulp, u);
    };
    // A tensor of the row's dtype: bf16 values widened to float, one bf16 ulp = 2^16 float ulps.
    auto tensor = [&](const std::string& key, const std::vector<float>& mine) {
      const core::NpyArray a = core::read_npy(path(key));
      if (g.dtype == simt::DType::bf16) {
        const auto bits = a.as<uint16_t>();
        if (bits.size() != mine.size()) throw std::runtime_error(key + " has " + std::to_string(bits.size()) + " elements");
        for (size_t i = 0; i < bits.size(); ++i)
          cmp(std::bit_cast<float>(static_cast<uint32_t>(bits[i]) << 16), mine[i], 65536.0);
      } else {
        const auto v = a.as<float>();
        if (v.size() != mine.size()) throw std::runtime_error(key + " has " + std::to_string(v.size()) + " elements");
        for (size_t i = 0; i < v.size(); ++i) cmp(v[i], mine[i], 1.0);
      }
    };
    tensor(backward ? "dx" : "y",
           backward ? std::vector<float>(out.y.begin(), out.y.begin() + g.output_rows * g.hidden) : out.y);
    if (g.outputs.count("z")) tensor("z", out.z);
    if (backward) {
      for (const char* key : {"dgamma", "dbeta"}) {
        const auto v = core::read_npy(path(key)).as<float>();
        const auto& mine = std::string(key) == "dgamma" ? out.dgamma : out.dbeta;
        if (v.size() != mine.size()) throw std::runtime_error(std::string(key) + " has " + std::to_string(v.size()) + " entries");
        for (size_t i = 0; i < v.size(); ++i) {
          if (out.parameter_order_free)  // atomics: the GPU's order is not fixed; report the gap
            c.order_free_max_ulp = std::max(c.order_free_max_ulp, ulp_distance(v[i], mine[i]));
          else
            cmp(v[i], mine[i], 1.0);
        }
      }
    }
    for (const char* key : {"mean", "rstd"}) {
      if (backward || !g.outputs.count(key)) continue;
      const auto v = core::read_npy(path(key)).as<float>();
      const auto& mine = std::string(key) == "mean" ? out.mean : out.rstd;
      if (v.size() != mine.size()) throw std::runtime_error(std::string(key) + " has " + std::to_string(v.size()) + " entries");
      for (size_t i = 0; i < v.size(); ++i) cmp(v[i], mine[i], 1.0);
    }
    c.elements_differing = differing;
    c.max_ulp = max_ulp;
    c.bit_exact = differing == 0;
  } catch (const std::exception& e) {
    c.output_error = e.what();
  }
}

}  // namespace

// Distance in units in the last place between two floats of the same sign
// convention (NaN against NaN counts as equal: the payload is not compared).
double ulp_distance(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return INFINITY;
  auto ordered = [](float f) {
    const int32_t i = std::bit_cast<int32_t>(f);
    return i < 0 ? static_cast<int64_t>(INT32_MIN) - i : static_cast<int64_t>(i);
  };
  return static_cast<double>(std::llabs(ordered(a) - ordered(b)));
}

std::vector<bool> held_out_mask(const std::vector<GoldenCase>& cases) {
  std::vector<size_t> idx(cases.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return fnv1a(cases[a].id) < fnv1a(cases[b].id); });
  const size_t n_held = (cases.size() * 3 + 9) / 10;
  std::vector<bool> mask(cases.size(), false);
  for (size_t i = 0; i < n_held; ++i) mask[idx[i]] = true;
  return mask;
}

double WarpStateSummary::worst_share_mad() const { return share_mad[static_cast<size_t>(worst_share_state())]; }

simt::WarpState WarpStateSummary::worst_share_state() const {
  size_t worst = 0;
  for (size_t i = 1; i < simt::kWarpStates; ++i)
    if (share_mad[i] > share_mad[worst]) worst = i;
  return static_cast<simt::WarpState>(worst);
}

double rel_error(double p, double m) { return m != 0 ? (p - m) / m : (p == 0 ? 0.0 : INFINITY); }

SimtRegression simt_regression(const std::vector<GoldenCase>& cases, const simt::GpuArch& gpu,
                               const std::string& golden_dir, const simt::HardwareRsqrt& rsqrt,
                               const NcuProfiles& ncu) {
  SimtRegression r;
  const std::vector<bool> held = held_out_mask(cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    const GoldenCase& g = cases[i];
    CaseResult c;
    c.golden = g;
    c.held_out = held[i];
    c.pred = simt::predict(simt::plan_launch(g.kernel, g.rows, g.hidden, g.dtype, g.block, gpu), gpu);
    c.dram_read_err = rel_error(c.pred.dram_bytes_read, g.dram_bytes_read);
    c.dram_write_err = rel_error(c.pred.dram_bytes_written, g.dram_bytes_written);
    c.l2_err = rel_error(c.pred.l2_bytes, g.l2_bytes);
    c.duration_err = rel_error(c.pred.duration_us, g.duration_us);
    const simt::PredictionRanges& rg = c.pred.ranges;
    c.dram_read_in_range = rg.dram_bytes_read.contains(g.dram_bytes_read);
    c.dram_write_in_range = rg.dram_bytes_written.contains(g.dram_bytes_written);
    c.l2_in_range = rg.l2_bytes.contains(g.l2_bytes);
    c.duration_in_range = rg.duration_us.contains(g.duration_us);
    if (const auto it = ncu.find(g.id); it != ncu.end()) {
      c.warps_compared = true;
      c.ncu_warps = it->second.warps;
      c.dominant_agrees = c.pred.warps.dominant() == c.ncu_warps.dominant();
      c.limiter_agrees = simt::limiter(c.pred.warps) == simt::limiter(c.ncu_warps);
    }
    r.cases.push_back(std::move(c));
  }
  // The outputs, by input key: each distinct input tensor drawn once.
  std::map<InputKey, std::vector<size_t>> by_inputs;
  for (size_t i = 0; i < r.cases.size(); ++i)
    if (!r.cases[i].golden.outputs.empty()) by_inputs[input_key(r.cases[i].golden)].push_back(i);
  for (const auto& [key, idx] : by_inputs) {
    std::optional<SharedInputs> shared;
    for (const size_t i : idx) {
      CaseResult& c = r.cases[i];
      try {
        if (!shared) shared.emplace(c.golden);
        compare_outputs(c, golden_dir, rsqrt, gpu, shared->for_case(c.golden));
      } catch (const std::exception& e) {
        c.outputs_compared = true;
        c.output_error = e.what();
      }
    }
  }
  std::vector<const CaseResult*> all, train, hold;
  std::map<std::string, std::vector<const CaseResult*>> by_kernel;
  for (const auto& c : r.cases) {
    all.push_back(&c);
    (c.held_out ? hold : train).push_back(&c);
    by_kernel[std::string(simt::kernel_name(c.golden.kernel))].push_back(&c);
  }
  r.all = summary(all);
  r.training = summary(train);
  r.held_out = summary(hold);
  for (const auto& [k, v] : by_kernel) r.per_kernel.emplace_back(k, summary(v));
  // Where the prediction is sensitive to the x in flight, the reuse
  // distance's scale: the misses the model has left are there (FIDELITY.md).
  static_assert(simt::kCliffElasticity == 0.1, "the first band is the firm predictions");
  for (auto [name, lo, hi] : {std::tuple{"below 0.1", 0.0, 0.1}, std::tuple{"0.1 to 0.5", 0.1, 0.5},
                              std::tuple{"0.5 and above", 0.5, static_cast<double>(INFINITY)}}) {
    ElasticityBand band{name, lo, hi, {}, 0};
    std::vector<const CaseResult*> in;
    for (const auto& c : r.cases)
      if (c.pred.dram_read_elasticity >= lo && c.pred.dram_read_elasticity < hi) {
        in.push_back(&c);
        band.dram_read_within_target += std::fabs(c.dram_read_err) <= kThresholds.dram_read_firm_max_rel_error;
      }
    band.summary = summary(in);
    r.by_elasticity.push_back(std::move(band));
  }
  return r;
}

}  // namespace normsim::validate
