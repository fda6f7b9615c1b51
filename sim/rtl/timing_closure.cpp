#include "sim/rtl/timing_closure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "sim/area/area_energy.hpp"
#include "sim/area/logic_inventory.hpp"
#include "sim/core/merge_schedule.hpp"
#include "sim/core/rsqrt_kind.hpp"

namespace normsim::rtl {

namespace {

std::string fmt(double v, const char* f = "%.3g") {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

const DepthFit& fit_of(const std::string& unit) {
  for (const DepthFit& f : depth_fits())
    if (unit == f.unit) return f;
  throw std::logic_error("timing closure: no depth fit for unit '" + unit + "'");
}

// The SRAM: reads pipelined over the cycles they take; a bank's minimum period bounds the clock.
void close_sram(TimingClosure& t, const config::AsicConfig& c, double bytes) {
  SramClosure& s = t.sram;
  s.bytes = bytes;
  s.configured_banks = s.banks = c.sram.banks;
  s.configured_cycles = s.cycles = c.sram.latency_cycles;
  const double period_ns = 1 / c.clock_ghz;
  const std::string at = " at " + c.node + ", " + fmt(c.supply_v, "%.2f") + " V";
  constexpr int kMaxBanks = 4096;  // asic.sram.banks' range
  area::SramTiming st = area::sram_timing(bytes / s.banks, c.node, c.supply_v);
  while (st.min_period_ns > period_ns && c.past_fmax == config::PastFmax::add_stages && s.banks * 2 <= kMaxBanks &&
         area::sram_timing(bytes / (s.banks * 2), c.node, c.supply_v).min_period_ns < st.min_period_ns) {
    s.banks *= 2;
    st = area::sram_timing(bytes / s.banks, c.node, c.supply_v);
  }
  s.bank_bytes = bytes / s.banks;
  s.access_ns = st.access_ns;
  s.min_period_ns = st.min_period_ns;
  if (st.min_period_ns > period_ns) {
    t.violation = "an SRAM bank of " + fmt(s.bank_bytes, "%.0f") + " bytes cycles at most at " + fmt(1 / st.min_period_ns) + " GHz" + at +
                  (c.past_fmax == config::PastFmax::refuse ? "; more asic.sram.banks make each smaller"
                                                           : ", and smaller banks are no faster");
    return;
  }
  const int need = static_cast<int>(std::ceil(st.access_ns / period_ns - 1e-9));
  if (need <= s.cycles) return;
  if (c.past_fmax == config::PastFmax::refuse) {
    t.violation = "an SRAM read of a " + fmt(s.bank_bytes, "%.0f") + "-byte bank takes " + fmt(st.access_ns) + " ns" + at + ", " +
                  std::to_string(need) + " cycles, over asic.sram.latency_cycles = " + std::to_string(s.cycles);
    return;
  }
  s.cycles = need;
}
}  // namespace

const std::vector<DepthFit>& depth_fits() {
  // tools/area/calibrate_area.py over its 10-point width sweep (datapath 8..32
  // bits, 1..3 Newton steps), yosys 0.23 `abc -fast` then `ltp -noff`; each
  // RSQRT unit's fit is its kind's (sim/core/rsqrt_kind.hpp).
  static const std::vector<DepthFit> fits = [] {
    std::vector<DepthFit> f = {{"welford_lanes", -71.13, 20.116, 0.018},
                               {"chan_merge_tree", -44.86, 15.991, 0.019},
                               {"normalize_affine", -46.24, 16.463, 0.044}};
    for (const core::RsqrtKind& k : core::rsqrt_kinds())
      f.push_back({std::string(k.depth_fit), k.depth_a, k.depth_b, k.depth_worst_error});
    return f;
  }();
  return fits;
}

double modelled_logic_levels(const std::string& unit, double stage_bit_products) {
  const DepthFit& fit = fit_of(unit);
  return fit.a + fit.b * std::log2(std::max(stage_bit_products, 2.0));
}

double UnitTiming::levels_per_cycle(int n) const {
  return logic_levels * rtl_stages / std::max(n, 1);
}

double TimingClosure::fmax_ghz() const {
  double f = 0;
  for (const UnitTiming& u : units) f = f == 0 ? u.fmax_ghz : std::min(f, u.fmax_ghz);
  return f;
}

int TimingClosure::added_stages() const {
  int n = sram.added_stages();
  for (const UnitTiming& u : units) n += u.added_stages();
  return n;
}

double TimingClosure::added_flip_flops() const {
  double n = 0;
  for (const UnitTiming& u : units) n += u.added_flip_flops();
  return n;
}


TimingClosure close_timing(const core::DatapathConfig& dp, const config::AsicConfig& c, double sram_bytes) {
  TimingClosure t;
  t.node = c.node;
  t.supply_v = c.supply_v;
  t.clock_ghz = c.clock_ghz;
  t.fo4_ps = area::fo4_delay_ps(c.node, c.supply_v);
  t.period_fo4 = 1e3 / c.clock_ghz / t.fo4_ps;
  close_sram(t, c, sram_bytes);
  if (!t.violation.empty() || dp.arithmetic != core::Arithmetic::fixed) return t;

  const auto& f = dp.formats;
  const int L = dp.lanes;
  const bool welford = dp.kind == core::NormKind::layernorm && dp.algorithm == core::VarianceAlgorithm::welford;
  using LatencyOf = int& (*)(config::AsicConfig&);
  auto add = [&](const std::string& unit, const std::string& fit_unit, const char* key, LatencyOf latency_of, int instances,
                 double stage_bit_products, int rtl_stages, int cycles) {
    if (instances < 1) return;
    UnitTiming u;
    u.unit = unit;
    u.latency_key = key;
    u.latency_of = latency_of;
    u.instances = instances;
    u.logic_levels = modelled_logic_levels(fit_unit, stage_bit_products);
    u.rtl_stages = rtl_stages;
    u.configured_cycles = u.cycles = cycles;
    u.fmax_ghz = 1e3 / ((u.levels_per_cycle(cycles) + area::kRegisterOverheadFo4) * t.fo4_ps);
    u.flip_flops_per_stage = 2 * std::sqrt(stage_bit_products);  // a product's width, wa + wb ~ 2 sqrt(wa wb)
    t.units.push_back(u);
  };
  const LatencyOf lanes = [](config::AsicConfig& a) -> int& { return a.welford_lanes.latency_cycles; };
  const LatencyOf tree = [](config::AsicConfig& a) -> int& { return a.chan_merge_tree.level_cycles; };
  const LatencyOf rsqrt = [](config::AsicConfig& a) -> int& { return a.rsqrt.latency_cycles; };
  const LatencyOf normalize = [](config::AsicConfig& a) -> int& { return a.normalize.latency_cycles; };
  if (welford) {
    const int64_t per_lane = (dp.hidden + L - 1) / L;
    add("welford_lanes", "welford_lanes", "welford_lanes.latency_cycles", lanes, L,
        area::welford_lane_inventory(f, area::count_bits(per_lane)).multiplier_bit_products, 1, c.welford_lanes.latency_cycles);
    const core::MergeSchedule merge{L, dp.merge_units};
    const double node = area::chan_merge_inventory(f, area::count_bits(dp.hidden)).multiplier_bit_products;
    if (merge.shared())
      add("merge_sequencer", "chan_merge_tree", "chan_merge_tree.level_cycles", tree, merge.units, node, 1, c.chan_merge_tree.level_cycles);
    else
      add("chan_merge_tree", "chan_merge_tree", "chan_merge_tree.level_cycles", tree, L - 1, node, 1, c.chan_merge_tree.level_cycles);
  }
  // The RSQRT unit's multiplying stages: one per Newton step (the deepest),
  // and the linear seed's multiply-add, a shallower stage of its own.
  // Another RSQRT unit's multiplying stages, on its kind's depth fit.
  const int multiplying = std::max(dp.rsqrt.stages() - 2, 1);  // less the normalise and the output rounding
  add("rsqrt_unit", std::string(dp.rsqrt.kind().depth_fit), "rsqrt.latency_cycles", rsqrt, 1,
      area::rsqrt_stage_bit_products(f, dp.rsqrt), multiplying, c.rsqrt.latency_cycles);
  add("normalize_affine", "normalize_affine", "normalize.latency_cycles", normalize, L,
      area::normalize_inventory(f).multiplier_bit_products, 1, c.normalize.latency_cycles);

  // Stages past each unit's maximum frequency: what a cycle holds, less the register.
  const double room = t.period_fo4 - area::kRegisterOverheadFo4;
  for (UnitTiming& u : t.units) {
    if (u.levels_per_cycle(u.cycles) <= room) continue;
    const std::string why = u.unit + " (" + fmt(u.logic_levels * u.rtl_stages, "%.0f") + " gate levels over " +
                            std::to_string(u.configured_cycles) + " cycles) runs at most " + fmt(u.fmax_ghz) + " GHz at " + c.node + ", " + fmt(c.supply_v, "%.2f") +
                            " V (FO4 " + fmt(t.fo4_ps) + " ps)";
    if (room < 1) {
      t.violation = why + "; a cycle of " + fmt(t.period_fo4) + " FO4 holds no gate past its register";
      return t;
    }
    if (c.past_fmax == config::PastFmax::refuse) {
      t.violation = why + "; asic.past_fmax: add_stages would add " +
                    std::to_string(static_cast<int>(std::ceil(u.logic_levels * u.rtl_stages / room)) - u.cycles) + " stages";
      return t;
    }
    u.cycles = static_cast<int>(std::ceil(u.logic_levels * u.rtl_stages / room));
  }
  return t;
}

config::AsicConfig with_closed_timing(config::AsicConfig c, const TimingClosure& t) {
  for (const UnitTiming& u : t.units) u.latency_of(c) = u.cycles;
  c.sram.latency_cycles = t.sram.cycles;
  c.sram.banks = t.sram.banks;
  c.timing_flip_flops = t.added_flip_flops();
  return c;
}

}  // namespace normsim::rtl
