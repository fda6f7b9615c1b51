// Timing closure (sim/rtl/timing_closure.hpp): the FO4 per node, each
// unit's depth and maximum frequency as the stated arithmetic, the stages
// added past it (their latency in the run, their registers in the area) and
// the clocks refused.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/area/area_energy.hpp"
#include "sim/area/run_costs.hpp"
#include "sim/asic/asic_run.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/rsqrt_kind.hpp"
#include "sim/report/asic_report.hpp"
#include "sim/rtl/timing_closure.hpp"

extern "C" int sc_main(int, char**) { return 0; }  // libsystemc wants one; gtest's main runs the tests

using namespace normsim;

namespace {
struct Design {
  config::Arch arch;
  config::Workload workload;
  core::DatapathConfig dp;
};
Design design(const char* workload, const char* arch = "asic-default") {
  Design d{config::load_arch(std::string(NORMSIM_TEST_SOURCE_DIR "/workloads/arch/") + arch + ".yaml"),
           config::load_workload(std::string(NORMSIM_TEST_SOURCE_DIR "/workloads/") + workload + ".yaml"), {}};
  d.dp = config::datapath_config(d.workload, d.arch);
  return d;
}
double poly3(double a, double b, double c, double e, double v) { return ((a * v + b) * v + c) * v + e; }
}  // namespace

// The rule's 16.2 ps at 45 nm and the HP fit's 1.0 V; Stillmaker & Baas's
// ratios elsewhere; faster at each smaller node at one supply.
TEST(Fo4Delay, TheRuleAt45nmAndTheFittedRatiosElsewhere) {
  EXPECT_DOUBLE_EQ(area::fo4_delay_ps("45nm", 1.0), 16.2);
  const double d45 = poly3(-501.6, 1567, -1619, 566.1, 1.0);
  EXPECT_DOUBLE_EQ(area::fo4_delay_ps("7nm", 0.7), 16.2 * poly3(-28.58, 76.6, -70.26, 24.69, 0.7) / d45);
  EXPECT_DOUBLE_EQ(area::fo4_delay_ps("16nm", 0.8), 16.2 * poly3(0, 24.8, -47.52, 28.87, 0.8) / d45);
  const double d32 = poly3(-1047, 2982, -2797, 873.5, 0.8), d20 = poly3(0, 34.63, -66.37, 41.15, 0.8);
  EXPECT_NEAR(area::fo4_delay_ps("28nm", 0.8), 16.2 * (d32 + (d20 - d32) / 3) / d45, 1e-12);
  for (double v = 0.5; v <= 1.2; v += 0.05) {
    EXPECT_GT(area::fo4_delay_ps("45nm", v), area::fo4_delay_ps("28nm", v)) << v;
    EXPECT_GT(area::fo4_delay_ps("28nm", v), area::fo4_delay_ps("16nm", v)) << v;
    EXPECT_GT(area::fo4_delay_ps("16nm", v), area::fo4_delay_ps("7nm", v)) << v;
    EXPECT_GT(area::fo4_delay_ps("7nm", v), 0) << v;
  }
  EXPECT_THROW(area::fo4_delay_ps("5nm", 0.8), std::invalid_argument);
}

// Each unit of a fixed-point LayerNorm: depth from the fit, spread over its
// cycles; fmax = 1 / ((levels / cycles + register) FO4).
TEST(TimingClosure, EveryUnitsMaximumFrequencyIsItsDepthOverItsCycles) {
  const Design d = design("bert-large");
  const config::AsicConfig& c = *d.arch.asic;
  const rtl::TimingClosure t = rtl::close_timing(d.dp, c, 1024);
  EXPECT_EQ(t.fo4_ps, area::fo4_delay_ps(c.node, c.supply_v));
  EXPECT_DOUBLE_EQ(t.period_fo4, 1e3 / c.clock_ghz / t.fo4_ps);
  ASSERT_EQ(t.units.size(), 4u);
  double slowest = 1e9;
  for (const rtl::UnitTiming& u : t.units) {
    EXPECT_GT(u.logic_levels, 50) << u.unit;
    EXPECT_DOUBLE_EQ(u.levels_per_cycle(u.configured_cycles), u.logic_levels * u.rtl_stages / u.configured_cycles) << u.unit;
    EXPECT_DOUBLE_EQ(u.fmax_ghz, 1e3 / ((u.levels_per_cycle(u.configured_cycles) + area::kRegisterOverheadFo4) * t.fo4_ps)) << u.unit;
    EXPECT_EQ(u.added_stages(), 0) << u.unit;  // the shipped arch meets its clock
    slowest = std::min(slowest, u.fmax_ghz);
  }
  EXPECT_EQ(t.fmax_ghz(), slowest);
  EXPECT_GE(t.fmax_ghz(), c.clock_ghz);
  EXPECT_TRUE(t.violation.empty());
  // The RSQRT unit: its Newton steps in series, each the fit of one step's multipliers.
  for (const rtl::UnitTiming& u : t.units)
    if (u.unit == "rsqrt_unit") {
      EXPECT_EQ(u.rtl_stages, d.dp.rsqrt.iterations);
      EXPECT_DOUBLE_EQ(u.logic_levels, rtl::modelled_logic_levels("rsqrt_unit", area::rsqrt_inventory(d.dp.formats, d.dp.rsqrt)
                                                                                     .multiplier_bit_products /
                                                                                 d.dp.rsqrt.iterations));
    }
  // A faster node, a higher clock limit.
  config::AsicConfig older = c;
  older.node = "45nm";
  EXPECT_LT(rtl::close_timing(d.dp, older, 1024).fmax_ghz(), t.fmax_ghz());
}

// Past a unit's maximum frequency: the fewest stages that fit, their registers.
TEST(TimingClosure, StagesAddedPastTheMaximumAreTheFewestThatFit) {
  const Design d = design("bert-large");
  config::AsicConfig c = *d.arch.asic;
  c.node = "45nm";
  c.clock_ghz = 3;
  const rtl::TimingClosure t = rtl::close_timing(d.dp, c, 1024);
  ASSERT_TRUE(t.violation.empty()) << t.violation;
  const double room = t.period_fo4 - area::kRegisterOverheadFo4;
  int added = 0;
  for (const rtl::UnitTiming& u : t.units) {
    EXPECT_LE(u.levels_per_cycle(u.cycles), room) << u.unit;
    if (u.added_stages() > 0) {
      EXPECT_GT(u.levels_per_cycle(u.cycles - 1), room) << u.unit;  // one fewer does not fit
      EXPECT_DOUBLE_EQ(u.added_flip_flops(), u.added_stages() * u.flip_flops_per_stage * u.instances) << u.unit;
      added += u.added_stages();
    }
  }
  EXPECT_GT(added, 0);
  const config::AsicConfig closed = rtl::with_closed_timing(c, t);
  EXPECT_DOUBLE_EQ(closed.timing_flip_flops, t.added_flip_flops());
  for (const rtl::UnitTiming& u : t.units) {
    if (u.unit == "normalize_affine") {
      EXPECT_EQ(closed.normalize.latency_cycles, u.cycles);
    }
    if (u.unit == "rsqrt_unit") {
      EXPECT_EQ(closed.rsqrt.latency_cycles, u.cycles);
    }
    if (u.unit == "welford_lanes") {
      EXPECT_EQ(closed.welford_lanes.latency_cycles, u.cycles);
    }
    if (u.unit == "chan_merge_tree") {
      EXPECT_EQ(closed.chan_merge_tree.level_cycles, u.cycles);
    }
  }
  // Their area: a timing_registers unit of the flip-flops at the flip-flop's gate equivalents.
  area::RunActivity run;
  run.sram_required_bytes = 4096;
  const area::RunCosts plain = area::run_costs(d.dp, c, run), with = area::run_costs(d.dp, closed, run);
  bool found = false;
  for (const auto& u : with.area.units)
    if (u.unit == "timing_registers") {
      found = true;
      EXPECT_DOUBLE_EQ(u.ge, t.added_flip_flops() * area::kGePerFlipFlop);
    }
  EXPECT_TRUE(found);
  EXPECT_GT(with.area.total_mm2(), plain.area.total_mm2());

  // refuse: the same clock is an error naming the unit; a period inside the
  // register's overhead is one whatever the policy.
  c.past_fmax = config::PastFmax::refuse;
  const rtl::TimingClosure refused = rtl::close_timing(d.dp, c, 1024);
  EXPECT_NE(refused.violation.find("runs at most"), std::string::npos) << refused.violation;
  c.past_fmax = config::PastFmax::add_stages;
  c.clock_ghz = 1e3 / (area::fo4_delay_ps("45nm", c.supply_v) * (area::kRegisterOverheadFo4 + 0.5));
  EXPECT_FALSE(rtl::close_timing(d.dp, c, 1024).violation.empty());
}

// A run past the maximum frequency runs the longer latencies and reports them;
// a floating-point datapath has no RTL to time.
TEST(TimingClosure, ARunRunsTheClosedLatenciesAndRefusesWhenAsked) {
  Design d = design("llama2-7b");
  d.workload.rows = 64;
  d.arch.asic->node = "45nm";
  d.arch.asic->clock_ghz = 3;
  asic::AsicOptions o;
  o.numerics = false;
  const asic::AsicResult r = asic::run_asic(d.workload, d.arch, o);
  ASSERT_FALSE(r.timing_closure.units.empty());
  for (const rtl::UnitTiming& u : r.timing_closure.units) {
    if (u.unit == "normalize_affine") {
      EXPECT_GT(u.added_stages(), 0);
      EXPECT_EQ(r.cfg.normalize.latency_cycles, u.cycles);
    }
    if (u.unit == "rsqrt_unit") {
      EXPECT_EQ(r.cfg.rsqrt.latency_cycles, u.cycles);
    }
  }
  EXPECT_GT(r.cfg.timing_flip_flops, 0);
  // The report says the configured design misses the clock and what was added.
  EXPECT_FALSE(r.timing_closure.meets_clock());
  int added = r.timing_closure.sram.added_stages();
  for (const rtl::UnitTiming& u : r.timing_closure.units) added += u.added_stages();
  EXPECT_EQ(r.timing_closure.added_stages(), added);
  const nlohmann::json j = report::asic_report_json(r);
  EXPECT_EQ(j["timing_closure"]["meets_clock"], false);
  EXPECT_EQ(j["timing_closure"]["added_stages"], added);
  EXPECT_EQ(j["energy"]["flip_flops"].get<double>(), j["area"]["flip_flops"].get<double>());
  const std::string text = report::asic_summary_table(r, j);
  EXPECT_NE(text.find("timing_closure.meets_clock                   no  " + std::to_string(added) + " stages added"), std::string::npos)
      << text;
  // At 1 GHz the same design meets it as configured.
  d.arch.asic->clock_ghz = 1;
  const asic::AsicResult slow = asic::run_asic(d.workload, d.arch, o);
  EXPECT_TRUE(slow.timing_closure.meets_clock());
  EXPECT_EQ(slow.timing_closure.added_stages(), 0);
  // The added registers are clocked: dynamic energy (the clock's) grows with them.
  const nlohmann::json js = report::asic_report_json(slow);
  EXPECT_GT(j["energy"]["flip_flops"].get<double>() - js["energy"]["flip_flops"].get<double>(), r.cfg.timing_flip_flops - 1e-9);
  d.arch.asic->clock_ghz = 3;
  d.arch.asic->past_fmax = config::PastFmax::refuse;
  EXPECT_THROW(asic::run_asic(d.workload, d.arch, o), config::ConfigError);
  const Design fp = design("llama2-7b", "asic-fp32");
  EXPECT_TRUE(rtl::close_timing(fp.dp, *fp.arch.asic, 1024).units.empty());
}

// The SRAM: fakeram45's three macros at 45 nm and 1.1 V, log-linear between,
// scaled by the FO4; a read past its cycles is pipelined, a bank clocked past
// its minimum period refused.
TEST(SramTiming, TheFakeramMacrosAndTheCyclesAReadTakes) {
  const auto at = [](double bytes) { return area::sram_timing(bytes, "45nm", 1.1); };
  EXPECT_DOUBLE_EQ(at(256).access_ns, 0.207);
  EXPECT_DOUBLE_EQ(at(256).min_period_ns, 0.164);
  EXPECT_DOUBLE_EQ(at(64).access_ns, 0.207);  // the smallest's figures below
  EXPECT_DOUBLE_EQ(at(4096).access_ns, 0.305);
  EXPECT_DOUBLE_EQ(at(4096).min_period_ns, 0.293);
  EXPECT_NEAR(at(9984).access_ns, 0.435, 1e-12);
  EXPECT_NEAR(at(1024).access_ns, 0.207 + (0.305 - 0.207) * 2 / 4, 1e-12);
  for (double b = 256; b < 1 << 20; b *= 1.5) EXPECT_LT(at(b).access_ns, at(b * 1.5).access_ns) << b;
  EXPECT_DOUBLE_EQ(area::sram_timing(4096, "7nm", 0.8).access_ns,
                   0.305 * area::fo4_delay_ps("7nm", 0.8) / area::fo4_delay_ps("45nm", 1.1));

  const Design d = design("llama2-7b");
  config::AsicConfig c = *d.arch.asic;
  c.node = "45nm";
  c.supply_v = 1.1;
  c.sram.latency_cycles = 1;
  c.sram.banks = 1;
  c.clock_ghz = 3;  // 0.333 ns: a 4 KiB bank's 0.305 ns read fits, a 9984-byte bank's 0.435 ns takes 2 cycles
  EXPECT_EQ(rtl::close_timing(d.dp, c, 4096).sram.cycles, 1);
  const rtl::TimingClosure two = rtl::close_timing(d.dp, c, 9984);
  EXPECT_EQ(two.sram.cycles, 2);
  EXPECT_EQ(two.sram.added_stages(), 1);
  EXPECT_EQ(rtl::with_closed_timing(c, two).sram.latency_cycles, 2);
  c.past_fmax = config::PastFmax::refuse;
  EXPECT_NE(rtl::close_timing(d.dp, c, 9984).violation.find("SRAM read"), std::string::npos);
  c.clock_ghz = 4;  // 0.25 ns: under the 4 KiB bank's 0.293 ns minimum period
  EXPECT_NE(rtl::close_timing(d.dp, c, 4096).violation.find("more asic.sram.banks"), std::string::npos);
  // add_stages splits it: banks doubled until each cycles at the clock (the fewest such).
  c.past_fmax = config::PastFmax::add_stages;
  const rtl::TimingClosure split = rtl::close_timing(d.dp, c, 4096);
  ASSERT_TRUE(split.violation.empty()) << split.violation;
  EXPECT_GT(split.sram.banks, 1);
  EXPECT_LE(split.sram.min_period_ns, 0.25);
  EXPECT_GT(area::sram_timing(4096.0 / (split.sram.banks / 2), "45nm", 1.1).min_period_ns, 0.25);
  EXPECT_EQ(rtl::with_closed_timing(c, split).sram.banks, split.sram.banks);
  c.clock_ghz = 10;  // under the smallest macro's 0.164 ns: no split helps
  EXPECT_NE(rtl::close_timing(d.dp, c, 4096).violation.find("no faster"), std::string::npos);
}

// Every RSQRT unit is timed on its kind's depth fit: its multiplying stages
// (stages() less the normalise and the rounding), each the depth its fit
// gives its deepest stage's products.
TEST(TimingClosure, EachRsqrtUnitIsTimedOnItsKindsDepthFit) {
  Design d = design("gpt2-small");
  const config::AsicConfig c = *d.arch.asic;
  for (const core::RsqrtKind& k : core::rsqrt_kinds()) {
    d.dp.rsqrt = k.example;
    const rtl::TimingClosure t = rtl::close_timing(d.dp, c, 0);
    const rtl::UnitTiming* u = nullptr;
    for (const rtl::UnitTiming& x : t.units)
      if (x.unit == "rsqrt_unit") u = &x;
    ASSERT_NE(u, nullptr) << k.name;
    EXPECT_EQ(u->rtl_stages, std::max(k.example.stages() - 2, 1)) << k.name;
    const double products = k.depth_bit_products(area::rsqrt_inventory(d.dp.formats, k.example), k.example);
    EXPECT_EQ(products, area::rsqrt_stage_bit_products(d.dp.formats, k.example)) << k.name;
    EXPECT_DOUBLE_EQ(u->logic_levels, k.depth_a + k.depth_b * std::log2(products)) << k.name;
    EXPECT_GT(u->fmax_ghz, 0) << k.name;
  }
  // The units' fits differ: a unit is not timed on another's.
  EXPECT_NE(core::rsqrt_kinds()[0].depth_b, core::rsqrt_kinds()[1].depth_b);
}
