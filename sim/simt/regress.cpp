#include "sim/simt/regress.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <map>
#include <filesystem>
#include <numeric>
#include <tuple>

#include "sim/config/config_error.hpp"
#include "sim/core/npy.hpp"
#include "sim/simt/emulate.hpp"

namespace normsim::simt {

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

Summary summary(const std::vector<const CaseResult*>& cs) {
  Summary s;
  s.cases = cs.size();
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
  return s;
}

double rel(double p, double m) { return m != 0 ? (p - m) / m : (p == 0 ? 0.0 : INFINITY); }

nlohmann::json counter_json(const CounterSummary& c) {
  return {{"cases", c.n}, {"mae", c.mae}, {"max_rel_error", c.max_err}, {"corr", c.corr}};
}
// The mapped paths behind the arch's L2: how many read within 5% of ncu.
struct TrafficSummary {
  size_t cases = 0, read_within_5pct = 0;
  double read_mae = 0, read_max_rel_error = 0;
};
TrafficSummary summarize_traffic(const std::vector<AsicTrafficCase>& t) {
  TrafficSummary s;
  s.cases = t.size();
  for (const auto& c : t) {
    const double e = std::fabs(c.l2_read_error);
    s.read_within_5pct += e <= 0.05;
    s.read_max_rel_error = std::max(s.read_max_rel_error, e);
    s.read_mae += e;
  }
  if (!t.empty()) s.read_mae /= static_cast<double>(t.size());
  return s;
}
nlohmann::json traffic_summary_json(const TrafficSummary& s) {
  return {{"cases", s.cases},
          {"read_within_5pct", s.read_within_5pct},
          {"read_mae", s.read_mae},
          {"read_max_rel_error", s.read_max_rel_error}};
}

nlohmann::json summary_json(const Summary& s) {
  return {{"cases", s.cases},
          {"outputs_compared", s.outputs_compared},
          {"bit_exact_cases", s.bit_exact},
          {"dram_read_max_rel_error", s.dram_read.max_err},
          {"dram_read_mae", s.dram_read.mae},
          {"dram_write_mae", s.dram_write.mae},
          {"l2_bytes_mae", s.l2.mae},
          {"duration_mae", s.duration.mae},
          {"duration_max_rel_error", s.duration.max_err},
          {"duration_corr", s.duration.corr},
          {"counters",
           {{"dram_bytes_read", counter_json(s.dram_read)},
            {"dram_bytes_written", counter_json(s.dram_write)},
            {"l2_bytes", counter_json(s.l2)},
            {"duration_us", counter_json(s.duration)}}}};
}

void compare_outputs(CaseResult& c, const std::string& dir, const HardwareRsqrt& rsqrt, const GpuArch& gpu) {
  const GoldenCase& g = c.golden;
  if (g.outputs.empty()) return;
  c.outputs_compared = true;
  try {
    const bool backward = g.outputs.count("dx") > 0;
    auto path = [&](const std::string& key) { return (std::filesystem::path(dir) / g.outputs.at(key)).string(); };
    // A long-row case keeps its first rows only: emulate those (the counter
    // RNG gives them the same inputs).
    const int64_t rows = g.output_rows;
    KernelInputs in = gpu_ref_inputs(rows, g.hidden, g.dtype, g.dist, g.dist_mean, g.dist_sigma, g.seed);
    if (g.kernel == "fused_residual") add_residual(in, g.seed);
    if (backward) add_grad_out(in, g.seed);
    const KernelOutputs out = emulate(
        rows == g.rows ? c.pred.plan : plan_launch(g.kernel, rows, g.hidden, g.dtype, g.block, gpu), in, rsqrt);
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
      if (g.dtype == "bf16") {
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
    tensor(backward ? "dx" : "y", out.y);
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

RegressResult regress(const std::vector<GoldenCase>& cases, const GpuArch& gpu, const std::string& golden_dir) {
  RegressResult r;
  const std::vector<bool> held = held_out_mask(cases);
  const std::string table = (std::filesystem::path(golden_dir) / "rsqrt_delta.npy.gz").string();
  if (!std::filesystem::exists(table))
    throw config::ConfigError(table + ": missing (the GPU's rsqrtf table; gpu_ref/microbench/rsqrt_table.cu writes it)");
  const HardwareRsqrt rsqrt(table);
  for (size_t i = 0; i < cases.size(); ++i) {
    const GoldenCase& g = cases[i];
    CaseResult c;
    c.golden = g;
    c.held_out = held[i];
    c.pred = predict(plan_launch(g.kernel, g.rows, g.hidden, g.dtype, g.block, gpu), gpu);
    c.dram_read_err = rel(c.pred.dram_bytes_read, g.dram_bytes_read);
    c.dram_write_err = rel(c.pred.dram_bytes_written, g.dram_bytes_written);
    c.l2_err = rel(c.pred.l2_bytes, g.l2_bytes);
    c.duration_err = rel(c.pred.duration_us, g.duration_us);
    compare_outputs(c, golden_dir, rsqrt, gpu);
    r.cases.push_back(std::move(c));
  }
  std::vector<const CaseResult*> all, train, hold;
  std::map<std::string, std::vector<const CaseResult*>> by_kernel;
  for (const auto& c : r.cases) {
    all.push_back(&c);
    (c.held_out ? hold : train).push_back(&c);
    by_kernel[c.golden.kernel].push_back(&c);
  }
  r.all = summary(all);
  r.training = summary(train);
  r.held_out = summary(hold);
  for (const auto& [k, v] : by_kernel) r.per_kernel.emplace_back(k, summary(v));
  // Where the prediction is sensitive to the x in flight, the reuse
  // distance's scale: the misses the model has left are there (FIDELITY.md).
  for (auto [name, lo, hi] : {std::tuple{"below 0.1", 0.0, 0.1}, std::tuple{"0.1 to 0.5", 0.1, 0.5},
                              std::tuple{"0.5 and above", 0.5, static_cast<double>(INFINITY)}}) {
    ElasticityBand band{name, lo, hi, {}, 0};
    std::vector<const CaseResult*> in;
    for (const auto& c : r.cases)
      if (c.pred.dram_read_elasticity >= lo && c.pred.dram_read_elasticity < hi) {
        in.push_back(&c);
        band.dram_read_within_target += std::fabs(c.dram_read_err) <= r.thresholds.dram_read_max_rel_error;
      }
    band.summary = summary(in);
    r.by_elasticity.push_back(std::move(band));
  }
  auto ok = [&](const Summary& s) {
    return s.dram_read.max_err <= r.thresholds.dram_read_max_rel_error && s.duration.mae <= r.thresholds.duration_mae &&
           s.duration.corr >= r.thresholds.duration_corr;
  };
  r.asic_cases = asic_output_cases(cases, golden_dir, rsqrt);
  r.fixed_point_cases = fixed_point_cases(cases, golden_dir);
  r.asic_traffic = asic_traffic_cases(cases, gpu);
  const bool asic_exact =
      std::all_of(r.asic_cases.begin(), r.asic_cases.end(), [](const AsicCase& a) { return a.bit_exact; });
  r.pass = ok(r.all) && ok(r.held_out) && r.all.bit_exact == r.all.outputs_compared && asic_exact;
  return r;
}

namespace {
struct Param {
  const char* name;
  double GpuArch::*top;
  double L2Config::*l2;
  double DramConfig::*dram;
  double lo, hi;
  double L1Config::*l1 = nullptr;
};
const std::vector<Param>& fit_params() {
  static const std::vector<Param> params = {
      {"fdiv_latency_cycles", &GpuArch::fdiv_latency_cycles, nullptr, nullptr, 10, 2000},
      {"l2.dirty_resident_bytes", nullptr, &L2Config::dirty_resident_bytes, nullptr, 1e6, 62.9e6},
      {"l2.atomic_ns_per_sector", nullptr, &L2Config::atomic_ns_per_sector, nullptr, 0.05, 100},
      {"l2.scattered_store_sectors_per_ns", nullptr, &L2Config::scattered_store_sectors_per_ns, nullptr, 1, 1000},
      {"shuffle_latency_cycles", &GpuArch::shuffle_latency_cycles, nullptr, nullptr, 10, 200},
      {"barrier_latency_cycles", &GpuArch::barrier_latency_cycles, nullptr, nullptr, 10, 2000},
      {"kernel_tail_cycles", &GpuArch::kernel_tail_cycles, nullptr, nullptr, 0, 20000},
      {"dram.fill_weight", nullptr, nullptr, &DramConfig::fill_weight, 0.01, 1},
      {"round_overhead_cycles", &GpuArch::round_overhead_cycles, nullptr, nullptr, 0, 20000},
      {"dependent_issue_cycles", &GpuArch::dependent_issue_cycles, nullptr, nullptr, 1, 64},
      {"memory_overlap_exponent", &GpuArch::memory_overlap_exponent, nullptr, nullptr, 1, 64},
      {"bound_overlap_exponent", &GpuArch::bound_overlap_exponent, nullptr, nullptr, 1, 64},
      {"l1.miss_requests_per_cycle", nullptr, nullptr, nullptr, 0.05, 4, &L1Config::miss_requests_per_cycle},
      {"l1.reuse_steepness", nullptr, nullptr, nullptr, 1, 20, &L1Config::reuse_steepness},
  };
  return params;
}

double& param_ref(GpuArch& g, const Param& p) {
  if (p.top) return g.*(p.top);
  if (p.l2) return g.l2.*(p.l2);
  if (p.l1) return g.l1.*(p.l1);
  return g.dram.*(p.dram);
}
}  // namespace

GpuArch fit_arch(const std::vector<GoldenCase>& cases, const GpuArch& start, std::string* log) {
  const std::vector<bool> held = held_out_mask(cases);
  // Launch plans do not depend on the fitted parameters: plan each case once.
  std::vector<std::pair<const GoldenCase*, LaunchPlan>> train;
  for (size_t i = 0; i < cases.size(); ++i)
    if (!held[i])
      train.emplace_back(&cases[i], plan_launch(cases[i].kernel, cases[i].rows, cases[i].hidden, cases[i].dtype,
                                                cases[i].block, start));
  auto objective = [&](const GpuArch& g) {
    double dur = 0, rd = 0, wr = 0, rd_max = 0;
    size_t nwr = 0;
    for (const auto& [c, plan] : train) {
      const Prediction p = predict(plan, g, /*with_elasticity=*/false);
      dur += std::fabs(rel(p.duration_us, c->duration_us));
      const double e = std::fabs(rel(p.dram_bytes_read, c->dram_bytes_read));
      rd += e;
      rd_max = std::max(rd_max, e);
      if (c->dram_bytes_written > 0) {
        wr += std::fabs(rel(p.dram_bytes_written, c->dram_bytes_written));
        ++nwr;
      }
    }
    // The DRAM-read target is per case: its worst case counts too.
    return dur / train.size() + rd / train.size() + (nwr ? wr / nwr : 0) + 0.5 * rd_max;
  };
  const auto& params = fit_params();
  auto ref = [](GpuArch& g, const Param& p) -> double& { return param_ref(g, p); };
  GpuArch best = start;
  double best_obj = objective(best);
  char line[256];
  for (int round = 0; round < 4; ++round) {
    for (const Param& p : params) {
      const double cur = ref(best, p);
      for (int step = -8; step <= 8; ++step) {
        GpuArch trial = best;
        const double v = std::clamp(cur * std::pow(2.0, step / 4.0), p.lo, p.hi);
        ref(trial, p) = v;
        const double obj = objective(trial);
        if (obj < best_obj - 1e-9) {
          best_obj = obj;
          best = trial;
          if (log) {
            std::snprintf(line, sizeof line, "round %d: %s = %.6g (objective %.4f)\n", round, p.name, v, obj);
            *log += line;
          }
        }
      }
    }
  }
  return best;
}

std::string fitted_parameters(const GpuArch& g) {
  std::string out;
  char line[160];
  GpuArch copy = g;
  for (const Param& p : fit_params()) {
    std::snprintf(line, sizeof line, "  %s: %.9g\n", p.name, param_ref(copy, p));
    out += line;
  }
  return out;
}

nlohmann::json to_json(const RegressResult& r) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : r.cases) {
    const auto& g = c.golden;
    cases.push_back({{"id", g.id},
                     {"kernel", g.kernel},
                     {"ran", c.pred.plan.ran},
                     {"rows", g.rows},
                     {"hidden", g.hidden},
                     {"dtype", g.dtype},
                     {"block", g.block},
                     {"held_out", c.held_out},
                     {"measured",
                      {{"dram_bytes_read", g.dram_bytes_read},
                       {"dram_bytes_written", g.dram_bytes_written},
                       {"l2_bytes", g.l2_bytes},
                       {"duration_us", g.duration_us}}},
                     {"predicted",
                      {{"dram_bytes_read", c.pred.dram_bytes_read},
                       {"dram_bytes_written", c.pred.dram_bytes_written},
                       {"l2_bytes", c.pred.l2_bytes},
                       {"duration_us", c.pred.duration_us},
                       {"cycles", c.pred.cycles},
                       {"dram_read_elasticity", c.pred.dram_read_elasticity}}},
                     {"outputs",
                      c.outputs_compared
                          ? nlohmann::json{{"bit_exact", c.bit_exact},
                                           {"elements_differing", c.elements_differing},
                                           {"max_ulp", std::isfinite(c.max_ulp) ? nlohmann::json(c.max_ulp) : nlohmann::json("inf")},
                                           {"order_free_max_ulp", c.order_free_max_ulp},
                                           {"error", c.output_error.empty() ? nlohmann::json() : nlohmann::json(c.output_error)}}
                          : nlohmann::json()},
                     {"rel_error",
                      {{"dram_bytes_read", c.dram_read_err},
                       {"dram_bytes_written", std::isfinite(c.dram_write_err) ? nlohmann::json(c.dram_write_err) : nlohmann::json()},
                       {"l2_bytes", c.l2_err},
                       {"duration_us", c.duration_err}}}});
  }
  nlohmann::json per_kernel = nlohmann::json::object();
  for (const auto& [k, s] : r.per_kernel) per_kernel[k] = summary_json(s);
  nlohmann::json s = summary_json(r.all);
  nlohmann::json bands = nlohmann::json::array();
  for (const auto& b : r.by_elasticity)
    bands.push_back({{"band", b.name},
                     {"elasticity_min", b.lo},
                     {"elasticity_max", std::isfinite(b.hi) ? nlohmann::json(b.hi) : nlohmann::json()},
                     {"dram_read_within_target", b.dram_read_within_target},
                     {"summary", summary_json(b.summary)}});
  nlohmann::json traffic = nlohmann::json::array();
  for (const auto& t : r.asic_traffic)
    traffic.push_back({{"id", t.id},
                       {"kernel", t.kernel},
                       {"path", t.path},
                       {"closed_form", {{"dram_bytes_read", t.closed_form_read}, {"dram_bytes_written", t.closed_form_written}}},
                       {"measured", {{"dram_bytes_read", t.measured_read}, {"dram_bytes_written", t.measured_written}}},
                       {"read_gap", t.read_gap},
                       {"write_gap", t.write_gap},
                       {"read_cause", t.read_cause},
                       {"write_cause", t.write_cause},
                       {"with_l2", {{"rows_in_flight", t.rows_in_flight},
                                    {"l1_reread_hit", t.l1_reread_hit},
                                    {"reread_hit", t.l2_reread_hit},
                                    {"code_bytes", t.code_bytes},
                                    {"dram_bytes_read", t.l2_read},
                                    {"dram_bytes_written", t.l2_written},
                                    {"read_rel_error", t.l2_read_error},
                                    {"write_rel_error", t.l2_write_error}}}});
  nlohmann::json fixed = nlohmann::json::array();
  for (const auto& f : r.fixed_point_cases)
    fixed.push_back({{"id", f.id},
                     {"kernel", f.kernel},
                     {"arch", f.arch},
                     {"elements", f.elements},
                     {"rel_l2_error_vs_gpu", f.rel_l2_error},
                     {"max_abs_error_vs_gpu", f.max_abs_error},
                     {"output_lsb", f.output_lsb},
                     {"input_overflows", f.input_overflows},
                     {"other_overflows", f.other_overflows},
                     {"error", f.error.empty() ? nlohmann::json() : nlohmann::json(f.error)}});
  nlohmann::json asic = nlohmann::json::array();
  size_t asic_exact = 0;
  for (const auto& a : r.asic_cases) {
    asic_exact += a.bit_exact;
    asic.push_back({{"id", a.id},
                    {"kernel", a.kernel},
                    {"arch", a.arch},
                    {"lanes", a.lanes},
                    {"merge_order", a.merge_order},
                    {"outputs",
                     {{"bit_exact", a.bit_exact},
                      {"elements_compared", a.elements_compared},
                      {"elements_differing", a.elements_differing},
                      {"max_ulp", std::isfinite(a.max_ulp) ? nlohmann::json(a.max_ulp) : nlohmann::json("inf")},
                      {"error", a.error.empty() ? nlohmann::json() : nlohmann::json(a.error)}}}});
  }
  return {{"cases", cases},
          {"summary", s},
          {"training", summary_json(r.training)},
          {"held_out", summary_json(r.held_out)},
          {"per_kernel", per_kernel},
          {"by_dram_read_elasticity", bands},
          {"asic_cases", asic},
          {"asic_summary", {{"cases", r.asic_cases.size()}, {"bit_exact_cases", asic_exact}}},
          {"fixed_point_cases", fixed},
          {"asic_traffic", traffic},
          {"asic_traffic_summary", traffic_summary_json(summarize_traffic(r.asic_traffic))},
          {"thresholds",
           {{"dram_read_max_rel_error", r.thresholds.dram_read_max_rel_error},
            {"duration_mae", r.thresholds.duration_mae},
            {"duration_corr", r.thresholds.duration_corr}}},
          {"pass", r.pass}};
}

std::string format_text(const RegressResult& r) {
  std::string out;
  char b[512];
  auto row = [&](const std::string& name, const Summary& s) {
    std::snprintf(b, sizeof b, "%-20s %5zu %9.1f%% %9.1f%% %9.1f%% %9.1f%% %9.1f%% %8.3f\n", name.c_str(), s.cases,
                  100 * s.dram_read.mae, 100 * s.dram_read.max_err, 100 * s.dram_write.mae, 100 * s.l2.mae,
                  100 * s.duration.mae, s.duration.corr);
    out += b;
  };
  std::snprintf(b, sizeof b, "%-20s %5s %10s %10s %10s %10s %10s %8s\n", "kernel / set", "cases", "read MAE", "read max",
                "write MAE", "L2 MAE", "time MAE", "time r");
  out += b;
  for (const auto& [k, s] : r.per_kernel) row(k, s);
  out += "\n";
  row("all", r.all);
  row("training", r.training);
  row("held-out", r.held_out);
  out += "\nby DRAM-read elasticity (% DRAM bytes read per % of x in flight):\n";
  for (const auto& band : r.by_elasticity) {
    row(band.name, band.summary);
    std::snprintf(b, sizeof b, "%-20s %5s DRAM read within %.0f%%: %zu of %zu\n", "", "",
                  100 * r.thresholds.dram_read_max_rel_error, band.dram_read_within_target, band.summary.cases);
    out += b;
  }
  out += "\noutputs (emulated fp32 arithmetic against the GPU's .npy files):\n";
  for (const auto& c : r.cases) {
    if (!c.outputs_compared) continue;
    if (!c.output_error.empty()) std::snprintf(b, sizeof b, "  %-48s error: %s\n", c.golden.id.c_str(), c.output_error.c_str());
    else if (c.bit_exact && c.order_free_max_ulp > 0)
      std::snprintf(b, sizeof b, "  %-48s bit-exact (dgamma/dbeta by atomics: %.3g ulp from block order)\n",
                    c.golden.id.c_str(), c.order_free_max_ulp);
    else if (c.bit_exact) std::snprintf(b, sizeof b, "  %-48s bit-exact\n", c.golden.id.c_str());
    else
      std::snprintf(b, sizeof b, "  %-48s %llu entries differ, max %.3g ulp\n", c.golden.id.c_str(),
                    static_cast<unsigned long long>(c.elements_differing), c.max_ulp);
    out += b;
  }
  std::snprintf(b, sizeof b, "  %zu of %zu compared cases bit-exact\n", r.all.bit_exact, r.all.outputs_compared);
  out += b;
  out += "\nasic_cases (the ASIC datapath configured as the kernel, against the GPU's outputs):\n";
  size_t asic_exact = 0;
  for (const auto& a : r.asic_cases) {
    asic_exact += a.bit_exact;
    if (!a.error.empty())
      std::snprintf(b, sizeof b, "  %-48s %s: error: %s\n", a.id.c_str(), a.arch.c_str(), a.error.c_str());
    else
      std::snprintf(b, sizeof b, "  %-48s %s (%d lanes, %s): %s\n", a.id.c_str(), a.arch.c_str(), a.lanes,
                    a.merge_order.c_str(),
                    a.bit_exact ? "bit-exact"
                                : (std::to_string(a.elements_differing) + " of " + std::to_string(a.elements_compared) +
                                   " differ, max " + std::to_string(a.max_ulp) + " ulp").c_str());
    out += b;
  }
  std::snprintf(b, sizeof b, "  %zu of %zu cases bit-exact\n", asic_exact, r.asic_cases.size());
  out += b;
  out += "\nasic_traffic (the mapped ASIC path's DRAM identities against ncu; gap = measured / closed form - 1):\n";
  for (const auto& t : r.asic_traffic) {
    std::snprintf(b, sizeof b, "  %-40s %-11s read %+6.1f%% (%s); written %+6.1f%% (%s)\n", t.id.c_str(), t.path.c_str(),
                  100 * t.read_gap, t.read_cause.c_str(), 100 * t.write_gap, t.write_cause.c_str());
    out += b;
    std::snprintf(b, sizeof b,
                  "  %-40s with L1 and L2 (%.0f rows in flight, re-read hit L1 %.2f, L2 %.2f): read %+6.1f%%, written %+6.1f%% of measured\n",
                  "", t.rows_in_flight, t.l1_reread_hit, t.l2_reread_hit, 100 * t.l2_read_error, 100 * t.l2_write_error);
    out += b;
  }
  {
    const TrafficSummary ts = summarize_traffic(r.asic_traffic);
    std::snprintf(b, sizeof b, "  with the L2: %zu of %zu cases read within 5%% of ncu (MAE %.1f%%, max %.1f%%)\n",
                  ts.read_within_5pct, ts.cases, 100 * ts.read_mae, 100 * ts.read_max_rel_error);
    out += b;
  }
  out += "\nfixed_point_cases (fixed16 on the golden inputs against the GPU's fp32 outputs):\n";
  for (const auto& f : r.fixed_point_cases) {
    if (!f.error.empty())
      std::snprintf(b, sizeof b, "  %-48s error: %s\n", f.id.c_str(), f.error.c_str());
    else
      std::snprintf(b, sizeof b, "  %-48s rel L2 %.3g, max abs %.3g (output lsb %.3g), overflows: input %llu, other %llu\n",
                    f.id.c_str(), f.rel_l2_error, f.max_abs_error, f.output_lsb,
                    static_cast<unsigned long long>(f.input_overflows), static_cast<unsigned long long>(f.other_overflows));
    out += b;
  }
  std::snprintf(b, sizeof b,
                "\nthresholds (all and held-out): DRAM read max %.0f%%, duration MAE %.0f%%, duration r >= %.2f: %s\n",
                100 * r.thresholds.dram_read_max_rel_error, 100 * r.thresholds.duration_mae,
                r.thresholds.duration_corr, r.pass ? "pass" : "FAIL");
  out += b;
  return out;
}

}  // namespace normsim::simt
