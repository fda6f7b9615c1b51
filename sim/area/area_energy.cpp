#include "sim/area/area_energy.hpp"

#include "sim/core/merge_schedule.hpp"
#include "sim/core/rsqrt_kind.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace normsim::area {

namespace {
using core::Stage;

// Horowitz 2014 at 45 nm (um^2): fp32 add 4184, fp32 mult 7700; in GE at
// NanGate45's 0.798 um^2: fp32 adder 5243 GE, fp32 multiplier 9649 GE.
constexpr double kGeFp32Add = 4184.0 / 0.798;
constexpr double kGeFp32Mul = 7700.0 / 0.798;
// Energy at 45 nm: 32b add 0.1 pJ, 32b mult 3.1 pJ, fp32 add 0.9 pJ, fp32 mult 3.7 pJ.
constexpr double kPjPerAdderBit = 0.1 / 32;
constexpr double kPjPerMulBitProduct = 3.1 / 1024;
constexpr double kPjFp32Add = 0.9, kPjFp32Mul = 3.7;

int bits(const core::DatapathConfig& dp, Stage s) { return dp.formats[static_cast<int>(s)].total_bits; }
double regs(int w) { return kGePerFlipFlop * w; }
}  // namespace

// Fitted by tools/area/calibrate_area.py (least squares on yosys 0.23 synth +
// abc -fast of rtl_models/ over the sweep in docs/AREA.md).
const LogicCosts kFittedLogicCosts{14.8238, 12.0839, 0.0, 4.1573};
const LogicCosts kFittedBackwardLogicCosts{14.8563, 11.8074, 0.0, 0.0, 13.5792, 8.3208, 2.6830};

double logic_ge(const LogicInventory& v, const LogicCosts& c) {
  return c.adder_bit * v.adder_bits + c.multiplier_bit_product * v.multiplier_bit_products +
         c.requant_bit * v.requant_bits + c.shifter_bit * v.shifter_bits + c.mac_bit_product * v.mac_bit_products +
         c.round_bit * v.round_bits + c.saturate_bit * v.saturate_bits + kGePerFlipFlop * v.flip_flops +
         kGePerMuxBit * v.mux_bits;
}

namespace {
// Leakage of placed standard cells per mm^2 of cell area, measured by
// OpenROAD-flow-scripts on its `aes` design (metadata-base-ok.json):
// NanGate45 0.7 mW over 27202.8 um^2 of cells; ASAP7 4.41 uW over 2762 um^2.
constexpr double kLeakage45nm = 0.7 / 27202.8e-6, kLeakage7nm = 4.41e-3 / 2762e-6;
// Between them, log-linear in the feature size (derived; no public library at 28 or 16 nm).
double interpolated_leakage(double nm) {
  const double t = std::log(45.0 / nm) / std::log(45.0 / 7.0);
  return std::exp(std::log(kLeakage45nm) + t * (std::log(kLeakage7nm) - std::log(kLeakage45nm)));
}
constexpr const char* kLeakageDerived =
    "derived: log-linear in feature size between NanGate45 and ASAP7 (OpenROAD-flow-scripts aes)";
}  // namespace

std::optional<NodeTable> node_table(const std::string& node) {
  // Stillmaker & Baas area factors from 45 nm: 32 nm 0.46, 16 nm 0.19.
  if (node == "45nm")
    return NodeTable{node, 45, 0.798, "NanGate45 NAND2_X1 (OpenROAD-flow-scripts LEF)", 0.242,
                     "TSMC 40 nm 6T HD cell (WikiChip), nearest published to 45 nm", kLeakage45nm,
                     "OpenROAD-flow-scripts nangate45/aes: 0.7 mW leakage over 27202.8 um^2 of cells"};
  if (node == "28nm")
    return NodeTable{node, 28, 0.798 * 0.46, "derived: NanGate45 x Stillmaker-Baas 32 nm area factor 0.46", 0.127,
                     "TSMC 28 nm 6T HD cell (WikiChip)", interpolated_leakage(28), kLeakageDerived};
  if (node == "16nm")
    return NodeTable{node, 16, 0.798 * 0.19, "derived: NanGate45 x Stillmaker-Baas 16 nm area factor 0.19", 0.072,
                     "TSMC 16FF 6T HD cell 0.070-0.074 (WikiChip)", interpolated_leakage(16), kLeakageDerived};
  if (node == "7nm")
    return NodeTable{node, 7, 0.0583, "ASAP7 NAND2xp5 (asap7sc7p5t LEF)", 0.027, "TSMC N7 6T HD cell (WikiChip)", kLeakage7nm,
                     "OpenROAD-flow-scripts asap7/aes: 4.41 uW leakage over 2762 um^2 of cells"};
  return std::nullopt;
}

void add_timing_registers(AreaReport& r, double flip_flops, const std::string& node) {
  if (flip_flops <= 0) return;
  const NodeTable nt = *node_table(node);
  UnitArea u;
  u.unit = "timing_registers";
  u.ge = flip_flops * kGePerFlipFlop;
  u.flip_flops = flip_flops;
  u.um2 = u.ge * nt.nand2_um2 / kUtilisation;
  r.units.push_back(u);
  r.datapath_um2 += u.um2;
  r.cell_um2 += u.ge * nt.nand2_um2;
}

double sram_array_efficiency(double bytes) {
  const double lo = std::log2(8.0 * 1024), hi = std::log2(1024.0 * 1024);
  const double t = std::clamp((std::log2(std::max(bytes, 1.0)) - lo) / (hi - lo), 0.0, 1.0);
  return 0.15 + t * (0.70 - 0.15);
}

double sram_periphery_over_cells(double bank_bytes) {
  return kSramPeripheryAt8KiB * std::sqrt(8192.0 / std::max(bank_bytes, 1.0));
}

double AreaReport::flip_flops() const {
  double n = 0;
  for (const UnitArea& u : units) n += u.flip_flops;
  return n;
}

double sram_area_um2(const SramMacros& s, const NodeTable& nt) {
  if (s.bytes <= 0) return 0;
  const double bank_bytes = s.bytes / s.banks;
  const double cells_um2 = bank_bytes * 8 * nt.bitcell_um2;  // single-port cells
  const double periphery_um2 = cells_um2 * sram_periphery_over_cells(bank_bytes);
  const double cell_factor = s.ports >= 2 ? kDualPortCellOverSinglePort : 1.0;
  return s.banks * (cells_um2 * cell_factor + periphery_um2 * s.ports);
}


AreaReport estimate_area(const core::DatapathConfig& dp, const SramMacros& sram, const std::string& node,
                         int merge_level_cycles, const core::BackwardConfig* backward) {
  const std::optional<NodeTable> table = node_table(node);
  if (!table) throw std::invalid_argument("area: no sourced table for node '" + node + "' (allowed: 45nm, 28nm, 16nm, 7nm)");
  const NodeTable nt = *table;
  AreaReport r;
  r.node = node;
  const int L = dp.lanes;
  const bool fixed = dp.arithmetic == core::Arithmetic::fixed;
  const bool rms = dp.kind == core::NormKind::rmsnorm;
  const bool welford = !rms && dp.algorithm == core::VarianceAlgorithm::welford;
  const int64_t per_lane = (dp.hidden + L - 1) / L;
  auto add_unit = [&](const std::string& name, double ge, double table_bits, double flip_flops = 0) {
    UnitArea u;
    u.unit = name;
    u.ge = ge;
    u.table_bits = table_bits;
    u.flip_flops = flip_flops;
    u.um2 = ge * nt.nand2_um2 / kUtilisation + table_bits * nt.bitcell_um2 / sram_array_efficiency(table_bits / 8);
    r.units.push_back(u);
    r.datapath_um2 += u.um2;
    r.cell_um2 += u.um2 - ge * nt.nand2_um2 * (1 / kUtilisation - 1);  // less the placement's whitespace
  };
  const core::MergeSchedule merge{L, dp.merge_units};
  auto add_rtl_unit = [&](const std::string& name, int instances, const LogicInventory& one, double table_bits) {
    add_unit(name, instances * logic_ge(one), table_bits, instances * one.flip_flops);
    r.units.back().instances = instances;
    r.units.back().per_instance = one;
  };
  if (backward && fixed) {
    // The backward's RTL units (docs/ASIC.md, "Backward"); the tree's
    // pipeline registers as the forward's dedicated tree has them.
    const core::BackwardConfig& b = *backward;
    const int state_bits = (b.kind == core::NormKind::rmsnorm ? 0 : b.formats[static_cast<int>(core::BackwardStage::sum_g)].total_bits) +
                           b.formats[static_cast<int>(core::BackwardStage::sum_gxhat)].total_bits;
    auto add_backward_unit = [&](const std::string& name, int instances, const LogicInventory& one) {
      add_unit(name, instances * logic_ge(one, kFittedBackwardLogicCosts), 0, instances * one.flip_flops);
      r.units.back().instances = instances;
      r.units.back().per_instance = one;
    };
    add_backward_unit("row_sum_lanes", L, row_sum_lane_inventory(b));
    add_backward_unit("param_grad_lanes", L, param_grad_inventory(b));
    add_backward_unit("row_sum_tree", L - 1, row_sum_node_inventory(b));
    add_rtl_unit("row_sum_tree_registers", 1, merge_tree_register_inventory(L, merge_level_cycles, state_bits), 0);
    add_backward_unit("row_mean_unit", 1, row_mean_inventory(b));
    add_backward_unit("dx_lanes", L, dx_lane_inventory(b));
  } else if (backward) {
    // fp32: x_hat (add, multiply) unless stored, g (multiply); S1 += g, S2 and
    // dgamma as multiply-adds, dbeta += dy; dx: x_hat and g again, two
    // multiply-adds and the rstd/C multiply.
    const bool rms = backward->kind == core::NormKind::rmsnorm, recompute = !backward->xhat_stored;
    const double xg = (recompute ? kGeFp32Add + kGeFp32Mul : 0.0) + kGeFp32Mul;
    const int state = rms ? 32 : 64;
    add_unit("row_sum_lanes", L * (xg + (rms ? 1 : 2) * kGeFp32Add + kGeFp32Mul + regs(state)), 0, L * state);
    add_unit("param_grad_lanes", L * ((rms ? 1 : 2) * kGeFp32Add + kGeFp32Mul), 0);
    add_unit("row_sum_tree", (L - 1) * ((rms ? 1 : 2) * kGeFp32Add + regs(state)), 0, (L - 1) * state);
    add_unit("row_mean_unit", 2 * kGeFp32Mul, 0);
    add_unit("dx_lanes", L * (xg + 2 * kGeFp32Add + 3 * kGeFp32Mul + regs(32)), 0, L * 32);
  } else if (fixed) {
    const auto& f = dp.formats;
    const int in = bits(dp, Stage::input), sum = bits(dp, Stage::sum), sq = bits(dp, Stage::sumsq),
              rc = bits(dp, Stage::recip), var = bits(dp, Stage::variance);
    // The merge: L - 1 dedicated nodes and their pipeline registers, or U
    // shared units inside their sequencer (one instance: units + buffer + muxes).
    auto add_merge = [&](const char* tree_name, const LogicInventory& node, int state_bits, int coef_bits) {
      if (!merge.shared()) {
        add_rtl_unit(tree_name, L - 1, node, 0);
        add_rtl_unit("merge_tree_registers", 1, merge_tree_register_inventory(L, merge_level_cycles, state_bits), 0);
      } else {
        LogicInventory seq = static_cast<double>(merge.units) * node;
        seq += merge_sequencer_inventory(L, merge.units, merge_level_cycles, state_bits, coef_bits);
        add_rtl_unit("merge_sequencer", 1, seq, 0);
      }
    };
    if (welford) {
      add_rtl_unit("welford_lanes", L, welford_lane_inventory(f, count_bits(per_lane)), static_cast<double>(per_lane) * rc);
      const int nw = count_bits(dp.hidden);
      add_merge("chan_merge_tree", chan_merge_inventory(f, nw), nw + bits(dp, Stage::mean) + bits(dp, Stage::m2), rc);
    } else {
      LogicInventory lane;
      lane.adder_bits = (rms ? 0 : sum) + sq;
      lane.multiplier_bit_products = static_cast<double>(in) * in;
      lane.requant_bits = (rms ? 0 : sum) + sq;
      lane.flip_flops = (rms ? 0 : sum) + sq;
      add_unit(rms ? "square_sum_lanes" : "sum_lanes", L * logic_ge(lane), 0, L * lane.flip_flops);
      LogicInventory node = adder_node_inventory(sq);
      if (!rms) node += adder_node_inventory(sum);
      add_merge("adder_tree", node, (rms ? 0 : sum) + sq, 0);
    }
    // variance = (M2 or the square sum) x 1/C, into the rsqrt_in format with
    // eps: a multiplier by the constant 1/C, or wiring (a fixed shift) where
    // C is a power of two.
    LogicInventory scale;
    if (!std::has_single_bit(static_cast<uint64_t>(dp.hidden)))
      scale.multiplier_bit_products = static_cast<double>(welford ? bits(dp, Stage::m2) : sq) * rc;
    scale.adder_bits = var;
    scale.requant_bits = 2.0 * var;
    add_unit("variance_scale", logic_ge(scale), 0);
    add_rtl_unit("rsqrt_unit", 1, rsqrt_inventory(f, dp.rsqrt), static_cast<double>(dp.rsqrt.rom_words()) * dp.rsqrt.rom_word_bits());
    add_rtl_unit("normalize_affine", L, normalize_inventory(f), 0);
  } else {
    // fp32 nodes (operators and a pipeline register each), dedicated or shared
    // in a sequencer over fp32 (count, mean, M2) or sum states.
    // node_ff: a node's pipeline register.
    auto add_merge = [&](const char* tree_name, double node_ge, double node_ff, int state_bits, int coef_bits) {
      if (!merge.shared()) add_unit(tree_name, (L - 1) * node_ge, 0, (L - 1) * node_ff);
      else {
        const LogicInventory seq = merge_sequencer_inventory(L, merge.units, merge_level_cycles, state_bits, coef_bits);
        add_unit("merge_sequencer", merge.units * node_ge + logic_ge(seq), 0, merge.units * node_ff + seq.flip_flops);
      }
    };
    if (welford) {
      add_unit("welford_lanes", L * (4 * kGeFp32Add + 2 * kGeFp32Mul + regs(96)), static_cast<double>(per_lane) * 32, L * 96);
      add_merge("chan_merge_tree", 4 * kGeFp32Add + 4 * kGeFp32Mul + regs(64), 64, 96, 32);
    } else {
      add_unit(rms ? "square_sum_lanes" : "sum_lanes", L * ((rms ? 1 : 2) * kGeFp32Add + kGeFp32Mul + regs(64)), 0, L * 64);
      add_merge("adder_tree", (rms ? 1 : 2) * kGeFp32Add, 0, rms ? 32 : 64, 0);
    }
    add_unit("rsqrt_unit", 2 * (3 * kGeFp32Mul + kGeFp32Add) + kGeFp32Mul, 256.0 * 32);
    add_unit("normalize_affine", L * (2 * kGeFp32Add + 2 * kGeFp32Mul + regs(32)), 0, L * 32);
  }
  // A fused residual workload's adder in front of the lanes and the mask
  // generator: four words a Philox pipeline a cycle, for L elements a cycle.
  // An adder lane's register: the fixed-point inventory's, or fp32's 32 bits.
  auto adder_lane_ff = [&](bool dropout) {
    return dp.residual_add.fixed ? residual_add_inventory(dp.residual_add.format, dropout).flip_flops : 32.0;
  };
  if (dp.residual_adder) {
    add_unit("residual_adder", L * residual_adder_lane_ge(dp.residual_add, dp.mask_generator), 0,
             L * adder_lane_ff(dp.mask_generator));
    r.units.back().instances = L;
    if (dp.residual_add.fixed) r.units.back().per_instance = residual_add_inventory(dp.residual_add.format, dp.mask_generator);
  }
  // A Post-Norm backward's branch gradient: the adder lane again, r at zero.
  if (dp.branch_grad_scaler) {
    add_unit("branch_grad_scaler", L * residual_adder_lane_ge(dp.residual_add, true), 0, L * adder_lane_ff(true));
    r.units.back().instances = L;
    if (dp.residual_add.fixed) r.units.back().per_instance = residual_add_inventory(dp.residual_add.format, true);
  }
  if (dp.mask_generator) {
    // A backward that re-makes z and scales the branch draws the mask twice
    // an element (rows at the input and at the output): two sets.
    const int pipelines = (L + 3) / 4 * (dp.residual_adder && dp.branch_grad_scaler ? 2 : 1);
    add_unit("dropout_mask_generator", pipelines * kGePhiloxPipeline, 0, pipelines * kPhiloxPipelineFlipFlops);
    r.units.back().instances = pipelines;
  }
  r.sram_bytes = sram.bytes;
  r.sram_macros = sram.bytes > 0 ? sram.banks : 0;
  r.sram_um2 = sram_area_um2(sram, nt);
  r.cell_um2 += r.sram_um2;
  return r;
}

EnergyPerOp estimate_op_energy(const core::DatapathConfig& dp, const core::BackwardConfig* backward) {
  EnergyPerOp e;
  if (backward && dp.arithmetic == core::Arithmetic::fixed) {
    // Each operator's energy from its widths, as the forward's (Horowitz's per-bit figures).
    const core::BackwardConfig& b = *backward;
    auto pj = [](const LogicInventory& v) { return kPjPerAdderBit * v.adder_bits + kPjPerMulBitProduct * v.multiplier_bit_products; };
    e.lane_op_pj = pj(row_sum_lane_inventory(b)) + pj(param_grad_inventory(b));
    e.normalize_op_pj = pj(dx_lane_inventory(b));
    e.row_pj = (dp.lanes - 1) * pj(row_sum_node_inventory(b)) + pj(row_mean_inventory(b));
    return e;
  }
  if (backward) {
    const bool rms = backward->kind == core::NormKind::rmsnorm, recompute = !backward->xhat_stored;
    const double xg = (recompute ? kPjFp32Add + kPjFp32Mul : 0.0) + kPjFp32Mul;
    e.lane_op_pj = xg + (rms ? 2 : 4) * kPjFp32Add + 2 * kPjFp32Mul;
    e.normalize_op_pj = xg + 2 * kPjFp32Add + 3 * kPjFp32Mul;
    e.row_pj = (dp.lanes - 1) * (rms ? 1 : 2) * kPjFp32Add + 2 * kPjFp32Mul;
    return e;
  }
  const bool rms = dp.kind == core::NormKind::rmsnorm;
  const bool welford = !rms && dp.algorithm == core::VarianceAlgorithm::welford;
  if (dp.arithmetic == core::Arithmetic::fixed) {
    const int in = bits(dp, Stage::input), mean = bits(dp, Stage::mean), m2 = bits(dp, Stage::m2),
              rc = bits(dp, Stage::recip), sum = bits(dp, Stage::sum), sq = bits(dp, Stage::sumsq);
    const int dw = std::max(in, mean) + 1;
    e.lane_op_pj = welford ? 2 * kPjPerAdderBit * dw + kPjPerMulBitProduct * (dw * rc + dw * dw) + kPjPerAdderBit * (mean + m2)
                           : (rms ? 0 : kPjPerAdderBit * sum) + kPjPerMulBitProduct * in * in + kPjPerAdderBit * sq;
    const int xh = bits(dp, Stage::xhat), out = bits(dp, Stage::output), g = bits(dp, Stage::gamma);
    e.normalize_op_pj = kPjPerAdderBit * (dw + out) + kPjPerMulBitProduct * (dw * bits(dp, Stage::rsqrt_out) + xh * g);
    // The RSQRT unit a row: what its kind's evaluation switches.
    const double rsqrt_pj =
        dp.rsqrt.kind().row_pj(rsqrt_inventory(dp.formats, dp.rsqrt), dp.rsqrt, kPjPerMulBitProduct, kPjPerAdderBit);
    // The variance scale: (M2 or the square sum) x 1/C, a shift where C is a power of two.
    const double scale_pj =
        std::has_single_bit(static_cast<uint64_t>(dp.hidden)) ? 0.0 : kPjPerMulBitProduct * (welford ? m2 : sq) * rc;
    e.row_pj = (dp.lanes - 1) * (welford ? 2 * kPjPerMulBitProduct * dw * dw + 3 * kPjPerAdderBit * m2 : kPjPerAdderBit * (sum + sq)) +
               rsqrt_pj + scale_pj;
  } else {
    e.lane_op_pj = welford ? 4 * kPjFp32Add + 2 * kPjFp32Mul : (rms ? 1 : 2) * kPjFp32Add + kPjFp32Mul;
    e.normalize_op_pj = 2 * kPjFp32Add + 2 * kPjFp32Mul;
    e.row_pj = (dp.lanes - 1) * (welford ? 4 * (kPjFp32Add + kPjFp32Mul) : 2 * kPjFp32Add) + 2 * (3 * kPjFp32Mul + kPjFp32Add);
  }
  return e;
}

double residual_adder_lane_ge(const core::ResidualAddConfig& add, bool dropout) {
  if (!add.fixed) return kGeFp32Add + (dropout ? kGeFp32Mul + kGePerMuxBit * 32 : 0.0) + regs(32);
  return logic_ge(residual_add_inventory(add.format, dropout));
}

double residual_add_pj(const core::ResidualAddConfig& add, bool dropout) {
  if (!add.fixed) return kPjFp32Add + (dropout ? kPjFp32Mul : 0.0);
  const double w = add.format.total_bits;
  return kPjPerAdderBit * w + (dropout ? kPjPerMulBitProduct * w * w : 0.0);
}

double dropout_mask_pj_per_element() {
  // Horowitz's 32-bit multiply (3.1 pJ): 20 a Philox evaluation, which makes
  // four words; a 32-bit compare a word. A general multiplier's energy: an
  // upper bound for Philox's products by constants.
  return 20 * kPjPerMulBitProduct * 1024 / 4 + kPjPerAdderBit * 32;
}

double sram_pj_per_byte(double bank_bytes) {
  // 64-bit reads: 8 KB 10 pJ, 32 KB 20 pJ, 1 MB 100 pJ; log-linear between,
  // as the square root of the bytes below 8 KB (down to the smallest macro),
  // clamped above 1 MB.
  const double x = std::log2(std::max(bank_bytes, kSramSmallestMacroBytes));
  const double pts[3][2] = {{13, 10}, {15, 20}, {20, 100}};
  double pj64;
  if (x <= pts[0][0]) pj64 = pts[0][1] * std::exp2((x - pts[0][0]) / 2);
  else if (x <= pts[1][0]) pj64 = pts[0][1] + (x - pts[0][0]) / (pts[1][0] - pts[0][0]) * (pts[1][1] - pts[0][1]);
  else if (x <= pts[2][0]) pj64 = pts[1][1] + (x - pts[1][0]) / (pts[2][0] - pts[1][0]) * (pts[2][1] - pts[1][1]);
  else pj64 = pts[2][1];
  return pj64 / 8.0;
}

namespace {
// Stillmaker & Baas 2017, Table 5: dynamic energy E(V) = a V^2 + b V + c per
// node, relative across nodes (the LP fits at 45 and 32 nm, the HP fits at
// 20, 16 and 7 nm, as accelergy's technology scaling takes them).
struct EnergyFit {
  double nm, a, b, c;
};
constexpr EnergyFit kEnergyFits[] = {{45, 1.103, -0.362, 0.2767},   {32, 0.9559, -0.7823, 0.471},
                                     {20, 0.373, -0.1582, 0.04104}, {16, 0.2958, -0.1241, 0.03024},
                                     {7, 0.1776, -0.09097, 0.02447}};
double fit_energy(const EnergyFit& f, double v) { return f.a * v * v + f.b * v + f.c; }

// E(V) at a feature size between two fitted nodes: linear in the size.
double node_energy(double nm, double v) {
  for (size_t i = 0; i + 1 < std::size(kEnergyFits); ++i) {
    const EnergyFit &hi = kEnergyFits[i], &lo = kEnergyFits[i + 1];
    if (nm <= hi.nm && nm >= lo.nm) {
      const double t = (hi.nm - nm) / (hi.nm - lo.nm);
      return (1 - t) * fit_energy(hi, v) + t * fit_energy(lo, v);
    }
  }
  throw std::invalid_argument("energy: no Stillmaker-Baas fit around " + std::to_string(nm) + " nm");
}
}  // namespace

double energy_factor(const std::string& node, double supply_v) {
  const std::optional<NodeTable> t = node_table(node);
  if (!t) throw std::invalid_argument("energy: no sourced table for node '" + node + "' (allowed: 45nm, 28nm, 16nm, 7nm)");
  return node_energy(t->nm, supply_v) / node_energy(45, 0.9);  // Horowitz's figures: 45 nm, 0.9 V
}

namespace {
// Stillmaker & Baas (Integration 2017) Table 5 fitted delay, the HP fits:
// d(V) = a V^3 + b V^2 + c V + e (coefficients as in wromaszkan/nodeScale).
double hp_delay(double nm, double v) {
  auto poly = [v](double a, double b, double c, double e) { return ((a * v + b) * v + c) * v + e; };
  const double d32 = poly(-1047, 2982, -2797, 873.5), d20 = poly(0, 34.63, -66.37, 41.15);
  if (nm == 45) return poly(-501.6, 1567, -1619, 566.1);
  if (nm == 28) return d32 + (32.0 - 28) / (32 - 20) * (d20 - d32);  // no 28 nm fit: linear between 32 and 20 nm
  if (nm == 16) return poly(0, 24.8, -47.52, 28.87);
  return poly(-28.58, 76.6, -70.26, 24.69);  // 7 nm
}
}  // namespace

double fo4_delay_ps(const std::string& node, double supply_v) {
  const std::optional<NodeTable> t = node_table(node);
  if (!t) throw std::invalid_argument("timing: no sourced table for node '" + node + "' (allowed: 45nm, 28nm, 16nm, 7nm)");
  return kFo4At45nmPs * hp_delay(t->nm, supply_v) / hp_delay(45, 1.0);  // the rule's 45 nm at the HP fit's 1.0 V
}

SramTiming sram_timing(double bank_bytes, const std::string& node, double supply_v) {
  struct Point {
    double bytes, access_ns, min_period_ns;
  };
  static constexpr Point kFakeram45[] = {{256, 0.207, 0.164}, {4096, 0.305, 0.293}, {2048.0 * 39 / 8, 0.435, 0.321}};
  const double lb = std::log2(std::max(bank_bytes, kFakeram45[0].bytes));
  size_t seg = 0;  // the segment [seg, seg + 1] bank_bytes falls in, or the last
  while (seg + 2 < std::size(kFakeram45) && lb > std::log2(kFakeram45[seg + 1].bytes)) ++seg;
  const Point &a = kFakeram45[seg], &b = kFakeram45[seg + 1];
  const double t = (lb - std::log2(a.bytes)) / (std::log2(b.bytes) - std::log2(a.bytes));
  const double scale = fo4_delay_ps(node, supply_v) / fo4_delay_ps("45nm", 1.1);
  return {scale * (a.access_ns + t * (b.access_ns - a.access_ns)), scale * (a.min_period_ns + t * (b.min_period_ns - a.min_period_ns))};
}

EnergyReport estimate_energy(const core::DatapathConfig& dp, const ActivityCounts& a, const core::BackwardConfig* backward) {
  const EnergyPerOp eo = estimate_op_energy(dp, backward);
  EnergyReport r;
  r.node_factor = energy_factor(a.node, a.supply_v);
  r.sram_read_pj_per_byte = sram_pj_per_byte(a.sram_bank_bytes) * r.node_factor;
  r.sram_write_pj_per_byte = r.sram_read_pj_per_byte * kSramWriteOverRead;
  r.dram_pj = a.dram_bytes * 8 * a.dram_pj_per_bit;
  r.sram_read_pj = a.sram_read_bytes * r.sram_read_pj_per_byte;
  r.sram_write_pj = a.sram_write_bytes * r.sram_write_pj_per_byte;
  r.datapath_pj = (a.elements * (eo.lane_op_pj + eo.normalize_op_pj) + a.rows * eo.row_pj) * r.node_factor;
  r.residual_add_pj = a.residual_sums * residual_add_pj(dp.residual_add, a.masked_elements > 0) * r.node_factor;
  r.dropout_mask_pj = a.masked_elements * dropout_mask_pj_per_element() * r.node_factor;
  r.clock_pj = a.flip_flops * a.cycles * kPjPerFlipFlopCycle * r.node_factor;
  return r;
}

}  // namespace normsim::area
