#include "sim/report/widths_report.hpp"

#include <algorithm>
#include <cstdio>

#include "sim/report/run_report.hpp"

namespace normsim::report {

namespace {
using nlohmann::json;
using explore::WidthMetrics;

std::string fmt_text(const core::FixedFormat& f) {
  return std::string(f.is_signed ? "s" : "u") + std::to_string(f.total_bits) + "." + std::to_string(f.frac_bits);
}

json metrics_json(const WidthMetrics& m, const explore::WidthSearchResult& r) {
  json o = json::object();
  for (size_t s = 0; s < m.overflows.size(); ++s)
    if (m.overflows[s]) o[r.names[s]] = m.overflows[s];
  json held = json::object();
  for (size_t k = 0; k < m.held.size() && k < r.held_names.size(); ++k) held[r.held_names[k]] = json_number(m.held[k]);
  return {{"held", held},
          {"max_ulp_error", json_number(m.max_ulp)},
          {"rel_l2_error", json_number(m.rel_l2)},
          {"max_abs_error", json_number(m.max_abs)},
          {"rms_error", json_number(m.rms)},
          {"frac_within_1ulp", m.frac_within_1ulp},
          {"nonfinite_outputs", m.nonfinite},
          {"overflow", o}};
}

json formats_json(const explore::SearchFormats& f, const std::vector<int>& stages, const std::vector<std::string>& names) {
  json j = json::object();
  for (int s : stages) {
    const auto& x = f[static_cast<size_t>(s)];
    j[names[static_cast<size_t>(s)]] = {{"bits", x.total_bits}, {"frac", x.frac_bits}, {"signed", x.is_signed}};
  }
  return j;
}

// The stages a report lists: the searched ones and those kept uncosted, in data-flow order.
std::vector<int> shown_stages(const explore::WidthSearchResult& r) {
  std::vector<int> shown = r.stages;
  shown.insert(shown.end(), r.uncosted.begin(), r.uncosted.end());
  std::sort(shown.begin(), shown.end());
  return shown;
}

std::string g(double v, const char* f = "%.4g") {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
}  // namespace

json widths_json(const explore::WidthSearchResult& r, const std::vector<explore::WidthTarget>& targets) {
  json t = json::array();
  for (const auto& x : targets) t.push_back({{"metric", explore::metric_name(x.metric)}, {"at_most", x.at_most}, {"value", x.value}});
  auto name = [&](int s) { return r.names[static_cast<size_t>(s)]; };
  json stages = json::array();
  for (int s : r.stages) stages.push_back(name(s));
  json evals = json::array();
  for (const auto& e : r.evaluations)
    evals.push_back({{"index", e.index},
                     {"round", e.round},
                     {"phase", e.phase},
                     {"move", e.move},
                     {"rows", e.rows},
                     {"datapath_mm2", e.datapath_um2 * 1e-6},
                     {"meets", e.meets},
                     {"error", e.error},
                     {"refused", e.refused},
                     {"metrics", metrics_json(e.metrics, r)},
                     {"formats", formats_json(e.formats, r.stages, r.names)}});
  const std::vector<int> shown = shown_stages(r);
  json uncosted = json::array();
  for (int s : r.uncosted) uncosted.push_back(name(s));
  json guards = json::array();
  for (const auto& x : r.guards)
    guards.push_back({{"name", x.name}, {"model", x.model}, {"hidden", x.hidden}, {"rows", x.rows},
                      {"chosen_all_rows", metrics_json(x.chosen, r)}});
  return {{"targets", t},
          {"formats_key", r.key},
          {"stages", stages},
          {"uncosted_stages", uncosted},
          {"guards", guards},
          {"margin_bits", r.margin_bits},
          {"node", r.node},
          {"ulp_lsb", r.ulp_floor},
          {"start", {{"formats", formats_json(r.start, shown, r.names)}, {"datapath_mm2", r.start_um2 * 1e-6},
                     {"meets", r.start_meets}, {"all_rows", metrics_json(r.start_all_rows, r)}}},
          {"chosen", {{"formats", formats_json(r.chosen, shown, r.names)}, {"datapath_mm2", r.chosen_um2 * 1e-6},
                      {"all_rows", metrics_json(r.chosen_all_rows, r)}}},
          {"datapath_mm2_saved", (r.start_um2 - r.chosen_um2) * 1e-6},
          {"datapath_saved_fraction", r.start_um2 > 0 ? (r.start_um2 - r.chosen_um2) / r.start_um2 : 0.0},
          {"evaluations", evals}};
}

std::string widths_csv(const explore::WidthSearchResult& r) {
  std::string c = "index,round,phase,move,rows,datapath_mm2,meets,error,refused,overflow_total,max_ulp_error,rel_l2_error,max_abs_error,rms_error,frac_within_1ulp";
  for (int s : r.stages) {
    const std::string& n = r.names[static_cast<size_t>(s)];
    c += "," + n + ".bits," + n + ".frac";
  }
  c += "\n";
  for (const auto& e : r.evaluations) {
    const auto& m = e.metrics;
    c += std::to_string(e.index) + "," + std::to_string(e.round) + "," + e.phase + "," + csv_escape(e.move) + "," + std::to_string(e.rows) +
         "," + g(e.datapath_um2 * 1e-6, "%.9g") + "," + (e.meets ? "true" : "false") + "," + csv_escape(e.error) + "," + csv_escape(e.refused) + "," + std::to_string(m.overflow_total()) + "," +
         g(m.max_ulp, "%.9g") + "," + g(m.rel_l2, "%.9g") + "," + g(m.max_abs, "%.9g") + "," + g(m.rms, "%.9g") + "," +
         g(m.frac_within_1ulp, "%.9g");
    for (int s : r.stages) {
      const auto& f = e.formats[static_cast<size_t>(s)];
      c += "," + std::to_string(f.total_bits) + "," + std::to_string(f.frac_bits);
    }
    c += "\n";
  }
  return c;
}

std::string widths_table(const explore::WidthSearchResult& r, const std::vector<explore::WidthTarget>& targets) {
  std::string t = "normsim widths: targets";
  for (const auto& x : targets) t += " " + x.text;
  t += r.key == "backward_formats"
           ? "; dx in ULPs of max(" + g(r.ulp_floor) + ", its dtype's ulp at |ref|), dgamma and dbeta held at the start's errors; "
           : "; ULPs of max(" + g(r.ulp_floor) + ", the output dtype's ulp at |ref|); ";
  t += std::to_string(r.evaluations.size()) + " evaluations\n";
  if (r.guards.empty()) {
    t += "held on the workload alone (--guard none)\n";
  } else {
    // The set as a cross: its row lengths and its input models.
    std::vector<int64_t> lengths;
    std::vector<std::string> models;
    for (const auto& x : r.guards) {
      if (std::find(lengths.begin(), lengths.end(), x.hidden) == lengths.end()) lengths.push_back(x.hidden);
      if (std::find(models.begin(), models.end(), x.model) == models.end()) models.push_back(x.model);
    }
    std::sort(lengths.begin(), lengths.end());
    t += "held on the workload and " + std::to_string(r.guards.size()) + " guards of " + std::to_string(r.guards.front().rows) +
         " rows: C";
    for (size_t i = 0; i < lengths.size(); ++i) t += (i ? ", " : " ") + std::to_string(lengths[i]);
    t += " x inputs";
    for (size_t i = 0; i < models.size(); ++i) t += (i ? ", " : " ") + (models[i] == "own" ? std::string("the workload's") : models[i]);
    t += "\n";
  }
  if (!r.uncosted.empty()) {
    t += "kept as the arch has them (their width costs no area here):";
    for (int s : r.uncosted) t += " " + r.names[static_cast<size_t>(s)];
    t += "\n";
  }
  if (r.margin_bits) t += "margin: +" + std::to_string(r.margin_bits) + " integer and fraction bits on every searched stage\n";
  t += "\n";
  char b[256];
  std::snprintf(b, sizeof b, "%-10s %10s %10s   (%s)\n", "stage", "start", "chosen", r.key.c_str());
  t += b;
  const std::vector<int> shown = shown_stages(r);
  for (int s : shown) {
    const auto& a = r.start[static_cast<size_t>(s)];
    const auto& c = r.chosen[static_cast<size_t>(s)];
    const bool kept = std::find(r.uncosted.begin(), r.uncosted.end(), s) != r.uncosted.end();
    std::snprintf(b, sizeof b, "%-10s %10s %10s%s%s\n", r.names[static_cast<size_t>(s)].c_str(), fmt_text(a).c_str(),
                  fmt_text(c).c_str(), a == c ? "" : "  *", kept ? (a == c ? "  (not searched)" : "  (widened: it overflowed)") : "");
    t += b;
  }
  t += "\n";
  std::snprintf(b, sizeof b, "%-22s %14s %14s\n", "", "start", "chosen");
  t += b;
  auto row = [&](const char* name, const std::string& a, const std::string& c) {
    std::snprintf(b, sizeof b, "%-22s %14s %14s\n", name, a.c_str(), c.c_str());
    t += b;
  };
  const auto &ms = r.start_all_rows, &mc = r.chosen_all_rows;
  row(("datapath_mm2 (" + r.node + ")").c_str(), g(r.start_um2 * 1e-6, "%.5f"), g(r.chosen_um2 * 1e-6, "%.5f"));
  row("max_ulp_error", g(ms.max_ulp), g(mc.max_ulp));
  row("rel_l2_error", g(ms.rel_l2), g(mc.rel_l2));
  row("max_abs_error", g(ms.max_abs), g(mc.max_abs));
  row("frac_within_1ulp", g(ms.frac_within_1ulp, "%.6f"), g(mc.frac_within_1ulp, "%.6f"));
  for (size_t k = 0; k < r.held_names.size() && k < ms.held.size() && k < mc.held.size(); ++k)
    row((r.held_names[k] + " (held)").c_str(), g(ms.held[k]), g(mc.held[k]));
  row("overflows", std::to_string(ms.overflow_total()), std::to_string(mc.overflow_total()));
  t += "  (the worst of every row of the workload and the guards' rows)\n";
  row("meets the targets", r.start_meets ? "yes" : "no", "yes");
  if (!r.guards.empty()) {
    // Each guard's figures for the choice, the worst by the first target's metric.
    const explore::WidthTarget::Metric m = targets.empty() ? explore::WidthTarget::Metric::max_ulp : targets.front().metric;
    const std::string metric = explore::metric_name(m);
    t += "\nthe choice on each guard (all its rows):\n";
    size_t worst = 0;
    for (size_t i = 0; i < r.guards.size(); ++i) {
      const auto& x = r.guards[i];
      const double v = explore::metric_value(x.chosen, m), vw = explore::metric_value(r.guards[worst].chosen, m);
      if (targets.empty() || (targets.front().at_most ? v > vw : v < vw)) worst = i;
      std::snprintf(b, sizeof b, "  %-40s %s %-10s overflows %s\n", x.name.c_str(), metric.c_str(), g(v).c_str(),
                    std::to_string(x.chosen.overflow_total()).c_str());
      t += b;
    }
    t += "  worst: " + r.guards[worst].name + " (" + metric + " " + g(explore::metric_value(r.guards[worst].chosen, m)) + ")\n";
  }
  t += "\ndatapath area saved: " + g((r.start_um2 - r.chosen_um2) * 1e-6, "%.5f") + " mm2 (" +
       g(r.start_um2 > 0 ? 100 * (r.start_um2 - r.chosen_um2) / r.start_um2 : 0.0, "%.1f") + "% of the start)\n";
  return t;
}

}  // namespace normsim::report
