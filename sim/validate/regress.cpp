#include "sim/validate/regress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "sim/config/config_error.hpp"
#include "sim/simt/kernels/kernel_registry.hpp"
#include "sim/simt/limiter.hpp"

namespace normsim::validate {

namespace {

nlohmann::json counter_json(const CounterSummary& c) {
  return {{"cases", c.n}, {"mae", c.mae}, {"max_rel_error", c.max_err}, {"corr", c.corr}};
}

nlohmann::json traffic_summary_json(const TrafficSummary& s) {
  return {{"cases", s.cases},
          {"read_within_5pct", s.read_within_5pct},
          {"read_mae", s.read_mae},
          {"read_max_rel_error", s.read_max_rel_error}};
}

nlohmann::json range_json(const RangeSummary& r) {
  return {{"cases", r.n}, {"inside", r.inside}, {"coverage", r.coverage()}, {"median_rel_width", r.median_width}};
}

nlohmann::json range_value_json(const simt::Range& r) { return nlohmann::json::array({r.lo, r.hi}); }

nlohmann::json warp_summary_json(const WarpStateSummary& w) {
  nlohmann::json mad = nlohmann::json::object();
  for (const simt::WarpStateInfo& i : simt::kWarpStateInfo) mad[std::string(i.name)] = w.share_mad[static_cast<size_t>(i.state)];
  return {{"cases", w.n},
          {"dominant_agreement", w.dominant_rate()},
          {"limiter_agreement", w.limiter_rate()},
          {"share_mad", mad},
          {"worst_share_mad", w.worst_share_mad()},
          {"achieved_occupancy_mad", w.occupancy_mad},
          {"issue_active_mad", w.issue_active_mad},
          {"dram_throughput_mad", w.dram_throughput_mad}};
}

// The warp-state thresholds a summary misses, one text each: the gating ones, then the target.
struct WarpMisses {
  std::vector<std::string> gating, target;
};
WarpMisses warp_misses(const WarpStateSummary& w, const Thresholds& t) {
  WarpMisses out;
  char line[200];
  if (w.n == 0) return out;
  if (!(w.dominant_rate() >= t.warp_dominant_agreement)) {
    std::snprintf(line, sizeof line, "dominant warp state agrees with ncu on %.1f%% of %zu cases (at least %.0f%%)",
                  100 * w.dominant_rate(), w.n, 100 * t.warp_dominant_agreement);
    out.gating.push_back(line);
  }
  if (!(w.limiter_rate() >= t.limiter_agreement)) {
    std::snprintf(line, sizeof line, "limiter agrees with ncu's on %.1f%% of %zu cases (at least %.0f%%)",
                  100 * w.limiter_rate(), w.n, 100 * t.limiter_agreement);
    out.gating.push_back(line);
  }
  if (!(w.worst_share_mad() <= t.warp_share_mad)) {
    std::snprintf(line, sizeof line, "%s share off by %.3f on average (target: at most %.2f for every state)",
                  std::string(simt::to_string(w.worst_share_state())).c_str(), w.worst_share_mad(), t.warp_share_mad);
    out.target.push_back(line);
  }
  return out;
}

nlohmann::json summary_json(const Summary& s) {
  return {{"cases", s.cases},
          {"warp_states", warp_summary_json(s.warps)},
          {"ranges",
           {{"dram_bytes_read", range_json(s.dram_read_range)},
            {"dram_bytes_written", range_json(s.dram_write_range)},
            {"l2_bytes", range_json(s.l2_range)},
            {"duration_us", range_json(s.duration_range)}}},
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

}  // namespace

RegressResult regress(const std::vector<GoldenCase>& cases, const simt::GpuArch& gpu, const std::string& golden_dir,
                      const RegressBaseline* baseline, const std::string& baseline_file) {
  RegressResult r;
  const std::string table = (std::filesystem::path(golden_dir) / "rsqrt_delta.npy.gz").string();
  if (!std::filesystem::exists(table))
    throw config::ConfigError(table + ": missing (the GPU's rsqrtf table; gpu_ref/microbench/rsqrt_table.cu writes it)");
  const simt::HardwareRsqrt rsqrt(table);
  static_cast<SimtRegression&>(r) = simt_regression(cases, gpu, golden_dir, rsqrt, load_ncu_profile(golden_dir));
  const Thresholds& t = r.thresholds;
  char line[320];
  auto fail = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof line, fmt, args...);
    r.failures.push_back(line);
  };
  for (const auto& c : r.cases) {
    if (c.pred.firm() && !(std::fabs(c.dram_read_err) <= t.dram_read_firm_max_rel_error))
      r.firm_read_misses.push_back(c.golden.id);
    if (!c.dram_read_in_range) r.read_outside_range.push_back(c.golden.id + (c.held_out ? " (held out)" : ""));
  }
  size_t training_outside = 0;
  for (const auto& c : r.cases) training_outside += !c.held_out && !c.dram_read_in_range;
  if (!r.firm_read_misses.empty())
    fail("DRAM read past %.0f%% on %zu firm case(s), first %s", 100 * t.dram_read_firm_max_rel_error,
         r.firm_read_misses.size(), r.firm_read_misses[0].c_str());
  if (t.dram_read_inside_range && training_outside > 0)
    fail("measured DRAM read outside its range on %zu training case(s)", training_outside);
  if (t.dram_read_inside_range && !(r.held_out.dram_read_range.coverage() >= t.held_out_range_coverage))
    fail("%.1f%% of the held-out cases' DRAM reads inside their ranges (at least %.0f%%)",
         100 * r.held_out.dram_read_range.coverage(), 100 * t.held_out_range_coverage);
  for (auto [name, s] : {std::pair{"training", &r.training}, std::pair{"held-out", &r.held_out}}) {
    if (!(s->duration.mae <= t.duration_mae))
      fail("duration MAE %.1f%% on the %s cases (at most %.0f%%)", 100 * s->duration.mae, name, 100 * t.duration_mae);
    if (!(s->duration.corr >= t.duration_corr))
      fail("duration r %.3f on the %s cases (at least %.2f)", s->duration.corr, name, t.duration_corr);
  }
  const WarpMisses warps = warp_misses(r.all.warps, t);
  for (const std::string& m : warps.gating) fail("%s", m.c_str());
  r.warp_state_misses = warps.gating;
  r.warp_state_misses.insert(r.warp_state_misses.end(), warps.target.begin(), warps.target.end());
  if (r.all.bit_exact != r.all.outputs_compared)
    fail("%zu of %zu output cases not bit-exact", r.all.outputs_compared - r.all.bit_exact, r.all.outputs_compared);
  if (baseline) {
    r.baseline_file = baseline_file;
    for (const auto& c : r.cases) {
      const auto it = baseline->cases.find(c.golden.id);
      if (it == baseline->cases.end()) continue;  // a new case: no baseline yet
      for (size_t i = 0; i < std::size(kCounterFields); ++i) {
        const double was = it->second[i], now = std::fabs(c.*(kCounterFields[i].err));
        if (std::isfinite(was) && std::isfinite(now) && now > was + t.baseline_slack)
          r.baseline_misses.push_back({c.golden.id, kCounterFields[i].name, was, now});
      }
    }
    if (!r.baseline_misses.empty()) {
      const BaselineMiss& m = r.baseline_misses[0];
      fail("%zu case counter(s) more than %.0f point(s) worse than the baseline, first %s %s: %.1f%% (was %.1f%%)",
           r.baseline_misses.size(), 100 * t.baseline_slack, m.id.c_str(), m.counter.c_str(), 100 * m.now, 100 * m.baseline);
    }
  }
  r.asic_cases = asic_output_cases(cases, golden_dir, rsqrt);
  r.fixed_point_cases = fixed_point_cases(cases, golden_dir);
  r.asic_traffic = asic_traffic_cases(cases, gpu);
  r.asic_time = asic_time_cases(cases, gpu);
  const bool asic_exact =
      std::all_of(r.asic_cases.begin(), r.asic_cases.end(), [](const AsicCase& a) { return a.bit_exact; });
  if (!asic_exact) fail("an ASIC datapath case is not bit-exact");
  r.pass_models = r.failures.empty();
  if (!(r.asic_time.mae <= t.asic_time_mae))
    fail("ASIC time MAE %.1f%% (at most %.0f%%)", 100 * r.asic_time.mae, 100 * t.asic_time_mae);
  r.pass = r.failures.empty();
  return r;
}

nlohmann::json baseline_json(const SimtRegression& r, const std::string& gpu_name) {
  nlohmann::json cases = nlohmann::json::object();
  for (const auto& c : r.cases) {
    nlohmann::json row = nlohmann::json::object();
    for (const auto& f : kCounterFields) {
      const double e = std::fabs(c.*(f.err));
      // Rounded up to 1e-5: the file diffs quietly and never gets stricter than the run.
      row[f.name] = std::isfinite(e) ? nlohmann::json(std::ceil(e * 1e5) / 1e5) : nlohmann::json();
    }
    cases[c.golden.id] = row;
  }
  return {{"gpu", gpu_name}, {"cases", cases}};
}

nlohmann::json to_json(const RegressResult& r) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : r.cases) {
    const auto& g = c.golden;
    cases.push_back({{"id", g.id},
                     {"kernel", simt::kernel_name(g.kernel)},
                     {"ran", simt::kernel_name(c.pred.plan.ran)},
                     {"rows", g.rows},
                     {"hidden", g.hidden},
                     {"dtype", normref::to_string(g.dtype)},
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
                       {"dram_read_elasticity", c.pred.dram_read_elasticity},
                       {"firmness", c.pred.firmness()},
                       {"range",
                        {{"dram_bytes_read", range_value_json(c.pred.ranges.dram_bytes_read)},
                         {"dram_bytes_written", range_value_json(c.pred.ranges.dram_bytes_written)},
                         {"l2_bytes", range_value_json(c.pred.ranges.l2_bytes)},
                         {"duration_us", range_value_json(c.pred.ranges.duration_us)}}}}},
                     {"in_range",
                      {{"dram_bytes_read", c.dram_read_in_range},
                       {"dram_bytes_written", c.dram_write_in_range},
                       {"l2_bytes", c.l2_in_range},
                       {"duration_us", c.duration_in_range}}},
                     {"outputs",
                      c.outputs_compared
                          ? nlohmann::json{{"bit_exact", c.bit_exact},
                                           {"elements_differing", c.elements_differing},
                                           {"max_ulp", std::isfinite(c.max_ulp) ? nlohmann::json(c.max_ulp) : nlohmann::json("inf")},
                                           {"order_free_max_ulp", c.order_free_max_ulp},
                                           {"error", c.output_error.empty() ? nlohmann::json() : nlohmann::json(c.output_error)}}
                          : nlohmann::json()},
                     {"warp_states",
                      c.warps_compared
                          ? nlohmann::json{{"predicted", simt::warp_profile_json(c.pred.warps)},
                                           {"ncu", simt::warp_profile_json(c.ncu_warps)},
                                           {"predicted_limiter", std::string(simt::to_string(simt::limiter(c.pred.warps)))},
                                           {"ncu_limiter", std::string(simt::to_string(simt::limiter(c.ncu_warps)))},
                                           {"dominant_agrees", c.dominant_agrees},
                                           {"limiter_agrees", c.limiter_agrees}}
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
                    {"pass", a.backward ? "backward" : "forward"},
                    {"outputs",
                     {{"bit_exact", a.bit_exact},
                      {"elements_compared", a.elements_compared},
                      {"elements_differing", a.elements_differing},
                      {"max_ulp", std::isfinite(a.max_ulp) ? nlohmann::json(a.max_ulp) : nlohmann::json("inf")},
                      {"parameter_order_free", a.parameter_order_free},
                      {"order_free_max_ulp", a.order_free_max_ulp},
                      {"error", a.error.empty() ? nlohmann::json() : nlohmann::json(a.error)}}}});
  }
  nlohmann::json misses = nlohmann::json::array();
  for (const auto& m : r.baseline_misses)
    misses.push_back({{"id", m.id}, {"counter", m.counter}, {"baseline", m.baseline}, {"now", m.now}});
  nlohmann::json time = nlohmann::json::array();
  for (const auto& t : r.asic_time.cases)
    time.push_back({{"id", t.id}, {"kernel", t.kernel}, {"arch", t.arch}, {"asic_cycles", t.asic_cycles},
                    {"asic_us", t.asic_us}, {"measured_us", t.measured_us}, {"rel_error", t.rel_error}});
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
          {"asic_time", time},
          {"asic_time_summary",
           {{"cases", r.asic_time.cases.size()}, {"mae", r.asic_time.mae}, {"threshold_mae", r.thresholds.asic_time_mae}}},
          {"thresholds",
           {{"dram_read_firm_max_rel_error", r.thresholds.dram_read_firm_max_rel_error},
            {"dram_read_inside_range", r.thresholds.dram_read_inside_range},
            {"held_out_range_coverage", r.thresholds.held_out_range_coverage},
            {"cliff_elasticity", simt::kCliffElasticity},
            {"duration_mae", r.thresholds.duration_mae},
            {"duration_corr", r.thresholds.duration_corr},
            {"baseline_slack", r.thresholds.baseline_slack},
            {"range_coverage_target", r.thresholds.range_coverage_target},
            {"firm_read_width_target", r.thresholds.firm_read_width_target},
            {"asic_time_mae", r.thresholds.asic_time_mae},
            {"warp_dominant_agreement", r.thresholds.warp_dominant_agreement},
            {"limiter_agreement", r.thresholds.limiter_agreement},
            {"warp_share_mad", r.thresholds.warp_share_mad}}},
          {"warp_state_misses", r.warp_state_misses},
          {"firm_read_misses", r.firm_read_misses},
          {"read_outside_range", r.read_outside_range},
          {"baseline", r.baseline_file.empty() ? nlohmann::json() : nlohmann::json(r.baseline_file)},
          {"baseline_misses", misses},
          {"failures", r.failures},
          {"pass_models", r.pass_models},
          {"pass", r.pass}};
}

}  // namespace normsim::validate
