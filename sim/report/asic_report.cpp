#include "sim/report/asic_report.hpp"

#include "sim/report/compare_pick.hpp"
#include "sim/report/sweep_report.hpp"

#include "sim/report/text_format.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "sim/area/run_costs.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/report/run_report.hpp"

namespace normsim::report {

using nlohmann::json;

namespace {
json stat_json(const core::Stat& s) {
  return s.integer ? json(static_cast<uint64_t>(s.value)) : json(s.value);
}

// The units' counters, emitted by their names: "busy_cycles" (and the
// utilization it implies), "stall_cycles.<cause>" per unit and summed over
// the units, "bytes.<kind>" of the DRAM.
struct UnitTiming {
  json stall_total = json::object(), stall_by_unit = json::object(), busy = json::object(), utilization = json::object();
  json dram_bytes_by_kind = json::object();
};
UnitTiming unit_timing(const std::vector<core::StatSet>& units, double cycles) {
  UnitTiming t;
  const std::string stall = "stall_cycles.", bytes = "bytes.";
  for (const core::StatSet& u : units) {
    json mine = json::object();
    double total = 0;
    for (const core::Stat& s : u.stats) {
      if (s.name == "busy_cycles") {
        t.busy[u.unit] = s.value;
        t.utilization[u.unit] = s.value / cycles;
      } else if (s.name.rfind(stall, 0) == 0) {
        const std::string cause = s.name.substr(stall.size());
        mine[cause] = s.value;
        total += s.value;
        t.stall_total[cause] = (t.stall_total.contains(cause) ? t.stall_total[cause].get<double>() : 0.0) + s.value;
      } else if (u.unit == "dram" && s.name.rfind(bytes, 0) == 0) {
        t.dram_bytes_by_kind[s.name.substr(bytes.size())] = stat_json(s);
      }
    }
    if (!mine.empty()) {
      mine["total"] = total;
      t.stall_by_unit[u.unit] = mine;
    }
  }
  return t;
}
std::string num(double v, const char* f = "%.4g") {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
// The design's area at the arch's node, as the run report shows it.
json area_json(const area::RunCosts& rc, const config::AsicConfig& c) {
  const area::AreaReport& ar = rc.area;
  json units = json::object();
  for (const auto& u : ar.units)
    units[u.unit] = {{"um2", u.um2}, {"gate_equivalents", u.ge}, {"table_bits", u.table_bits}, {"flip_flops", u.flip_flops}};
  const double bank_bytes = ar.sram_macros > 0 ? ar.sram_bytes / ar.sram_macros : 0.0;
  const auto nt = *area::node_table(c.node);
  return {{"node", c.node}, {"total_mm2", ar.total_mm2()}, {"sram_mm2", ar.sram_um2 * 1e-6},
          {"datapath_mm2", ar.datapath_um2 * 1e-6}, {"sram_required_bytes", rc.sram_required_bytes},
          {"sram_costed", rc.sram_at_capacity ? "configured" : "required"},
          {"sram_capacity_bytes", c.sram.capacity_bytes}, {"sram_banks", c.sram.banks}, {"sram_ports", c.sram.ports},
          {"sram_macros", ar.sram_macros}, {"sram_macro_bytes", bank_bytes},
          {"sram_periphery_over_cells", bank_bytes > 0 ? area::sram_periphery_over_cells(bank_bytes) : 0.0},
          {"flip_flops", ar.flip_flops()},
          {"units", units}, {"nand2_um2", nt.nand2_um2}, {"bitcell_um2", nt.bitcell_um2},
          {"sources", {nt.nand2_source, nt.bitcell_source, "sim/area/SOURCES.md"}}};
}

}  // namespace

json asic_report_json(const asic::AsicResult& r) {
  json j = run_report_json(r.workload, r.arch, r.numerics);
  if (r.backward) j["numerics"] = backward_numerics_json(r.workload, r.arch, *r.backward);
  if (!r.bit_accurate) j.erase("numerics");
  if (r.sample) {  // the numerics of a row sample, and the error's spread over its groups
    const asic::AsicResult::RowSample& s = *r.sample;
    j["numerics"]["sample_rows"] = s.rows;
    j["numerics"]["sample_groups"] = s.groups;
    j["numerics"]["sample_rel_l2_error_min"] = s.rel_l2_error_min;
    j["numerics"]["sample_rel_l2_error_max"] = s.rel_l2_error_max;
    j["numerics"]["sample_max_ulp_error_min"] = s.max_ulp_error_min;
    j["numerics"]["sample_max_ulp_error_max"] = s.max_ulp_error_max;
  }
  if (r.rtl)
    j["rtl"] = {{"rows_checked", r.rtl->rows_checked},
                {"rtl_cycles", r.rtl->rtl_cycles},
                {"stats_latency_cycles", r.rtl->stats_latency_cycles},
                {"normalize_latency_cycles", r.rtl->normalize_latency_cycles},
                {"model_stats_latency_cycles", r.rtl->model_stats_latency_cycles},
                {"model_normalize_latency_cycles", r.rtl->model_normalize_latency_cycles},
                {"bit_exact", true},
                {"rtl_seconds", r.rtl->seconds}};
  if (r.rtl_full) {
    nlohmann::json acts = nlohmann::json::array();
    for (const asic::RtlUnitActs& a : r.rtl_full->streams)
      acts.push_back({{"unit", a.unit}, {"act", a.act}, {"stream", a.stream}, {"acts", a.acts}, {"last_cycle", a.last_cycle}, {"bytes", a.bytes}});
    j["rtl_full"] = {{"rows", r.rtl_full->rows},
                     {"rtl_cycles", r.rtl_full->rtl_cycles},
                     {"acts_compared", r.rtl_full->acts_compared},
                     {"dram_bytes_compared", r.rtl_full->dram_bytes_compared},
                     {"sram_bytes_compared", r.rtl_full->sram_bytes_compared},
                     {"edge_exact", true},
                     {"rtl_seconds", r.rtl_full->seconds},
                     {"by_act", acts}};
  }
  const auto& c = r.cfg;
  j["path"] = std::string(asic::to_string(c.path));
  // A residual workload: where its sum is made (docs/ASIC.md, "Fusion").
  if (r.workload.residual)
    j["fusion"] = {{"fuse", std::string(config::to_string(r.arch.fuse.mode))},
                   {"dataflow", r.workload.residual->dataflow == core::Dataflow::pre_norm ? "pre_norm" : "post_norm"},
                   {"sum_written", r.workload.residual->sum_written()}};
  // The timing model as simulated (the --path given, if any): every key of
  // the asic section, and the DRAM port it implies at the clock.
  j["arch"]["asic"] = config::asic_params().echo(c);
  const config::DramPort port = c.dram_port();
  j["arch"]["asic"]["dram"]["peak_bytes_per_cycle"] = port.peak_bytes_per_cycle.value();
  j["arch"]["asic"]["dram"]["latency_cycles"] = port.latency_cycles.value();
  j["arch"]["asic"]["dram"]["sustained_bytes_per_cycle"] = port.sustained_bytes_per_cycle.value();
  const double cyc = r.cycles;
  const UnitTiming timing = unit_timing(r.unit_stats, cyc);
  j["timing"] = {{"cycles", cyc},
                 {"clock_ghz", c.clock_ghz},
                 {"time_us", r.time_us()},
                 {"lower_bound_cycles", r.expected.lower_bound_cycles},
                 {"cycles_over_lower_bound", cyc / r.expected.lower_bound_cycles},
                 {"first_stats_cycle", r.first_stats_cycle},
                 // fill: until the first row's statistics; stream: from then until the lanes
                 // finish the last row (none when they finish first: a single row); drain:
                 // the rest, the last normalise pass and writes. They sum to the cycles.
                 {"phase_cycles", {{"fill", r.first_stats_cycle},
                                   {"stream", std::max(0.0, r.last_lanes_cycle - r.first_stats_cycle)},
                                   {"drain", cyc - std::max(r.first_stats_cycle, r.last_lanes_cycle)}}},
                 {"row_buffers_peak", r.row_buffers_peak},
                 {"row_buffer_waits", r.row_buffer_waits},
                 {"stall_cycles", timing.stall_total},
                 {"stall_cycles_by_unit", timing.stall_by_unit},
                 {"busy_cycles", timing.busy},
                 {"utilization", timing.utilization}};
  // How the SystemC kernel got there (the figures are the same either way).
  {
    const asic::FastForward& ff = r.fast_forward;
    j["fast_forward"] = {{"applied", ff.applied},
                         {"rows_simulated", ff.rows_simulated},
                         {"rows_skipped", ff.rows_skipped()},
                         {"period_rows", ff.period_rows},
                         {"period_cycles", ff.period_cycles},
                         {"cycles_skipped", ff.cycles_skipped()},
                         {"reason", ff.reason}};
  }
  const json& by_kind = timing.dram_bytes_by_kind;
  j["traffic"] = {{"dram_bytes_read", r.dram_bytes_read},
                  {"dram_bytes_written", r.dram_bytes_written},
                  {"dram_bytes_by_kind", by_kind},
                  {"dram_gbps", r.dram_gbps()},
                  {"sram_bytes_read", r.sram_bytes_read},
                  {"sram_bytes_written", r.sram_bytes_written},
                  {"sram_peak_occupancy_bytes", r.sram_peak_bytes},
                  {"sram_row_buffer_bytes", r.expected.sram_row_buffer_bytes},
                  {"expected_dram_bytes_read", r.expected.dram_bytes_read},
                  {"expected_dram_bytes_written", r.expected.dram_bytes_written}};
  // Timing closure: each unit's depth and maximum frequency at the clock, and the stages added past it.
  {
    const rtl::TimingClosure& tc = r.timing_closure;
    json units = json::object();
    for (const rtl::UnitTiming& u : tc.units)
      units[u.unit] = {{"logic_levels", u.logic_levels * u.rtl_stages},
                       {"latency_key", "asic." + u.latency_key},
                       {"configured_cycles", u.configured_cycles},
                       {"cycles", u.cycles},
                       {"levels_per_cycle", u.levels_per_cycle(u.cycles)},
                       {"fmax_ghz", u.fmax_ghz},
                       {"added_stages", u.added_stages()},
                       {"added_flip_flops", u.added_flip_flops()}};
    j["timing_closure"] = {{"fo4_ps", tc.fo4_ps},
                           {"period_fo4", tc.period_fo4},
                           {"fmax_ghz", tc.units.empty() ? json() : json(tc.fmax_ghz())},  // null: no RTL timed
                           {"past_fmax", c.past_fmax == config::PastFmax::add_stages ? "add_stages" : "refuse"},
                           {"meets_clock", tc.meets_clock()},
                           {"added_stages", tc.added_stages()},
                           {"added_flip_flops", tc.added_flip_flops()},
                           {"units", units},
                           {"sram", {{"configured_banks", tc.sram.configured_banks},
                                     {"banks", tc.sram.banks},
                                     {"bank_bytes", tc.sram.bank_bytes},
                                     {"access_ns", tc.sram.access_ns},
                                     {"min_period_ns", tc.sram.min_period_ns},
                                     {"configured_cycles", tc.sram.configured_cycles},
                                     {"cycles", tc.sram.cycles},
                                     {"added_stages", tc.sram.added_stages()}}}};
  }
  // Area and energy at the arch's node, of the design this run needs (composed in sim/area).
  const core::DatapathConfig dcfg = config::datapath_config(r.workload, r.arch, r.numerics.algorithm);
  area::RunActivity run;
  run.dram_bytes_read = r.dram_bytes_read;
  run.dram_bytes_written = r.dram_bytes_written;
  run.sram_bytes_read = r.sram_bytes_read;
  run.sram_bytes_written = r.sram_bytes_written;
  run.sram_required_bytes = static_cast<double>(r.expected.onchip_bytes());
  run.elements = r.workload.elements();
  run.rows = r.workload.rows;
  // A backward sums only when it re-makes z; with dropout it also scales the branch's gradient.
  run.residual = r.workload.residual.has_value() && (!r.workload.is_backward() || r.workload.backward_remakes_sum());
  run.dropout = r.workload.residual && r.workload.residual->dropout_p > 0;
  run.branch_grad = r.workload.writes_branch_grad();
  run.cycles = r.cycles;
  run.seconds = r.time_us() * 1e-6;
  const std::optional<core::BackwardConfig> bcfg =
      r.workload.is_backward() ? std::optional(config::backward_config(r.workload, r.arch)) : std::nullopt;
  const area::RunCosts rc = area::run_costs(dcfg, c, run, bcfg ? &*bcfg : nullptr);
  j["area"] = area_json(rc, c);
  j["area"]["fusion_mm2"] = rc.fusion_um2 * 1e-6;
  j["area"]["sram_required"] = {{"row_buffers", r.expected.sram_row_buffer_bytes},
                                {"reread_fifo", r.expected.reread_fifo_bytes},
                                {"parameters", r.expected.param_bytes}};
  if (r.workload.is_backward()) {
    j["area"]["sram_required"]["accumulator"] = r.expected.accumulator_bytes;
  }
  const area::EnergyReport& er = rc.energy;
  const area::ActivityCounts& act = rc.activity;
  j["energy"] = {{"total_uj", er.total_uj()}, {"dram_uj", er.dram_pj * 1e-6}, {"sram_uj", er.sram_pj() * 1e-6},
                 {"sram_read_uj", er.sram_read_pj * 1e-6}, {"sram_write_uj", er.sram_write_pj * 1e-6},
                 {"datapath_uj", er.datapath_pj * 1e-6}, {"residual_add_uj", er.residual_add_pj * 1e-6},
                 {"dropout_mask_uj", er.dropout_mask_pj * 1e-6}, {"clock_uj", er.clock_pj * 1e-6},
                 {"flip_flops", act.flip_flops}, {"leakage_uj", er.leakage_pj * 1e-6},
                 {"leakage_mw", rc.leakage_mw}, {"leakage_mw_per_mm2", rc.leakage_mw_per_mm2}, {"pj_per_element", rc.pj_per_element()},
                 {"node", c.node}, {"supply_v", c.supply_v}, {"node_energy_factor", er.node_factor},
                 {"dram_pj_per_bit", act.dram_pj_per_bit}, {"sram_bank_bytes", act.sram_bank_bytes},
                 {"sram_read_pj_per_byte", er.sram_read_pj_per_byte}, {"sram_write_pj_per_byte", er.sram_write_pj_per_byte},
                 {"basis", rc.energy_basis}};
  return j;
}

std::string asic_summary_table(const asic::AsicResult& r, const json& j) {
  std::ostringstream o;
  o << "normsim run (asic model): " << r.workload.name << " (" << core::to_string(r.workload.norm) << ", "
    << r.workload.rows << " rows x " << r.workload.hidden << ")\n";
  o << "arch: " << r.arch.name << ", path " << asic::to_string(r.cfg.path)
    << (r.workload.residual ? std::string(", fuse ") + std::string(config::to_string(r.arch.fuse.mode)) : std::string()) << ", "
    << r.arch.lanes << " lanes, "
    << r.cfg.rows_in_flight << " rows in flight, " << r.cfg.clock_ghz << " GHz" << (r.bit_accurate ? "" : ", timing only") << "\n\n";
  auto row = [&](const std::string& k, const std::string& v, const std::string& unit) {
    char b[200];
    std::snprintf(b, sizeof b, "  %-30s %16s  %s\n", k.c_str(), v.c_str(), unit.c_str());
    o << b;
  };
  // The report's own names (as in its JSON, compare and sweep), the unit their suffix.
  const auto& t = j["timing"];
  const auto& tr = j["traffic"];
  // "%.15g": whole cycles as integers, a fractional count (a DRAM port that
  // moves a fraction of a byte a cycle) as the JSON has it.
  row("cycles", num(r.cycles, "%.15g"), "");
  row("time_us", num(r.time_us()), "");
  row("lower_bound_cycles", num(r.expected.lower_bound_cycles, "%.15g"),
      "max(DRAM bytes / sustained bytes a cycle, N max(C/L, merge occupancy))");
  row("cycles_over_lower_bound", num(t["cycles_over_lower_bound"].get<double>(), "%.4f"), "");
  for (const auto& [k, v] : t["stall_cycles"].items()) row("stall_cycles." + k, num(v.get<double>(), "%.15g"), "");
  row("row_buffers_peak", std::to_string(r.row_buffers_peak), "of " + std::to_string(r.cfg.rows_in_flight) + " rows in flight");
  row("row_buffer_waits", std::to_string(r.row_buffer_waits),
      r.row_buffer_waits ? "rows whose input waited for a free row buffer" : "none: more rows in flight change nothing");
  row("dram_bytes_read", std::to_string(r.dram_bytes_read), "expected " + std::to_string(r.expected.dram_bytes_read));
  row("dram_bytes_written", std::to_string(r.dram_bytes_written), "expected " + std::to_string(r.expected.dram_bytes_written));
  if (r.workload.residual)  // where the bytes went: x, r, z, the re-read, a separate adder's pass
    for (const auto& [k, v] : tr["dram_bytes_by_kind"].items())
      if (v.get<uint64_t>() > 0) row("  dram_bytes_by_kind." + k, std::to_string(v.get<uint64_t>()), "");
  row("dram_gbps", num(r.dram_gbps()), "");
  row("sram_bytes_read", std::to_string(r.sram_bytes_read), "");
  row("sram_bytes_written", std::to_string(r.sram_bytes_written), "");
  row("sram_peak_occupancy_bytes", std::to_string(tr["sram_peak_occupancy_bytes"].get<uint64_t>()), "");
  for (const core::StatSet& u : r.unit_stats)  // the units that count their busy cycles, in the netlist's order
    if (t["utilization"].contains(u.unit))
      row("utilization." + u.unit, num(t["utilization"][u.unit].get<double>(), "%.3f"), "busy / total cycles");
  if (const asic::FastForward& ff = r.fast_forward; ff.applied)
    row("fast_forward.rows_skipped", std::to_string(ff.rows_skipped()),
        std::to_string(ff.periods_skipped) + " periods of " + std::to_string(ff.period_rows) + " rows, " + num(ff.period_cycles, "%.15g") +
            " cycles each; " + std::to_string(ff.rows_simulated) + " rows simulated");
  else
    row("fast_forward.rows_skipped", "0", "every row simulated: " + ff.reason);
  const auto& tc = j["timing_closure"];
  const auto& ts = tc["sram"];
  const double c_clock_ghz = r.cfg.clock_ghz;
  row("timing_closure.sram.access_ns", num(ts["access_ns"].get<double>(), "%.3g"),
      "a " + num(ts["bank_bytes"].get<double>(), "%.0f") + "-byte bank's read: " + std::to_string(ts["cycles"].get<int>()) +
          " cycles" + (ts["added_stages"].get<int>() > 0 ? " (+" + std::to_string(ts["added_stages"].get<int>()) + " at this clock)" : std::string()) +
          (ts["banks"] != ts["configured_banks"] ? ", " + std::to_string(ts["banks"].get<int>()) + " banks at this clock" : std::string()) +
          "; min period " + num(ts["min_period_ns"].get<double>(), "%.3g") + " ns");
  {
    // Whether the configured design meets the clock, and what was added where it does not.
    std::string added;
    for (const auto& [name, u] : tc["units"].items())
      if (u["added_stages"].get<int>() > 0) added += (added.empty() ? "" : ", ") + name + " +" + std::to_string(u["added_stages"].get<int>());
    if (ts["added_stages"].get<int>() > 0) added += (added.empty() ? "" : ", ") + std::string("sram read +") + std::to_string(ts["added_stages"].get<int>());
    if (ts["banks"] != ts["configured_banks"])
      added += (added.empty() ? "" : ", ") + std::string("sram banks ") + std::to_string(ts["configured_banks"].get<int>()) + " -> " +
               std::to_string(ts["banks"].get<int>());
    row("timing_closure.meets_clock", tc["meets_clock"].get<bool>() ? "yes" : "no",
        tc["meets_clock"].get<bool>() ? "as configured, at " + num(c_clock_ghz, "%.3g") + " GHz"
                                      : std::to_string(tc["added_stages"].get<int>()) + " stages added to run at " +
                                            num(c_clock_ghz, "%.3g") + " GHz: " + added + " (" +
                                            num(tc["added_flip_flops"].get<double>(), "%.0f") + " flip-flops)");
  }
  if (!tc["units"].empty()) {
    row("timing_closure.fmax_ghz", num(tc["fmax_ghz"].get<double>(), "%.3g"),
        "the slowest unit's as configured; FO4 " + num(tc["fo4_ps"].get<double>(), "%.3g") + " ps, a cycle " +
            num(tc["period_fo4"].get<double>(), "%.3g") + " FO4");
    for (const auto& [name, u] : tc["units"].items())
      row("  " + name + ".fmax_ghz", num(u["fmax_ghz"].get<double>(), "%.3g"),
          num(u["logic_levels"].get<double>(), "%.0f") + " gate levels over " + std::to_string(u["configured_cycles"].get<int>()) +
              " cycles" +
              (u["added_stages"].get<int>() > 0 ? ", +" + std::to_string(u["added_stages"].get<int>()) + " stages at this clock"
                                                : std::string()));
  }
  const auto& ar = j["area"];
  row("total_mm2", num(ar["total_mm2"].get<double>()), "at " + r.cfg.node + ", of it:");
  row("  sram_mm2", num(ar["sram_mm2"].get<double>()),
      num(ar["sram_required_bytes"].get<double>(), "%.0f") + " bytes required; " + std::to_string(ar["sram_macros"].get<int>()) +
          " macros of " + num(ar["sram_macro_bytes"].get<double>(), "%.0f") + " bytes, periphery " +
          num(ar["sram_periphery_over_cells"].get<double>(), "%.3g") + "x the cells");
  row("  datapath_mm2", num(ar["datapath_mm2"].get<double>()),
      r.workload.residual ? "of it fusion_mm2 " + num(ar["fusion_mm2"].get<double>()) + " (adder, mask generator)" : "");
  const auto& e = j["energy"];
  row("total_uj", num(e["total_uj"].get<double>()), num(e["pj_per_element"].get<double>()) + " pJ/element, of it:");
  row("  dram_uj", num(e["dram_uj"].get<double>()), num(e["dram_pj_per_bit"].get<double>()) + " pJ/bit");
  row("  sram_read_uj", num(e["sram_read_uj"].get<double>()),
      num(e["sram_read_pj_per_byte"].get<double>(), "%.3g") + " pJ/byte, " + num(e["sram_bank_bytes"].get<double>(), "%.0f") +
          "-byte banks");
  row("  sram_write_uj", num(e["sram_write_uj"].get<double>()), num(e["sram_write_pj_per_byte"].get<double>(), "%.3g") + " pJ/byte");
  if (r.workload.residual) {
    row("  residual_add_uj", num(e["residual_add_uj"].get<double>()), "the sums (fused or not)");
    row("  dropout_mask_uj", num(e["dropout_mask_uj"].get<double>()), "Philox4x32-10 mask words");
  }
  row("  datapath_uj", num(e["datapath_uj"].get<double>()),
      "x " + num(e["node_energy_factor"].get<double>(), "%.3g") + " from 45 nm, " + num(e["supply_v"].get<double>(), "%.2f") + " V");
  row("  clock_uj", num(e["clock_uj"].get<double>()),
      num(e["flip_flops"].get<double>(), "%.0f") + " flip-flops clocked every cycle");
  row("  leakage_uj", num(e["leakage_uj"].get<double>()),
      num(e["leakage_mw"].get<double>(), "%.4g") + " mW (" + num(e["leakage_mw_per_mm2"].get<double>(), "%.3g") +
          " mW/mm2 of cells) for time_us");
  if (r.rtl)
    row("rtl", std::to_string(r.rtl->rows_checked),
        "rows bit-exact against the verilated pipeline (" + std::to_string(r.rtl->rtl_cycles) +
            " RTL cycles; latencies " + std::to_string(r.rtl->stats_latency_cycles) + " / " +
            std::to_string(r.rtl->normalize_latency_cycles) + " cycles = the model's)");
  if (r.rtl_full)
    row("rtl_full", std::to_string(r.rtl_full->acts_compared),
        "acts equal edge for edge in the verilated unit (" + std::to_string(r.rtl_full->rows) + " rows, " +
            std::to_string(r.rtl_full->rtl_cycles) + " RTL cycles; " + std::to_string(r.rtl_full->dram_bytes_compared) +
            " DRAM and " + std::to_string(r.rtl_full->sram_bytes_compared) + " SRAM bytes equal by kind)");
  if (r.bit_accurate && r.backward) {
    o << "\n" << backward_numerics_table(r.workload, r.arch, *r.backward);
  } else if (r.bit_accurate) {
    const std::string numerics = run_summary_table(r.workload, r.arch, r.numerics);  // its header repeats ours: keep the table
    o << "\n" << numerics.substr(numerics.find("\n\n") + 2);
  }
  return o.str();
}

std::string compare_table(const json& all) {
  std::ostringstream o;
  const json& reps = all["paths"];
  const json* first = nullptr;
  for (const auto& r : reps)
    if (!r.contains("infeasible")) first = &r;
  const std::string mode = all.value("mode", "configured");
  o << "normsim compare";
  if (first) {
    const auto& w = (*first)["workload"];
    o << ": " << w["name"].get<std::string>() << " (" << w["rows"] << " rows x " << w["hidden"] << "), arch "
      << (*first)["arch"]["name"].get<std::string>();
  }
  if (mode == "sram_budget")
    o << ", at an SRAM budget of " << all["sram_budget_bytes"].get<int64_t>() << " B (each path's fewest cycles that fit)";
  else if (mode == "target_cycles")
    o << ", at a target of " << num(all["target_cycles"].get<double>(), "%.0f") << " cycles (each path's smallest SRAM that meets it)";
  else
    o << ", each path as the arch configures it";
  o << "\n\n";
  // The report's own names, as in run's JSON and sweep; a residual
  // workload's comparison leads with the fuse mode and shows its area, a
  // backward's with its parameter-gradient path.
  const std::vector<std::string> leads = compare_leads(all);
  const bool fused = std::find(leads.begin(), leads.end(), "fuse") != leads.end();
  auto lead_cell = [](const std::string& lead, const std::string& text) {
    return strprintf("%-*s ", static_cast<int>(std::max<size_t>(17, lead.size())), text.c_str());
  };
  for (const std::string& lead : leads) o << lead_cell(lead, lead);
  o
    << strprintf("%-15s %14s %15s %13s %10s %15s %18s %9s %19s %9s %12s ", "path", "rows_in_flight", "replay_fraction",
                 "cycles", "time_us", "dram_bytes_read", "dram_bytes_written", "dram_gbps", "sram_required_bytes", "sram_mm2",
                 "datapath_mm2")
    << (fused ? strprintf("%11s ", "fusion_mm2") : std::string())
    << strprintf("%9s %9s %9s %9s ", "total_mm2", "total_uj", "dram_uj", "sram_uj")
    << (fused ? strprintf("%9s ", "fusion_uj") : std::string()) << strprintf("%12s", "rel_l2_error");
  // A backward's table: dx's error, then each other gradient's by its report name.
  std::vector<std::string> grads;
  for (const char* g : kOtherGradients)
    for (const auto& r : reps)
      if (r.contains("numerics") && r["numerics"].contains(g)) {
        grads.push_back(g);
        break;
      }
  for (const std::string& g : grads) o << strprintf(" %*s", static_cast<int>(g.size() + 13), (g + ".rel_l2_error").c_str());
  o << "\n";
  for (const auto& r : reps) {
    for (const std::string& lead : leads) o << lead_cell(lead, r.value(lead, std::string("-")));
    if (r.contains("infeasible")) {
      o << strprintf("%-15s infeasible: %s\n", r["path"].get<std::string>().c_str(), r["infeasible"].get<std::string>().c_str());
      continue;
    }
    const double err = r.contains("numerics") && !r["numerics"]["rel_l2_error"].is_null() ? r["numerics"]["rel_l2_error"].get<double>() : -1;
    const auto& asic = r["arch"]["asic"];
    const bool partial = r["path"] == "partial-replay";
    o << strprintf("%-15s %14d %15s %13.15g %10.2f %15llu %18llu %9.1f %19.0f %9.4f %12.4f ", r["path"].get<std::string>().c_str(),
                   asic["rows_in_flight"].get<int>(),
                   partial ? num(asic["replay_fraction"].get<double>(), "%.4g").c_str() : "-", r["timing"]["cycles"].get<double>(),
                   r["timing"]["time_us"].get<double>(),
                   static_cast<unsigned long long>(r["traffic"]["dram_bytes_read"].get<uint64_t>()),
                   static_cast<unsigned long long>(r["traffic"]["dram_bytes_written"].get<uint64_t>()),
                   r["traffic"]["dram_gbps"].get<double>(), r["area"]["sram_required_bytes"].get<double>(),
                   r["area"]["sram_mm2"].get<double>(), r["area"]["datapath_mm2"].get<double>())
      << (fused ? strprintf("%11.4f ", r["area"].value("fusion_mm2", 0.0)) : std::string())
      << strprintf("%9.4f %9.1f %9.1f %9.1f ", r["area"]["total_mm2"].get<double>(), r["energy"]["total_uj"].get<double>(),
                   r["energy"]["dram_uj"].get<double>(), r["energy"]["sram_uj"].get<double>())
      << (fused ? strprintf("%9.1f ", r["energy"].value("residual_add_uj", 0.0) + r["energy"].value("dropout_mask_uj", 0.0))
                : std::string())
      << strprintf("%12s", err < 0 ? "-" : num(err, "%.3g").c_str());
    for (const std::string& g : grads) {
      const json* e = r.contains("numerics") && r["numerics"].contains(g) ? &r["numerics"][g]["rel_l2_error"] : nullptr;
      o << strprintf(" %*s", static_cast<int>(g.size() + 13), e && e->is_number() ? num(e->get<double>(), "%.3g").c_str() : "-");
    }
    o << "\n";
  }
  o << compare_picks_text(all);
  return o.str();
}

}  // namespace normsim::report
