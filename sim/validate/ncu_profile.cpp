#include "sim/validate/ncu_profile.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>

#include "sim/config/config_error.hpp"
#include "sim/validate/golden.hpp"

namespace normsim::validate {

namespace {

constexpr std::string_view kStallPrefix = "smsp__average_warps_issue_stalled_";
constexpr std::string_view kStallSuffix = "_per_issue_active.ratio";
constexpr std::string_view kOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr std::string_view kIssue = "smsp__issue_active.avg.pct_of_peak_sustained_active";
constexpr std::string_view kDram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr std::string_view kLatency = "smsp__average_warp_latency_per_inst_issued.ratio";
// Local-memory (spill) sectors, loads and stores: optional, 32 bytes each.
constexpr std::string_view kLocalLoad = "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum";
constexpr std::string_view kLocalStore = "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum";
// Recorded and not used here.
constexpr std::string_view kKept[] = {"l1tex__throughput.avg.pct_of_peak_sustained_active",
                                      "lts__throughput.avg.pct_of_peak_sustained_elapsed"};

std::string allowed_metrics() {
  std::string s = "duration_ns, inst_executed, " + std::string(kOccupancy) + ", " + std::string(kIssue) + ", " +
                  std::string(kDram) + ", " + std::string(kLatency) + ", " + std::string(kLocalLoad) + ", " +
                  std::string(kLocalStore);
  for (std::string_view k : kKept) s += ", " + std::string(k);
  return s + ", " + std::string(kStallPrefix) + "<reason>" + std::string(kStallSuffix);
}

}  // namespace

NcuProfiles parse_ncu_profile(const std::string& text, const std::string& file) {
  const nlohmann::json j = parse_golden_json(text, file);
  auto fail = [&](const std::string& key, const std::string& problem, const std::string& allowed) {
    throw config::ConfigError(config::format_config_error(file, 0, key, problem, allowed));
  };
  if (!j.is_object()) fail("(top level)", "expected an object of cases, got " + std::string(j.type_name()), "{case id: {metric: value}}");
  NcuProfiles out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& id = it.key();
    const nlohmann::json& c = it.value();
    if (!c.is_object()) fail(id, "expected an object of metrics, got " + c.dump(), "{metric: value}");
    NcuProfile p;
    std::array<double, simt::kWarpStates> stalls{};
    bool any_stall = false, occupancy = false, issue = false, dram = false;
    double local_sectors = NAN;
    for (auto m = c.begin(); m != c.end(); ++m) {
      const std::string& name = m.key();
      const std::string path = id + "." + name;
      if (!m.value().is_number()) fail(path, "expected a number, got " + m.value().dump(), "a finite number >= 0");
      const double v = m.value().get<double>();
      const bool percent = name.find("pct_of_peak") != std::string::npos;
      if (!std::isfinite(v) || v < 0 || (percent && v > 100))
        fail(path, "value " + m.value().dump() + " out of range", percent ? "0..100" : "a finite number >= 0");
      const std::string_view n = name;
      if (n == "duration_ns") p.duration_ns = v;
      else if (n == "inst_executed") p.inst_executed = v;
      else if (n == kOccupancy) occupancy = true, p.warps.achieved_occupancy = v / 100;
      else if (n == kIssue) issue = true, p.warps.issue_active = v / 100;
      else if (n == kDram) dram = true, p.warps.dram_throughput = v / 100;
      else if (n == kLatency) p.warps.warp_cycles_per_issue = v;
      else if (n == kLocalLoad || n == kLocalStore) local_sectors = (std::isnan(local_sectors) ? 0 : local_sectors) + v;
      else if (std::find(std::begin(kKept), std::end(kKept), n) != std::end(kKept)) continue;
      else if (n.size() > kStallPrefix.size() + kStallSuffix.size() && n.substr(0, kStallPrefix.size()) == kStallPrefix &&
               n.substr(n.size() - kStallSuffix.size()) == kStallSuffix) {
        const std::string_view reason = n.substr(kStallPrefix.size(), n.size() - kStallPrefix.size() - kStallSuffix.size());
        const auto s = simt::warp_state_of_ncu_reason(reason);
        if (!s) fail(path, "unknown stall reason '" + std::string(reason) + "'", "ncu's sm_90 warp stall reasons");
        stalls[static_cast<size_t>(*s)] += v;
        any_stall = true;
      } else {
        fail(path, "unknown metric", allowed_metrics());
      }
    }
    if (!occupancy) fail(id + "." + std::string(kOccupancy), "missing", "the achieved occupancy in %");
    if (!issue) fail(id + "." + std::string(kIssue), "missing", "the issue activity in %");
    if (!dram) fail(id + "." + std::string(kDram), "missing", "the DRAM throughput in %");
    double sum = 0;
    for (double s : stalls) sum += s;
    if (!any_stall || sum <= 0) fail(id, "no stall reason with a positive ratio", std::string(kStallPrefix) + "<reason>" + std::string(kStallSuffix));
    for (size_t i = 0; i < simt::kWarpStates; ++i) p.warps.share[i] = stalls[i] / sum;
    p.warps.local_memory_bytes = 32 * local_sectors;
    out.emplace(id, p);
  }
  return out;
}

NcuProfiles load_ncu_profile(const std::string& dir) {
  const std::string file = (std::filesystem::path(dir) / "ncu_profile.json").string();
  if (!std::filesystem::exists(file)) return {};
  return parse_ncu_profile(read_golden_file(file, "ncu's golden profile (GOLDEN_DIR/ncu_profile.json)"), file);
}

}  // namespace normsim::validate
