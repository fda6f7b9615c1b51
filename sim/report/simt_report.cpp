#include "sim/report/simt_report.hpp"

#include <cmath>

#include "sim/report/text_format.hpp"
#include "sim/simt/kernels/kernel_registry.hpp"
#include "sim/simt/limiter.hpp"

namespace normsim::report {

nlohmann::json simt_report_json(const simt::Prediction& p, const simt::GpuArch& gpu) {
  auto range = [](const simt::Range& r) { return nlohmann::json{{"lo", r.lo}, {"hi", r.hi}}; };
  nlohmann::json launches = nlohmann::json::array();
  for (size_t i = 0; i < p.launches.size(); ++i) {
    const simt::LaunchPrediction& l = p.launches[i];
    const simt::SubKernel& k = p.plan.launches[i];
    launches.push_back({{"name", l.name}, {"global_passes", k.global_passes()}, {"input_bytes", k.input_bytes},
                        {"param_bytes", k.param_bytes}, {"warp_instructions", l.warp_instructions},
                        {"row_cycles", l.row_cycles}, {"rounds", l.rounds}, {"blocks_per_sm", l.occ.blocks_per_sm},
                        {"occupancy_limiter", l.occ.limiter},
                        {"warps_per_sm", l.occ.warps_per_sm}, {"rows_in_flight", l.occ.rows_in_flight},
                        {"waves", l.occ.waves}, {"x_in_flight_bytes", l.x_in_flight_bytes},
                        {"l1_hit", l.l1_hit}, {"l2_hit", l.l2_hit}, {"dram_read_elasticity", l.dram_read_elasticity},
                        {"dram_bytes_read", l.dram_bytes_read},
                        {"dram_bytes_written", l.dram_bytes_written}, {"l2_bytes", l.l2_bytes},
                        {"bounds_us", {{"dram", l.dram_us}, {"latency", l.latency_us}, {"issue", l.issue_us},
                                       {"shared_memory", l.smem_us}, {"l1_miss_requests", l.request_us}, {"block_dispatch", l.dispatch_us}}},
                        {"added_once_us", {{"pipeline_fill", l.fill_us}, {"epilogue", l.epilogue_us}}},
                        {"bound", l.bound}, {"duration_us", l.duration_us}});
  }
  return {{"kernel", simt::kernel_name(p.plan.kernel)}, {"ran", simt::kernel_name(p.plan.ran)}, {"rows", p.plan.rows},
                      {"hidden", p.plan.hidden}, {"dtype", normref::to_string(p.plan.dtype)},
                      {"block", p.plan.block}, {"gpu", gpu.name},
                      {"gpu_arch", {{"name", gpu.name}, {"source", gpu.source}, {"overrides", gpu.overrides}}},
                      {"prediction", {{"dram_bytes_read", p.dram_bytes_read}, {"dram_bytes_written", p.dram_bytes_written},
                                      {"l2_bytes", p.l2_bytes}, {"duration_us", p.duration_us}, {"cycles", p.cycles},
                                      {"dram_read_elasticity", p.dram_read_elasticity},
                                      {"firmness", p.firmness()},
                                      {"extrapolated", p.extrapolated}}},
                      {"range", {{"dram_bytes_read", range(p.ranges.dram_bytes_read)},
                                 {"dram_bytes_written", range(p.ranges.dram_bytes_written)},
                                 {"l2_bytes", range(p.ranges.l2_bytes)},
                                 {"duration_us", range(p.ranges.duration_us)}}},
                      {"launches", launches}};
}

std::string simt_report_text(const simt::Prediction& p, const simt::GpuArch& gpu) {
  std::string out;
  const std::string kernel(simt::kernel_name(p.plan.kernel)), ran(simt::kernel_name(p.plan.ran));
  const std::string arch = gpu.describe();
  out += strprintf("normsim simt: %s%s on %s, %lld rows x %lld %s, block %d\n", kernel.c_str(),
                   p.plan.ran != p.plan.kernel ? (" (runs " + ran + ": its shared memory does not fit)").c_str() : "",
                   arch.c_str(), static_cast<long long>(p.plan.rows), static_cast<long long>(p.plan.hidden),
                   std::string(normref::to_string(p.plan.dtype)).c_str(), p.plan.block);
  for (size_t i = 0; i < p.launches.size(); ++i) {
    const simt::LaunchPrediction& l = p.launches[i];
    const simt::SubKernel& k = p.plan.launches[i];
    out += strprintf("\n  launch %s\n", l.name.c_str());
    out += strprintf("    occupancy            %d blocks/SM (%d warps, limited by %s), %lld rows in flight, %.2f waves\n",
                l.occ.blocks_per_sm, l.occ.warps_per_sm, l.occ.limiter.c_str(), static_cast<long long>(l.occ.rows_in_flight),
                l.occ.waves);
    if (k.global_passes() > 1 || k.input_read_before)
      out += strprintf("    re-read hit fraction L1 %.3f, L2 %.3f (x of the rows in flight %.1f MB)\n", l.l1_hit, l.l2_hit,
                       l.x_in_flight_bytes / 1e6);
    else
      out += strprintf("    x read once          (no re-read pass: the row stays on chip)\n");
    out += strprintf("    DRAM-read elasticity %.2f (%% DRAM bytes read per %% of x in flight)\n", l.dram_read_elasticity);
    out += strprintf("    bounds               DRAM %.1f us, latency %.1f us, issue %.1f us, shared memory %.1f us, "
                "L1-miss requests %.1f us, dispatch %.1f us -> %s\n",
                l.dram_us, l.latency_us, l.issue_us, l.smem_us, l.request_us, l.dispatch_us, l.bound.c_str());
    out += strprintf("    added once           pipeline fill %.1f us, epilogue %.1f us; launch %.1f us\n", l.fill_us,
                l.epilogue_us, l.duration_us);
  }
  const simt::PredictionRanges& r = p.ranges;
  out += strprintf("\n  prediction: %s (DRAM-read elasticity %.2f: 10%% more x in flight: %+.1f%%); ranges [lo, hi] "
                   "from the x in flight and the rows' phases +-%.0f%%\n",
                   p.firmness(), p.dram_read_elasticity, 100 * (std::pow(1.1, p.dram_read_elasticity) - 1),
                   100 * gpu.range.in_flight_spread);
  if (!p.extrapolated.empty())
    out += strprintf("  outside the calibrated envelope (%s: %s): the figures below are the model's mechanisms, untested there\n",
                     gpu.source.c_str(), p.extrapolated.c_str());
  out += strprintf("  DRAM bytes read       %16.0f  bytes  [%.0f, %.0f]\n", p.dram_bytes_read, r.dram_bytes_read.lo,
                   r.dram_bytes_read.hi);
  out += strprintf("  DRAM bytes written    %16.0f  bytes  [%.0f, %.0f]\n", p.dram_bytes_written, r.dram_bytes_written.lo,
                   r.dram_bytes_written.hi);
  double stored = 0;
  for (const auto& k : p.plan.launches) stored += static_cast<double>(k.output_bytes + k.stats_bytes);
  if (p.dram_bytes_written < stored)
    out += strprintf("    (below the %.0f bytes stored: up to %.0f of them are still dirty in the L2 when the kernel ends, "
                     "l2.dirty_resident_bytes, and reach DRAM after it)\n",
                     stored, gpu.l2.dirty_resident_bytes);
  out += strprintf("  L2 bytes              %16.0f  bytes  [%.0f, %.0f]\n", p.l2_bytes, r.l2_bytes.lo, r.l2_bytes.hi);
  out += strprintf("  duration              %16.2f  us     [%.2f, %.2f] (%.0f SM cycles at %.0f MHz)\n", p.duration_us,
                   r.duration_us.lo, r.duration_us.hi, p.cycles, gpu.sm_clock_mhz);
  return out;
}

namespace {

nlohmann::json limiter_json(const simt::WarpProfile& w) {
  const simt::LimiterInfo& l = simt::limiter_info(simt::limiter(w));
  return {{"limiter", std::string(l.name)}, {"situation", std::string(l.situation)}, {"direction", std::string(l.direction)}};
}

nlohmann::json explained(const simt::WarpProfile& w) {
  nlohmann::json j = simt::warp_profile_json(w);
  j.update(limiter_json(w));
  return j;
}

}  // namespace

nlohmann::json simt_explain_json(const simt::Prediction& p, const std::optional<MeasuredWarps>& ncu, const std::string& no_ncu) {
  nlohmann::json launches = nlohmann::json::array();
  for (const simt::LaunchPrediction& l : p.launches) {
    nlohmann::json j = explained(l.warps);
    j["name"] = l.name;
    j["duration_us"] = l.duration_us;
    launches.push_back(j);
  }
  nlohmann::json out = {{"predicted", explained(p.warps)}, {"launches", launches}};
  if (ncu) {
    out["ncu_case"] = ncu->case_id;
    out["ncu"] = explained(ncu->warps);
  } else {
    out["ncu_case"] = nullptr;
    out["ncu"] = nullptr;
    out["ncu_absent"] = no_ncu;
  }
  return out;
}

std::string simt_explain_text(const simt::Prediction& p, const std::optional<MeasuredWarps>& ncu, const std::string& no_ncu) {
  std::string out = "\n  explain: where the warps spend their cycles (Nsight Compute's warp states)";
  out += ncu ? ", ncu's golden case " + ncu->case_id + " beside\n" : "\n    (no ncu column: " + no_ncu + ")\n";
  auto pct = [](double v) { return strprintf("%5.1f%%", 100 * v); };
  out += strprintf("    %-18s %16s%s\n", "", "predicted", ncu ? "              ncu" : "");
  auto row = [&](const std::string& name, const std::string& pred, const std::string& meas) {
    out += strprintf("    %-18s %16s%s\n", name.c_str(), pred.c_str(), ncu ? strprintf(" %16s", meas.c_str()).c_str() : "");
  };
  const simt::WarpProfile& w = p.warps;
  const simt::WarpProfile* m = ncu ? &ncu->warps : nullptr;
  for (const simt::WarpStateInfo& i : simt::kWarpStateInfo)
    row(std::string(i.name), pct(w[i.state]), m ? pct((*m)[i.state]) : "");
  row("warp cycles/issue", strprintf("%.1f", w.warp_cycles_per_issue), m ? strprintf("%.1f", m->warp_cycles_per_issue) : "");
  row("occupancy", pct(w.achieved_occupancy), m ? pct(m->achieved_occupancy) : "");
  row("issue active", pct(w.issue_active), m ? pct(m->issue_active) : "");
  row("DRAM throughput", pct(w.dram_throughput), m ? pct(m->dram_throughput) : "");
  row("dominant", std::string(simt::to_string(w.dominant())), m ? std::string(simt::to_string(m->dominant())) : "");
  const simt::LimiterInfo& l = simt::limiter_info(simt::limiter(w));
  row("limiter", std::string(l.name), m ? std::string(simt::to_string(simt::limiter(*m))) : "");
  out += strprintf("  situation: %s\n  direction: %s\n", std::string(l.situation).c_str(), std::string(l.direction).c_str());
  if (p.launches.size() > 1)
    for (const simt::LaunchPrediction& x : p.launches)
      out += strprintf("    launch %-28s %8.2f us: %s, %s leads (%.1f%%)\n", x.name.c_str(), x.duration_us,
                       std::string(simt::to_string(simt::limiter(x.warps))).c_str(),
                       std::string(simt::to_string(x.warps.dominant())).c_str(), 100 * x.warps[x.warps.dominant()]);
  return out;
}

}  // namespace normsim::report
