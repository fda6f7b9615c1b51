#include "sim/report/sweep_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <stdexcept>

#include "sim/config/config_error.hpp"
#include "sim/report/run_report.hpp"

namespace normsim::report {

namespace {
using nlohmann::json;

// The scalar figures, section by section, in the order the columns show them.
struct Field {
  const char* section;
  const char* name;
};
constexpr Field kFields[] = {
    {"timing", "cycles"},          {"timing", "time_us"},
    {"timing", "lower_bound_cycles"}, {"timing", "cycles_over_lower_bound"},
    {"timing", "row_buffers_peak"}, {"timing", "row_buffer_waits"},
    {"traffic", "dram_bytes_read"}, {"traffic", "dram_bytes_written"},
    {"traffic", "dram_gbps"},       {"traffic", "sram_bytes_read"},
    {"traffic", "sram_bytes_written"}, {"area", "sram_required_bytes"},
    {"area", "sram_capacity_bytes"}, {"area", "sram_mm2"},
    {"area", "datapath_mm2"},       {"area", "fusion_mm2"},
    {"area", "total_mm2"},          {"area", "sram_macros"},
    {"energy", "total_uj"},
    {"energy", "dram_uj"},          {"energy", "sram_uj"},
    {"energy", "datapath_uj"},      {"energy", "residual_add_uj"},
    {"energy", "dropout_mask_uj"},  {"energy", "clock_uj"},
    {"energy", "leakage_uj"},
    {"energy", "pj_per_element"},   {"timing_closure", "fmax_ghz"},
    {"timing_closure", "added_flip_flops"}, {"timing_closure", "added_stages"}};
constexpr Field kErrorFields[] = {{"numerics", "rel_l2_error"},  {"numerics", "max_abs_error"},
                                  {"numerics", "max_ulp_error"}, {"numerics", "rms_error"},
                                  // --sample-rows: the error's spread over the sample's groups
                                  {"numerics", "sample_rel_l2_error_min"}, {"numerics", "sample_rel_l2_error_max"},
                                  {"numerics", "sample_max_ulp_error_min"}, {"numerics", "sample_max_ulp_error_max"}};
// The error figures each of kOtherGradients has (numerics.dgamma.rel_l2_error, ...).
constexpr const char* kGradientErrors[] = {"rel_l2_error", "max_abs_error", "max_ulp_error", "rms_error"};
const std::map<std::string, std::string> kAliases = {
    {"area", "area.total_mm2"}, {"energy", "energy.total_uj"}, {"error", "numerics.rel_l2_error"}, {"time", "timing.time_us"}};

std::string path_of(const Field& f) { return std::string(f.section) + "." + f.name; }

// A figure's place among the columns: the fields in their order, then the
// stall causes, the utilizations, the errors and the overflows, each by name.
std::pair<int, int> metric_rank(const std::string& name) {
  for (size_t i = 0; i < std::size(kFields); ++i)
    if (name == path_of(kFields[i])) return {0, static_cast<int>(i)};
  if (name.rfind("timing.stall_cycles.", 0) == 0) return {1, 0};
  if (name.rfind("timing.utilization.", 0) == 0) return {2, 0};
  for (size_t i = 0; i < std::size(kErrorFields); ++i)
    if (name == path_of(kErrorFields[i])) return {3, static_cast<int>(i)};
  for (size_t g = 0; g < std::size(kOtherGradients); ++g)
    for (size_t e = 0; e < std::size(kGradientErrors); ++e)
      if (name == std::string("numerics.") + kOtherGradients[g] + "." + kGradientErrors[e])
        return {3, static_cast<int>(std::size(kErrorFields) + g * std::size(kGradientErrors) + e)};
  return {4, 0};  // numerics.overflow.<stage>
}
bool metric_before(const std::string& a, const std::string& b) {
  const auto ra = metric_rank(a), rb = metric_rank(b);
  return ra != rb ? ra < rb : a < b;
}

std::string number(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.15g", v);  // integers (cycles, bytes) exactly
  return b;
}

std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }
}  // namespace

std::vector<std::pair<std::string, double>> sweep_metrics(const json& r, bool numerics) {
  std::vector<std::pair<std::string, double>> m;
  for (const Field& f : kFields)
    if (r.contains(f.section) && r[f.section].contains(f.name) && r[f.section][f.name].is_number())
      m.push_back({path_of(f), r[f.section][f.name].get<double>()});
  for (const char* family : {"stall_cycles", "utilization"})
    if (r.contains("timing") && r["timing"].contains(family))
      for (const auto& [k, v] : r["timing"][family].items())
        if (v.is_number()) m.push_back({std::string("timing.") + family + "." + k, v.get<double>()});
  if (numerics && r.contains("numerics")) {
    for (const Field& f : kErrorFields)
      if (r["numerics"].contains(f.name) && r["numerics"][f.name].is_number())
        m.push_back({path_of(f), r["numerics"][f.name].get<double>()});
    for (const char* grad : kOtherGradients)
      if (const json& n = r["numerics"]; n.contains(grad) && n[grad].is_object())
        for (const char* e : kGradientErrors)
          if (n[grad].contains(e) && n[grad][e].is_number())
            m.push_back({std::string("numerics.") + grad + "." + e, n[grad][e].get<double>()});
    // Saturated or wrapped values per fixed-point stage: a format that
    // saturates can rank well on the errors of the rest.
    if (r["numerics"].contains("overflow") && r["numerics"]["overflow"].is_object())
      for (const auto& [stage, v] : r["numerics"]["overflow"].items())
        if (v.is_number()) m.push_back({"numerics.overflow." + stage, v.get<double>()});
  }
  return m;
}

nlohmann::json point_figures(const nlohmann::json& report, bool numerics) {
  json f = json::object();
  for (const auto& [k, v] : sweep_metrics(report, numerics)) f[k] = v;
  return f;
}

std::vector<std::pair<std::string, double>> point_metrics(const nlohmann::json& p, bool numerics) {
  if (!p.contains("figures")) return sweep_metrics(p.value("report", json::object()), numerics);
  std::vector<std::pair<std::string, double>> m;
  for (const auto& [k, v] : p["figures"].items())
    if (v.is_number() && (numerics || metric_rank(k).first < 3)) m.push_back({k, v.get<double>()});
  std::stable_sort(m.begin(), m.end(), [](const auto& a, const auto& b) { return metric_before(a.first, b.first); });
  return m;
}

std::string objective_column(const std::string& name, bool numerics) {
  const auto alias = kAliases.find(name);
  std::string col = alias == kAliases.end() ? name : alias->second;
  // A figure by its name alone (cycles) or by its path (timing.cycles).
  auto known = [&](const Field& f) { return col == f.name || col == path_of(f); };
  for (const Field& f : kFields)
    if (known(f)) return path_of(f);
  const bool is_error = std::any_of(std::begin(kErrorFields), std::end(kErrorFields), known);
  if (numerics)
    for (const Field& f : kErrorFields)
      if (known(f)) return path_of(f);
  std::vector<std::string> allowed;
  for (const Field& f : kFields) allowed.push_back(f.name);
  if (numerics)
    for (const Field& f : kErrorFields) allowed.push_back(f.name);
  std::string list = "area, energy, time" + std::string(numerics ? ", error" : "");
  for (const auto& a : allowed) list += ", " + a;
  throw config::ConfigError("sweep: --objectives '" + name + "': " +
                            (is_error ? "an error objective needs --numerics" : "not a figure of the report") +
                            " (allowed: " + list + ")");
}

namespace {
// The Pareto front over `v` (all minimised): true for the points on it.
// Sorted lexicographically, a point's dominators all come before it, and a
// dominated point's dominator is dominated by one on the front: checking
// against the front found so far is enough.
std::vector<char> pareto_front(const std::vector<std::vector<double>>& v, const std::vector<size_t>& ok) {
  std::vector<size_t> order = ok;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<char> on(v.size(), 0);
  std::vector<size_t> front;
  auto dominates = [&](size_t a, size_t b) {
    bool better = false;
    for (size_t k = 0; k < v[a].size(); ++k) {
      if (v[a][k] > v[b][k]) return false;
      better |= v[a][k] < v[b][k];
    }
    return better;
  };
  for (size_t i : order) {
    const bool dominated = std::any_of(front.begin(), front.end(), [&](size_t f) { return dominates(f, i); });
    on[i] = !dominated;
    if (!dominated) front.push_back(i);
  }
  return on;
}

std::vector<std::string> objective_columns(const json& study) {
  std::vector<std::string> cols;
  for (const auto& o : study["objectives"]) cols.push_back(objective_column(o.get<std::string>(), study["mode"] == "bit-accurate"));
  return cols;
}

// The console table's columns, by the report's leaf names (the CSV has their paths and units).
struct TableCol {
  const char* name;
  const char* format;
  int width;
};
std::vector<TableCol> table_columns(bool numerics) {
  std::vector<TableCol> cols = {{"timing.cycles", "%.15g", 12},          {"timing.time_us", "%.1f", 10},
                                {"timing.row_buffers_peak", "%.0f", 16}, {"timing.row_buffer_waits", "%.0f", 16},
                                {"traffic.dram_bytes_read", "%.0f", 15}, {"traffic.dram_bytes_written", "%.0f", 18},
                                {"area.sram_required_bytes", "%.0f", 19}, {"area.sram_macros", "%.0f", 11},
                                {"area.total_mm2", "%.4f", 9},
                                {"energy.total_uj", "%.4g", 9}, {"energy.clock_uj", "%.4g", 9},
                                {"energy.leakage_uj", "%.4g", 10}, {"timing_closure.fmax_ghz", "%.3g", 8},
                                {"timing_closure.added_stages", "%.0f", 12}};
  if (numerics) {
    cols.push_back({"numerics.rel_l2_error", "%.4g", 12});
    cols.push_back({"numerics.max_ulp_error", "%.4g", 13});
  }
  return cols;
}
std::string leaf(const char* path) { return std::string(path).substr(std::string(path).find('.') + 1); }
}  // namespace

SweepLayout scan_sweep(const nlohmann::json& study, const PointSource& points) {
  SweepLayout l;
  const bool numerics = study["mode"] == "bit-accurate";
  const std::vector<std::string> objectives = objective_columns(study);
  std::vector<std::vector<double>> v;
  std::vector<size_t> ok;
  for (const auto& k : study["keys"]) l.key_widths.push_back(k.get<std::string>().size());
  points([&](const json& p) {
    const size_t i = v.size();
    v.emplace_back();
    size_t w = 0;
    for (const auto& k : study["keys"]) {
      const std::string t = p["point"].contains(k) ? value_text(p["point"][k]) : "-";
      l.key_widths[w] = std::max(l.key_widths[w], t.size());
      ++w;
    }
    if (p["status"] != "ok") return;
    const auto m = point_metrics(p, numerics);
    for (const auto& [name, x] : m)
      if (std::find(l.columns.begin(), l.columns.end(), name) == l.columns.end()) l.columns.push_back(name);
    if (objectives.empty()) return;
    for (const auto& c : objectives) {
      const auto it = std::find_if(m.begin(), m.end(), [&](const auto& e) { return e.first == c; });
      if (it == m.end()) throw std::out_of_range("point " + p["index"].dump() + " has no " + c);
      v[i].push_back(it->second);
    }
    ok.push_back(i);
  });
  std::stable_sort(l.columns.begin(), l.columns.end(), metric_before);
  if (!objectives.empty()) l.pareto = pareto_front(v, ok);
  l.points = v.size();
  return l;
}

std::string sweep_csv_header(const nlohmann::json& study, const SweepLayout& l) {
  std::string csv = "index";
  for (const auto& k : study["keys"]) csv += "," + csv_escape(k.get<std::string>());
  csv += ",status,reason";
  if (!study["objectives"].empty()) csv += ",pareto";
  for (const auto& c : l.columns) csv += "," + csv_escape(csv_column(c));
  return csv + "\n";
}

std::string sweep_csv_row(const nlohmann::json& study, const SweepLayout& l, const nlohmann::json& p) {
  std::string csv = std::to_string(p["index"].get<uint64_t>());
  for (const auto& k : study["keys"]) csv += "," + (p["point"].contains(k) ? csv_escape(value_text(p["point"][k])) : std::string());
  csv += "," + p["status"].get<std::string>() + "," + csv_escape(p.value("reason", ""));
  if (!study["objectives"].empty()) csv += "," + std::string(p.contains("pareto") ? (p["pareto"].get<bool>() ? "true" : "false") : "");
  std::map<std::string, double> m;
  if (p["status"] == "ok")
    for (const auto& [k, x] : point_metrics(p, study["mode"] == "bit-accurate")) m[k] = x;
  for (const auto& c : l.columns) csv += "," + (m.count(c) ? number(m[c]) : std::string());
  return csv + "\n";
}

std::string sweep_table_header(const nlohmann::json& study, const SweepLayout& l) {
  std::string t;
  char b[256];
  size_t i = 0;
  for (const auto& k : study["keys"]) t += k.get<std::string>() + std::string(l.key_widths[i++] - k.get<std::string>().size() + 2, ' ');
  if (!study["objectives"].empty()) t += "pareto  ";
  for (const auto& c : table_columns(study["mode"] == "bit-accurate")) {
    std::snprintf(b, sizeof b, "%*s  ", c.width, leaf(c.name).c_str());
    t += b;
  }
  return t + "\n";
}

std::string sweep_table_row(const nlohmann::json& study, const SweepLayout& l, const nlohmann::json& p) {
  std::string t;
  char b[256];
  size_t i = 0;
  for (const auto& k : study["keys"]) {
    const std::string v = p["point"].contains(k) ? value_text(p["point"][k]) : "-";
    t += v + std::string(l.key_widths[i++] - v.size() + 2, ' ');
  }
  if (!study["objectives"].empty()) t += std::string(p.contains("pareto") && p["pareto"].get<bool>() ? "*       " : "        ");
  if (p["status"] != "ok") return t + "infeasible: " + p["reason"].get<std::string>() + "\n";
  const bool numerics = study["mode"] == "bit-accurate";
  std::map<std::string, double> m;
  for (const auto& [k, x] : point_metrics(p, numerics)) m[k] = x;
  for (const auto& c : table_columns(numerics)) {
    char v[64] = "-";  // not reported for this design (an fp32 datapath has no timed RTL)
    if (m.count(c.name)) std::snprintf(v, sizeof v, c.format, m[c.name]);
    std::snprintf(b, sizeof b, "%*s  ", c.width, v);
    t += b;
  }
  return t + "\n";
}

void with_pareto(const nlohmann::json& study, const SweepLayout& l, size_t position, nlohmann::json& p) {
  if (!study["objectives"].empty() && p["status"] == "ok") p["pareto"] = static_cast<bool>(l.pareto.at(position));
}

namespace {
PointSource points_of(const json& sweep) {
  return [&sweep](const PointVisitor& visit) {
    for (const json& p : sweep["points"]) visit(p);
  };
}
}  // namespace

void mark_pareto(json& sweep) {
  const SweepLayout l = scan_sweep(sweep["study"], points_of(sweep));
  for (size_t i = 0; i < sweep["points"].size(); ++i) with_pareto(sweep["study"], l, i, sweep["points"][i]);
}

json sweep_json(const std::vector<std::string>& keys, const std::vector<std::string>& objectives, bool numerics,
                std::vector<json> points) {
  json s = {{"study", {{"keys", keys}, {"objectives", objectives}, {"mode", numerics ? "bit-accurate" : "timing-only"},
                       {"points", points.size()}}},
            {"points", std::move(points)}};
  mark_pareto(s);
  return s;
}

std::string sweep_csv(const json& sweep) {
  const SweepLayout l = scan_sweep(sweep["study"], points_of(sweep));
  std::string csv = sweep_csv_header(sweep["study"], l);
  for (const json& p : sweep["points"]) csv += sweep_csv_row(sweep["study"], l, p);
  return csv;
}

std::vector<std::string> compare_leads(const json& comparison) {
  std::vector<std::string> leads;
  if (comparison.contains("across"))  // compare --across: its keys first
    for (const json& k : comparison["across"]) leads.push_back(k.get<std::string>());
  for (const char* k : {"fuse", "param_grad"})
    for (const json& r : comparison["paths"])
      if (r.contains(k)) {
        leads.push_back(k);
        break;
      }
  return leads;
}

std::string compare_csv(const json& comparison) {
  std::vector<json> points;
  bool numerics = false;
  const std::vector<std::string> leads = compare_leads(comparison);
  for (const json& r : comparison["paths"]) {
    json p = {{"index", points.size()}, {"point", {{"path", r["path"]}}}};
    for (const std::string& lead : leads) p["point"][lead] = r.value(lead, std::string("-"));
    if (r.contains("infeasible")) {
      p["status"] = "infeasible";
      p["reason"] = r["infeasible"];
    } else {
      p["status"] = "ok";
      p["report"] = r;
      numerics |= r.contains("numerics");
    }
    points.push_back(std::move(p));
  }
  std::vector<std::string> keys = leads;
  keys.push_back("path");
  return sweep_csv(sweep_json(keys, {}, numerics, std::move(points)));
}

std::string sweep_table(const json& sweep) {
  const SweepLayout l = scan_sweep(sweep["study"], points_of(sweep));
  std::string t = sweep_table_header(sweep["study"], l);
  for (const json& p : sweep["points"]) t += sweep_table_row(sweep["study"], l, p);
  return t;
}

}  // namespace normsim::report
