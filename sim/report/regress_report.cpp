#include "sim/report/regress_report.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "sim/simt/warp_state.hpp"

namespace normsim::report {

namespace {
using nlohmann::json;

double num(const json& v) { return v.get<double>(); }
size_t count(const json& v) { return v.get<size_t>(); }
const char* str(const json& v) { return v.get_ref<const std::string&>().c_str(); }
// A ulp count that may be "inf" (a non-finite output).
double ulp(const json& v) { return v.is_string() ? HUGE_VAL : v.get<double>(); }
std::string ulp_text(const json& v) { return v.is_string() ? v.get<std::string>() : std::to_string(v.get<double>()); }
}  // namespace

std::string regress_report_text(const json& r) {
  std::string out;
  char b[512];
  const json& th = r["thresholds"];
  auto row = [&](const std::string& name, const json& s) {
    std::snprintf(b, sizeof b, "%-20s %5zu %9.1f%% %9.1f%% %9.1f%% %9.1f%% %9.1f%% %8.3f\n", name.c_str(), count(s["cases"]),
                  100 * num(s["dram_read_mae"]), 100 * num(s["dram_read_max_rel_error"]), 100 * num(s["dram_write_mae"]),
                  100 * num(s["l2_bytes_mae"]), 100 * num(s["duration_mae"]), num(s["duration_corr"]));
    out += b;
  };
  std::snprintf(b, sizeof b, "%-20s %5s %10s %10s %10s %10s %10s %8s\n", "kernel / set", "cases", "read MAE", "read max",
                "write MAE", "L2 MAE", "time MAE", "time r");
  out += b;
  for (const auto& [k, s] : r["per_kernel"].items()) row(k, s);
  out += "\n";
  row("all", r["summary"]);
  row("training", r["training"]);
  row("held-out", r["held_out"]);
  out += "\nby DRAM-read elasticity (% DRAM bytes read per % of x in flight):\n";
  for (const json& band : r["by_dram_read_elasticity"]) {
    row(band["band"], band["summary"]);
    std::snprintf(b, sizeof b, "%-20s %5s DRAM read within %.0f%%: %zu of %zu\n", "", "",
                  100 * num(th["dram_read_firm_max_rel_error"]), count(band["dram_read_within_target"]),
                  count(band["summary"]["cases"]));
    out += b;
  }
  out += "\nranges (measured inside the predicted range; median width relative to the prediction):\n";
  std::snprintf(b, sizeof b, "%-20s %5s %17s %17s %17s %17s\n", "set", "cases", "DRAM read", "DRAM write", "L2 bytes",
                "duration");
  out += b;
  auto range_row = [&](const std::string& name, const json& s) {
    auto cell = [](const json& x) {
      char c[64];
      std::snprintf(c, sizeof c, "%5.1f%% w %5.1f%%", 100 * num(x["coverage"]), 100 * num(x["median_rel_width"]));
      return std::string(c);
    };
    const json& g = s["ranges"];
    std::snprintf(b, sizeof b, "%-20s %5zu %17s %17s %17s %17s\n", name.c_str(), count(s["cases"]),
                  cell(g["dram_bytes_read"]).c_str(), cell(g["dram_bytes_written"]).c_str(), cell(g["l2_bytes"]).c_str(),
                  cell(g["duration_us"]).c_str());
    out += b;
  };
  range_row("training", r["training"]);
  range_row("held-out", r["held_out"]);
  for (const json& band : r["by_dram_read_elasticity"]) range_row(band["band"], band["summary"]);
  out += "\nwarp states against ncu's Warp State Statistics (mean |predicted - measured| share per state; agreement "
         "of the largest state and of the limiter):\n";
  std::snprintf(b, sizeof b, "%-20s %5s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %8s %8s\n", "kernel / set", "cases", "sel",
                "n_sel", "long", "short", "mio", "lg", "bar", "wait", "drain", "other", "dominant", "limiter");
  out += b;
  auto warp_row = [&](const std::string& name, const json& w) {
    if (count(w["cases"]) == 0) return;
    int n = std::snprintf(b, sizeof b, "%-20s %5zu", name.c_str(), count(w["cases"]));
    // The states in their table's order (the JSON object's is by name).
    for (const simt::WarpStateInfo& i : simt::kWarpStateInfo)
      n += std::snprintf(b + n, sizeof b - n, " %6.3f", num(w["share_mad"][std::string(i.name)]));
    std::snprintf(b + n, sizeof b - n, " %7.1f%% %7.1f%%\n", 100 * num(w["dominant_agreement"]), 100 * num(w["limiter_agreement"]));
    out += b;
  };
  for (const auto& [k, s] : r["per_kernel"].items()) warp_row(k, s["warp_states"]);
  out += "\n";
  const json& all_warps = r["summary"]["warp_states"];
  warp_row("all", all_warps);
  warp_row("training", r["training"]["warp_states"]);
  warp_row("held-out", r["held_out"]["warp_states"]);
  std::snprintf(b, sizeof b, "  occupancy, issue activity and DRAM throughput off by %.3f, %.3f and %.3f of peak on average\n",
                num(all_warps["achieved_occupancy_mad"]), num(all_warps["issue_active_mad"]), num(all_warps["dram_throughput_mad"]));
  out += b;
  std::snprintf(b, sizeof b,
                "  thresholds: dominant state >= %.0f%%, limiter >= %.0f%% (gating); every state's share within %.2f "
                "(a target, reported)\n",
                100 * num(th["warp_dominant_agreement"]), 100 * num(th["limiter_agreement"]), num(th["warp_share_mad"]));
  out += b;
  for (const json& m : r["warp_state_misses"]) out += "  missed: " + m.get<std::string>() + "\n";
  out += "\noutputs (emulated fp32 arithmetic against the GPU's .npy files):\n";
  for (const json& c : r["cases"]) {
    const json& o = c["outputs"];
    if (o.is_null()) continue;
    const char* id = str(c["id"]);
    if (!o["error"].is_null()) std::snprintf(b, sizeof b, "  %-48s error: %s\n", id, str(o["error"]));
    else if (o["bit_exact"].get<bool>() && num(o["order_free_max_ulp"]) > 0)
      std::snprintf(b, sizeof b, "  %-48s bit-exact (dgamma/dbeta by atomics: %.3g ulp from block order)\n", id,
                    num(o["order_free_max_ulp"]));
    else if (o["bit_exact"].get<bool>()) std::snprintf(b, sizeof b, "  %-48s bit-exact\n", id);
    else
      std::snprintf(b, sizeof b, "  %-48s %llu entries differ, max %.3g ulp\n", id,
                    static_cast<unsigned long long>(o["elements_differing"].get<uint64_t>()), ulp(o["max_ulp"]));
    out += b;
  }
  std::snprintf(b, sizeof b, "  %zu of %zu compared cases bit-exact\n", count(r["summary"]["bit_exact_cases"]),
                count(r["summary"]["outputs_compared"]));
  out += b;
  out += "\nasic_cases (the ASIC datapath configured as the kernel, against the GPU's outputs):\n";
  for (const json& a : r["asic_cases"]) {
    const json& o = a["outputs"];
    if (!o["error"].is_null())
      std::snprintf(b, sizeof b, "  %-48s %s: error: %s\n", str(a["id"]), str(a["arch"]), str(o["error"]));
    else
      std::snprintf(b, sizeof b, "  %-48s %s (%d lanes, %s): %s%s\n", str(a["id"]), str(a["arch"]), a["lanes"].get<int>(),
                    str(a["merge_order"]),
                    o["bit_exact"].get<bool>()
                        ? "bit-exact"
                        : (std::to_string(o["elements_differing"].get<uint64_t>()) + " of " +
                           std::to_string(o["elements_compared"].get<uint64_t>()) + " differ, max " + ulp_text(o["max_ulp"]) + " ulp")
                              .c_str(),
                    !o["parameter_order_free"].get<bool>() ? ""
                    : num(o["order_free_max_ulp"]) == 0
                        ? " (dgamma/dbeta by atomics: the GPU's order matched the datapath's)"
                        : (" (dgamma/dbeta by atomics in no fixed order: up to " + std::to_string(num(o["order_free_max_ulp"])) +
                           " ulp from the datapath's block order)")
                              .c_str());
    out += b;
  }
  std::snprintf(b, sizeof b, "  %zu of %zu cases bit-exact\n", count(r["asic_summary"]["bit_exact_cases"]),
                count(r["asic_summary"]["cases"]));
  out += b;
  out += "\nasic_traffic (the mapped ASIC path's DRAM identities against ncu; gap = measured / closed form - 1):\n";
  for (const json& t : r["asic_traffic"]) {
    std::snprintf(b, sizeof b, "  %-40s %-11s read %+6.1f%% (%s); written %+6.1f%% (%s)\n", str(t["id"]), str(t["path"]),
                  100 * num(t["read_gap"]), str(t["read_cause"]), 100 * num(t["write_gap"]), str(t["write_cause"]));
    out += b;
    const json& l2 = t["with_l2"];
    std::snprintf(b, sizeof b,
                  "  %-40s with L1 and L2 (%.0f rows in flight, re-read hit L1 %.2f, L2 %.2f): read %+6.1f%%, written %+6.1f%% of measured\n",
                  "", num(l2["rows_in_flight"]), num(l2["l1_reread_hit"]), num(l2["reread_hit"]), 100 * num(l2["read_rel_error"]),
                  100 * num(l2["write_rel_error"]));
    out += b;
  }
  const json& ts = r["asic_traffic_summary"];
  std::snprintf(b, sizeof b, "  with the L2: %zu of %zu cases read within 5%% of ncu (MAE %.1f%%, max %.1f%%)\n",
                count(ts["read_within_5pct"]), count(ts["cases"]), 100 * num(ts["read_mae"]), 100 * num(ts["read_max_rel_error"]));
  out += b;
  out += "\nfixed_point_cases (fixed16 on the golden inputs against the GPU's fp32 outputs):\n";
  for (const json& f : r["fixed_point_cases"]) {
    if (!f["error"].is_null())
      std::snprintf(b, sizeof b, "  %-48s error: %s\n", str(f["id"]), str(f["error"]));
    else
      std::snprintf(b, sizeof b, "  %-48s rel L2 %.3g, max abs %.3g (output lsb %.3g), overflows: input %llu, other %llu\n",
                    str(f["id"]), num(f["rel_l2_error_vs_gpu"]), num(f["max_abs_error_vs_gpu"]), num(f["output_lsb"]),
                    static_cast<unsigned long long>(f["input_overflows"].get<uint64_t>()),
                    static_cast<unsigned long long>(f["other_overflows"].get<uint64_t>()));
    out += b;
  }
  std::snprintf(b, sizeof b,
                "\nthresholds: DRAM read within %.0f%% on every firm case, inside its range on every training case and %.0f%% of "
                "the held-out; duration "
                "MAE <= %.0f%% and r >= %.2f on training and held-out; outputs bit-exact; no case %.0f point(s) worse "
                "than %s: %s\n",
                100 * num(th["dram_read_firm_max_rel_error"]), 100 * num(th["held_out_range_coverage"]),
                100 * num(th["duration_mae"]), num(th["duration_corr"]), 100 * num(th["baseline_slack"]),
                r["baseline"].is_null() ? "a baseline (none given)" : str(r["baseline"]),
                r["pass_models"].get<bool>() ? "pass" : "FAIL");
  out += b;
  for (const json& f : r["failures"]) out += "  FAIL: " + f.get<std::string>() + "\n";
  out += "\nasic_time (the ASIC model as the GPU, timing only, at the SM clock, against ncu's duration):\n";
  for (const json& t : r["asic_time"]) {
    std::snprintf(b, sizeof b, "  %-40s asic %9.1f us, measured %9.1f us: %+6.1f%%\n", str(t["id"]), num(t["asic_us"]),
                  num(t["measured_us"]), 100 * num(t["rel_error"]));
    out += b;
  }
  const json& at = r["asic_time_summary"];
  std::snprintf(b, sizeof b, "  %zu cases, mean absolute error %.1f%% (threshold %.0f%%)\n", count(at["cases"]),
                100 * num(at["mae"]), 100 * num(at["threshold_mae"]));
  out += b;
  return out;
}

}  // namespace normsim::report
