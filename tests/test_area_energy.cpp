// Energy scaling and the per-access figures of sim/area against hand
// arithmetic on the sourced constants (sim/area/SOURCES.md).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "sim/area/area_energy.hpp"
#include "sim/area/run_costs.hpp"
#include "sim/config/asic_params.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/config/workload.hpp"

#include <map>

using namespace normsim;

namespace {
double poly(double a, double b, double c, double v) { return a * v * v + b * v + c; }
const double kE45at09 = poly(1.103, -0.362, 0.2767, 0.9);
// llama2-7b on asic-default: its datapath, timing config and a run of 1000
// elements for a millisecond on 40960 B of SRAM.
struct LlamaRun {
  config::Workload w;
  config::AsicConfig c;
  core::DatapathConfig dp;
  area::RunActivity run;
};
LlamaRun llama_run() {
  const config::Arch a = config::load_arch(NORMSIM_TEST_SOURCE_DIR "/workloads/arch/asic-default.yaml");
  LlamaRun r{config::load_workload(NORMSIM_TEST_SOURCE_DIR "/workloads/llama2-7b.yaml"), *a.asic, {}, {}};
  r.dp = config::datapath_config(r.w, a);
  r.run.sram_required_bytes = 40960;
  r.run.elements = 1000;
  r.run.seconds = 1e-3;
  return r;
}
}  // namespace

TEST(EnergyFactor, HorowitzPointIsOneExactly) { EXPECT_EQ(area::energy_factor("45nm", 0.9), 1.0); }

TEST(EnergyFactor, FittedNodesMatchThePolynomials) {
  EXPECT_DOUBLE_EQ(area::energy_factor("7nm", 0.8), poly(0.1776, -0.09097, 0.02447, 0.8) / kE45at09);
  EXPECT_DOUBLE_EQ(area::energy_factor("16nm", 0.8), poly(0.2958, -0.1241, 0.03024, 0.8) / kE45at09);
  // 28 nm: 8/12 of the way from 32 nm to 20 nm.
  const double e32 = poly(0.9559, -0.7823, 0.471, 0.9), e20 = poly(0.373, -0.1582, 0.04104, 0.9);
  EXPECT_DOUBLE_EQ(area::energy_factor("28nm", 0.9), (e32 + (e20 - e32) * 4.0 / 12.0) / kE45at09);
  // Hand value at 7 nm, 0.8 V: (0.113664 - 0.072776 + 0.02447) / (0.89343 - 0.3258 + 0.2767) = 0.065358 / 0.84433.
  EXPECT_NEAR(area::energy_factor("7nm", 0.8), 0.077408, 5e-6);
}

TEST(EnergyFactor, FallsWithNodeAndRisesWithVoltage) {
  const char* nodes[] = {"45nm", "28nm", "16nm", "7nm"};
  for (int i = 0; i + 1 < 4; ++i) EXPECT_GT(area::energy_factor(nodes[i], 0.8), area::energy_factor(nodes[i + 1], 0.8));
  for (const char* n : nodes)
    for (double v = 0.5; v < 1.2; v += 0.05) EXPECT_LT(area::energy_factor(n, v), area::energy_factor(n, v + 0.05)) << n << " " << v;
}

TEST(EnergyFactor, UnknownNodeNamesTheAllowedOnes) {
  try {
    area::energy_factor("3nm", 0.8);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("45nm, 28nm, 16nm, 7nm"), std::string::npos);
  }
}

TEST(SramEnergy, HorowitzPointsAndLogLinearBetween) {
  EXPECT_DOUBLE_EQ(area::sram_pj_per_byte(8192), 10.0 / 8);
  EXPECT_DOUBLE_EQ(area::sram_pj_per_byte(32768), 20.0 / 8);
  EXPECT_DOUBLE_EQ(area::sram_pj_per_byte(1 << 20), 100.0 / 8);
  EXPECT_DOUBLE_EQ(area::sram_pj_per_byte(16384), 15.0 / 8);
  EXPECT_DOUBLE_EQ(area::sram_pj_per_byte(1 << 17), (20.0 + 2.0 / 5 * 80) / 8);
  // Below 8 KB: as the square root of the bank's bytes (the 8-32 KB segment's
  // law: 4x the bytes, 2x the energy), down to the smallest macro, 128 B.
  EXPECT_DOUBLE_EQ(area::sram_pj_per_byte(2048), 5.0 / 8);
  EXPECT_DOUBLE_EQ(area::sram_pj_per_byte(512), 2.5 / 8);
  EXPECT_DOUBLE_EQ(area::sram_pj_per_byte(128), 1.25 / 8);
  EXPECT_DOUBLE_EQ(area::sram_pj_per_byte(16), 1.25 / 8);
  for (double b = 128; b < 8192; b *= 1.5) EXPECT_LT(area::sram_pj_per_byte(b), area::sram_pj_per_byte(b * 1.5)) << b;
}

// The registers' clock: every flip-flop of the design each cycle of the run,
// at Aladdin's 0.009 pJ scaled to the node; the flip-flops timing closure
// adds are charged with the rest.
TEST(ClockEnergy, EveryFlipFlopEveryCycleAtTheNode) {
  auto [w, c, dp, run] = llama_run();
  run.cycles = 1e6;
  const area::RunCosts one = area::run_costs(dp, c, run);
  double ff = 0;
  for (const auto& u : one.area.units) {
    if (u.per_instance) {
      EXPECT_EQ(u.flip_flops, u.per_instance->flip_flops * u.instances) << u.unit;
    }
    ff += u.flip_flops;
  }
  EXPECT_GT(ff, 0);
  EXPECT_EQ(one.activity.flip_flops, ff);
  EXPECT_EQ(one.energy.clock_pj, ff * 1e6 * area::kPjPerFlipFlopCycle * area::energy_factor(c.node, c.supply_v));
  EXPECT_DOUBLE_EQ(one.energy.total_pj() - one.energy.clock_pj,
                   one.energy.dram_pj + one.energy.sram_pj() + one.energy.datapath_pj + one.energy.residual_add_pj +
                       one.energy.dropout_mask_pj + one.energy.leakage_pj);
  c.timing_flip_flops = 5000;
  const area::RunCosts more = area::run_costs(dp, c, run);
  EXPECT_EQ(more.activity.flip_flops, ff + 5000);
  EXPECT_GT(more.energy.clock_pj, one.energy.clock_pj);
  // fp32 units count their registers too.
  const config::Arch f = config::load_arch(NORMSIM_TEST_SOURCE_DIR "/workloads/arch/asic-fp32.yaml");
  EXPECT_GT(area::run_costs(config::datapath_config(w, f), *f.asic, run).activity.flip_flops, 0);
}

TEST(EstimateEnergy, SumsItsPartsAndScalesByTheNode) {
  core::DatapathConfig dp;
  dp.lanes = 8;
  area::ActivityCounts a;
  a.dram_bytes = 1000;
  a.dram_pj_per_bit = 3.9;
  a.sram_read_bytes = 4000;
  a.sram_write_bytes = 2000;
  a.sram_bank_bytes = 32768;
  a.elements = 1024;
  a.rows = 4;
  a.node = "7nm";
  a.supply_v = 0.8;
  const area::EnergyReport r = area::estimate_energy(dp, a);
  const double f = area::energy_factor("7nm", 0.8);
  EXPECT_EQ(r.node_factor, f);
  EXPECT_EQ(r.dram_pj, 1000 * 8 * 3.9);  // DRAM is the interface's figure, not scaled by the node
  EXPECT_DOUBLE_EQ(r.sram_read_pj_per_byte, 2.5 * f);
  EXPECT_DOUBLE_EQ(r.sram_write_pj_per_byte, 2.5 * f * 0.049 / 0.035);
  EXPECT_DOUBLE_EQ(r.sram_read_pj, 4000 * r.sram_read_pj_per_byte);
  EXPECT_DOUBLE_EQ(r.sram_write_pj, 2000 * r.sram_write_pj_per_byte);
  const area::EnergyPerOp eo = area::estimate_op_energy(dp);
  EXPECT_DOUBLE_EQ(r.datapath_pj, (1024 * (eo.lane_op_pj + eo.normalize_op_pj) + 4 * eo.row_pj) * f);
  EXPECT_EQ(r.total_pj(), r.dram_pj + r.sram_read_pj + r.sram_write_pj + r.datapath_pj);
  a.node = "45nm";
  a.supply_v = 0.9;
  const area::EnergyReport r45 = area::estimate_energy(dp, a);
  EXPECT_DOUBLE_EQ(r45.datapath_pj * f, r.datapath_pj);
  EXPECT_EQ(r45.dram_pj, r.dram_pj);
}

TEST(DramInterface, EveryNameRoundTripsWithItsSourcedEnergy) {
  const std::pair<const char*, double> table[] = {{"hbm2", 3.9}, {"hbm2e", 6.0},   {"hbm3e", 3.9}, {"gddr5", 14.0},
                                                  {"gddr6", 7.5}, {"gddr6x", 7.25}, {"lpddr4", 8.0}, {"ddr3", 70.0}};
  for (const auto& [name, pj] : table) {
    const auto i = config::parse_dram_interface(name);
    ASSERT_TRUE(i) << name;
    EXPECT_EQ(config::to_string(*i), name);
    EXPECT_EQ(config::dram_interface_pj_per_bit(*i), pj) << name;
  }
  EXPECT_FALSE(config::parse_dram_interface("hbm4"));
  config::DramConfig d;
  d.interface = config::DramInterface::lpddr4;
  EXPECT_EQ(d.pj_per_bit(), 8.0);
  d.energy_pj_per_bit = 5.5;
  EXPECT_EQ(d.pj_per_bit(), 5.5);
}

// The variance is (M2 or the square sum) x 1/C: a multiplier by a constant,
// or a fixed shift (wiring) where C is a power of two.
TEST(EstimateArea, TheVarianceScaleIsAShiftAtAPowerOfTwoRowLength) {
  const config::Arch a = config::load_arch(NORMSIM_TEST_SOURCE_DIR "/workloads/arch/asic-default.yaml");
  config::Workload w = config::load_workload(NORMSIM_TEST_SOURCE_DIR "/workloads/bert-large.yaml");
  auto scale_of = [&](int64_t hidden) {
    w.hidden = hidden;
    const core::DatapathConfig dp = config::datapath_config(w, a);
    for (const auto& u : area::estimate_area(dp, {}, "7nm", 3).units)
      if (u.unit == "variance_scale") return std::pair{u.ge, area::estimate_op_energy(dp).row_pj};
    ADD_FAILURE() << "no variance_scale unit";
    return std::pair{0.0, 0.0};
  };
  const auto [ge_pow2, row_pow2] = scale_of(1024);
  const auto [ge_other, row_other] = scale_of(1000);
  const core::DatapathConfig dp = config::datapath_config(w, a);
  const int m2 = dp.formats[static_cast<int>(core::Stage::m2)].total_bits;
  const int rc = dp.formats[static_cast<int>(core::Stage::recip)].total_bits;
  // What the multiplier adds, at the fitted cost of a bit product and Horowitz's energy of one.
  EXPECT_NEAR(ge_other - ge_pow2, area::kFittedLogicCosts.multiplier_bit_product * m2 * rc, 1e-9);
  EXPECT_GT(row_other, row_pow2);
  EXPECT_NEAR(row_other - row_pow2, 3.1 / 1024 * m2 * rc, 1e-12);
}

// An SRAM is its macros: each bank its bit cells and a periphery growing as
// the square root of its bits (CACTI-7's 8 KiB macro: 15% cells); more banks
// are smaller macros with more periphery in all, at every size; a second
// port takes 8T cells and a second periphery.
TEST(SramArea, BanksAndPortsCostWhatTheirMacrosCost) {
  const area::NodeTable nt = *area::node_table("7nm");
  const double bytes = 64 * 1024;
  const double cell = 8 * nt.bitcell_um2;
  EXPECT_NEAR(area::sram_periphery_over_cells(8192), 1 / 0.15 - 1, 1e-12);
  EXPECT_DOUBLE_EQ(area::sram_periphery_over_cells(2048), 2 * area::sram_periphery_over_cells(8192));
  // ~0.70 of an N5 1 MiB macro is cells; the law gives 0.67.
  EXPECT_NEAR(1 / (1 + area::sram_periphery_over_cells(1 << 20)), 0.666, 0.001);
  EXPECT_DOUBLE_EQ(area::sram_area_um2({bytes, 1, 1}, nt), bytes * cell * (1 + area::sram_periphery_over_cells(bytes)));
  const double bank = bytes / 8;
  const double k = area::sram_periphery_over_cells(bank);
  EXPECT_DOUBLE_EQ(area::sram_area_um2({bytes, 8, 1}, nt), 8 * bank * cell * (1 + k));
  EXPECT_DOUBLE_EQ(area::sram_area_um2({bytes, 8, 2}, nt), 8 * (bank * cell * 8.0 / 6.0 + 2 * bank * cell * k));
  // Splitting costs area at every size, small banks included.
  for (double b : {2048.0, 20480.0, 65536.0, 1048576.0})
    for (int banks = 1; banks < 256; banks *= 2)
      EXPECT_GT(area::sram_area_um2({b, 2 * banks, 1}, nt), area::sram_area_um2({b, banks, 1}, nt)) << b << " " << banks;
  EXPECT_EQ(area::sram_area_um2({0, 8, 2}, nt), 0.0);
  // In a run's report: the configured banks and ports cost area.
  const config::Arch a = config::load_arch(NORMSIM_TEST_SOURCE_DIR "/workloads/arch/asic-default.yaml");
  const config::Workload w = config::load_workload(NORMSIM_TEST_SOURCE_DIR "/workloads/llama2-7b.yaml");
  config::AsicConfig c = *a.asic;
  area::RunActivity run;
  run.sram_required_bytes = bytes;
  const auto dp = config::datapath_config(w, a);
  c.sram.banks = 2;
  const double two = area::run_costs(dp, c, run).area.sram_um2;
  c.sram.banks = 8;
  const double eight = area::run_costs(dp, c, run).area.sram_um2;
  EXPECT_DOUBLE_EQ(two, area::sram_area_um2({bytes, 2, 1}, nt));
  EXPECT_DOUBLE_EQ(eight, area::sram_area_um2({bytes, 8, 1}, nt));
}

// Leakage: OpenROAD-flow-scripts' aes at NanGate45 and ASAP7 (leakage over
// cell area), log-linear in feature size between them, and falling with it.
TEST(Leakage, NodeDensitiesAreTheMeasuredFlowsAndTheirInterpolation) {
  EXPECT_DOUBLE_EQ(area::node_table("45nm")->leakage_mw_per_mm2, 0.7 / 27202.8e-6);
  EXPECT_DOUBLE_EQ(area::node_table("7nm")->leakage_mw_per_mm2, 4.41e-3 / 2762e-6);
  const double l45 = 0.7 / 27202.8e-6, l7 = 4.41e-3 / 2762e-6;
  for (const auto& [node, nm] : {std::pair{"28nm", 28.0}, std::pair{"16nm", 16.0}}) {
    const double t = std::log(45 / nm) / std::log(45.0 / 7);
    EXPECT_NEAR(area::node_table(node)->leakage_mw_per_mm2, l45 * std::pow(l7 / l45, t), 1e-9) << node;
  }
  EXPECT_GT(area::node_table("28nm")->leakage_mw_per_mm2, area::node_table("16nm")->leakage_mw_per_mm2);
  EXPECT_GT(area::node_table("16nm")->leakage_mw_per_mm2, l7);
}

// A run leaks for its time: energy = density x cell area x seconds, part of
// the total; the placement's whitespace does not leak; the arch's density
// replaces the node's.
TEST(Leakage, ARunIsChargedItsLeakageForItsTime) {
  auto [w, c, dp, run] = llama_run();
  const area::RunCosts one = area::run_costs(dp, c, run);
  const area::NodeTable nt = *area::node_table(c.node);
  EXPECT_EQ(one.leakage_mw_per_mm2, nt.leakage_mw_per_mm2);
  double logic_ge = 0;
  for (const auto& u : one.area.units) logic_ge += u.ge;
  EXPECT_NEAR(one.area.cell_um2, one.area.datapath_um2 + one.area.sram_um2 - logic_ge * nt.nand2_um2 * (1 / area::kUtilisation - 1),
              1e-6);
  EXPECT_LT(one.area.cell_um2, one.area.total_mm2() * 1e6);
  EXPECT_EQ(one.leakage_mw, one.area.cell_um2 * 1e-6 * nt.leakage_mw_per_mm2);
  EXPECT_EQ(one.energy.leakage_pj, one.leakage_mw * 1e-3 * 1e-3 * 1e12);
  EXPECT_GT(one.energy.leakage_pj, 0);
  run.seconds = 2e-3;
  const area::RunCosts two = area::run_costs(dp, c, run);
  EXPECT_DOUBLE_EQ(two.energy.leakage_pj, 2 * one.energy.leakage_pj);
  EXPECT_DOUBLE_EQ(two.energy.total_pj() - one.energy.total_pj(), one.energy.leakage_pj);
  c.leakage_mw_per_mm2 = 100.0;
  const area::RunCosts given = area::run_costs(dp, c, run);
  EXPECT_EQ(given.leakage_mw_per_mm2, 100.0);
  EXPECT_DOUBLE_EQ(given.energy.leakage_pj, two.energy.leakage_pj * 100.0 / nt.leakage_mw_per_mm2);
  c.leakage_mw_per_mm2 = 0.0;
  EXPECT_EQ(area::run_costs(dp, c, run).energy.leakage_pj, 0.0);
}

// The backward unit's logic (docs/ASIC.md, "Backward"): its units replace
// the forward's, and each operator follows its format.
TEST(BackwardArea, TheBackwardUnitsReplaceTheForwardsAndFollowTheirFormats) {
  const config::Arch a = config::load_arch(std::string(NORMSIM_TEST_SOURCE_DIR) + "/workloads/arch/asic-default.yaml");
  config::Workload w = config::load_workload(std::string(NORMSIM_TEST_SOURCE_DIR) + "/workloads/bert-large-bwd.yaml");
  const core::DatapathConfig dp = config::datapath_config(w, a);
  core::BackwardConfig b = config::backward_config(w, a);
  const area::SramMacros sram{65536, 8, 1};
  auto units = [&](const core::BackwardConfig& bc) {
    std::map<std::string, double> u;
    for (const auto& x : area::estimate_area(dp, sram, "7nm", 1, &bc).units) u[x.unit] = x.um2;
    return u;
  };
  const auto base = units(b);
  EXPECT_EQ(base.size(), 6u);
  for (const char* n : {"row_sum_lanes", "param_grad_lanes", "row_sum_tree", "row_sum_tree_registers", "row_mean_unit", "dx_lanes"})
    EXPECT_GT(base.count(n), 0u) << n;
  // C = 1024: S/C is a shift, its requantisers only; C = 1000 multiplies by 1/C.
  core::BackwardConfig c1000 = b;
  c1000.hidden = 1000;
  EXPECT_GT(units(c1000).at("row_mean_unit"), 10 * base.at("row_mean_unit"));
  // x_hat read back as stored: no subtract-multiply in either lane.
  core::BackwardConfig stored = b;
  stored.xhat_stored = true;
  EXPECT_LT(units(stored).at("row_sum_lanes"), base.at("row_sum_lanes"));
  EXPECT_LT(units(stored).at("dx_lanes"), base.at("dx_lanes"));
  // A wider dgamma accumulator costs its read-modify-write, not the row sums or the dx unit.
  core::BackwardConfig wide = b;
  wide.formats[static_cast<int>(core::BackwardStage::dgamma)].total_bits += 16;
  EXPECT_GT(units(wide).at("param_grad_lanes"), base.at("param_grad_lanes"));
  EXPECT_EQ(units(wide).at("row_sum_lanes"), base.at("row_sum_lanes"));
  EXPECT_EQ(units(wide).at("dx_lanes"), base.at("dx_lanes"));
  // A truncating, wrapping dx register is wiring: cheaper than half-even saturating.
  core::BackwardConfig cheap = b;
  cheap.formats[static_cast<int>(core::BackwardStage::dx)].rounding = core::Rounding::truncate;
  cheap.formats[static_cast<int>(core::BackwardStage::dx)].overflow = core::Overflow::wrap;
  EXPECT_LT(units(cheap).at("dx_lanes"), base.at("dx_lanes"));
  // RMSNorm has no S1 and no dbeta: smaller lanes and tree.
  w.norm = core::NormKind::rmsnorm;
  w.beta.reset();
  const auto rms = units(config::backward_config(w, a));
  EXPECT_LT(rms.at("row_sum_lanes"), base.at("row_sum_lanes"));
  EXPECT_LT(rms.at("param_grad_lanes"), base.at("param_grad_lanes"));
  EXPECT_LT(rms.at("row_sum_tree"), base.at("row_sum_tree"));
  // Energy: the lanes and the dx unit per element, the tree per row.
  const area::EnergyPerOp e = area::estimate_op_energy(dp, &b), f = area::estimate_op_energy(dp);
  EXPECT_GT(e.lane_op_pj, 0);
  EXPECT_GT(e.normalize_op_pj, 0);
  EXPECT_NE(e.lane_op_pj, f.lane_op_pj);
}
