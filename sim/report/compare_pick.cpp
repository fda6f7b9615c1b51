#include "sim/report/compare_pick.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

#include "sim/report/sweep_report.hpp"
#include "sim/report/text_format.hpp"

namespace normsim::report {

namespace {
using json = nlohmann::json;

bool feasible(const json& r) { return !r.contains("infeasible"); }
double cycles(const json& r) { return r["timing"]["cycles"].get<double>(); }
double sram_bytes(const json& r) { return r["area"]["sram_required_bytes"].get<double>(); }

// The mode's order, as compare's searches rank their candidates.
auto key(const json& r, bool target) {
  const double c = cycles(r), a = r["area"]["total_mm2"].get<double>(), e = r["energy"]["total_uj"].get<double>();
  return target ? std::tuple{sram_bytes(r), c, a, e} : std::tuple{c, a, e, 0.0};
}

// The resource whose busy cycles are the most: the lower bound's.
std::pair<std::string, double> busiest(const json& t) {
  std::string name;
  double most = -1;
  for (const auto& [unit, busy] : t["busy_cycles"].items())
    if (busy.get<double>() > most) {
      most = busy.get<double>();
      name = unit;
    }
  return {name, most};
}

// What binds a design: the busiest resource when it runs within 1% of its
// lower bound, else the largest stall; and in a search, the SRAM it was given.
std::string why(const json& r, const std::string& mode) {
  const json& t = r["timing"];
  const auto [unit, busy] = busiest(t);
  const double over = t["cycles_over_lower_bound"].get<double>();
  std::string s;
  if (over <= 1.01) {
    s = unit + " binds (busy " + strprintf("%.1f", 100 * busy / cycles(r)) + "% of the cycles, " + strprintf("%.4f", over) +
        " x the lower bound)";
  } else {
    std::string stall;
    double most = 0;
    for (const auto& [kind, n] : t["stall_cycles"].items())
      if (n.get<double>() > most) {
        most = n.get<double>();
        stall = kind;
      }
    s = strprintf("%.4f", over) + " x the lower bound (" + unit + " busy " + strprintf("%.1f", 100 * busy / cycles(r)) + "%)" +
        (stall.empty() ? std::string() : ", most stalls " + stall + " (" + strprintf("%.0f", most) + " cycles)");
  }
  if (r.contains("fit") && mode == "sram_budget") {
    const int rows = r["fit"]["rows_in_flight"].get<int>(), most_rows = r["fit"].value("rows_that_fit", 0);
    const int searched = r["fit"].value("rows_searched", 0);
    s += rows >= most_rows ? "; the budget binds: it holds " + std::to_string(most_rows) + " rows in flight"
                           : "; " + std::to_string(rows) + " of the " + std::to_string(most_rows) +
                                 " rows in flight the budget holds (none with more is faster" +
                                 (searched > 0 && searched < most_rows
                                      ? "; past " + std::to_string(searched) + " the schedule is the same)"
                                      : ")");
  } else if (mode == "target_cycles") {
    s += "; the least SRAM that meets the target";
  }
  return s;
}

// The best feasible row among `rows` (indices into paths), or -1.
int best(const json& paths, const std::vector<int>& rows, bool target) {
  int b = -1;
  for (int i : rows)
    if (feasible(paths[i]) && (b < 0 || key(paths[i], target) < key(paths[b], target))) b = i;
  return b;
}

std::string design(const json& r, const std::vector<std::string>& leads) {
  std::string d;
  for (const std::string& lead : leads) d += lead + " " + r.value(lead, std::string("-")) + ", ";
  const json& asic = r["arch"]["asic"];
  d += r["path"].get<std::string>() + " at " + std::to_string(asic["rows_in_flight"].get<int>()) + " rows in flight";
  if (r["path"] == "partial-replay") d += strprintf(", f %.4g", asic["replay_fraction"].get<double>());
  return d;
}
}  // namespace

json compare_picks(const json& comparison) {
  const json& paths = comparison["paths"];
  const std::string mode = comparison.value("mode", "configured");
  const bool target = mode == "target_cycles";
  json picks = json::array();
  auto add = [&](const std::string& of, const std::vector<int>& rows) {
    const int b = best(paths, rows, target);
    if (b >= 0) picks.push_back({{"of", of}, {"row", b}, {"path", paths[b]["path"]}, {"why", why(paths[b], mode)}});
  };
  std::vector<int> all(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) all[i] = static_cast<int>(i);
  add("all", all);
  if (picks.empty()) return picks;
  // Each path, then each value of each lead, in the order the rows first name them.
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  auto group = [&](const std::string& name, int i) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == name; });
    if (g == groups.end()) groups.push_back({name, {i}});
    else g->second.push_back(i);
  };
  for (int i : all) group("path " + paths[i]["path"].get<std::string>(), i);
  for (const std::string& lead : compare_leads(comparison))
    for (int i : all) group(lead + " " + paths[i].value(lead, std::string("-")), i);
  for (const auto& [name, rows] : groups) add(name, rows);
  return picks;
}

std::string compare_picks_text(const json& comparison) {
  const json picks = comparison.contains("picks") ? comparison["picks"] : compare_picks(comparison);
  if (picks.empty()) return "\nno design is feasible\n";
  const json& paths = comparison["paths"];
  const std::string mode = comparison.value("mode", "configured");
  const std::vector<std::string> leads = compare_leads(comparison);
  std::string o = std::string("\npicks (") +
                  (mode == "target_cycles" ? "the least SRAM that meets the target, then the fewest cycles, area, energy"
                                           : "the fewest cycles, then area, energy") +
                  "):\n";
  size_t width = 0;
  for (const json& p : picks) width = std::max(width, p["of"].get<std::string>().size());
  for (const json& p : picks) {
    const json& r = paths[p["row"].get<size_t>()];
    o += strprintf("  %-*s %s: %s cycles, %s B; %s\n", static_cast<int>(width), p["of"].get<std::string>().c_str(),
                   design(r, leads).c_str(), strprintf("%.15g", cycles(r)).c_str(), strprintf("%.0f", sram_bytes(r)).c_str(),
                   p["why"].get<std::string>().c_str());
  }
  return o;
}

}  // namespace normsim::report
