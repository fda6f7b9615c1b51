// Area and energy of a datapath configuration from documented public tables
// (sources in sim/area/SOURCES.md, from shared facts/AREA_ENERGY_SOURCES.md).
//
// Logic: gate equivalents (GE, NAND2 units) per unit from its widths;
// um^2 = GE x NAND2 area of the node / placement utilisation.
// SRAM: bits x bit-cell area / array efficiency(capacity).
// Energy: per-op and per-access figures at 45 nm, 0.9 V (Horowitz, ISSCC
// 2014) scaled to the node by Stillmaker & Baas's (Integration 2017) fitted
// energy polynomials; SRAM per access to the bank that is accessed; DRAM
// pJ/bit from the arch's interface.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/area/logic_inventory.hpp"
#include "sim/core/norm_backward.hpp"
#include "sim/core/norm_datapath.hpp"

namespace normsim::area {

struct NodeTable {
  std::string node;
  double nm = 0;             ///< feature size
  double nand2_um2;          ///< one gate equivalent
  std::string nand2_source;
  double bitcell_um2;        ///< 6T high-density SRAM cell
  std::string bitcell_source;
  double leakage_mw_per_mm2;  ///< leakage power of placed standard cells per mm^2 of cell area, at the library's nominal supply
  std::string leakage_source;
};
/// Known nodes: 45nm, 28nm, 16nm, 7nm; nullopt otherwise.
std::optional<NodeTable> node_table(const std::string& node);
inline constexpr const char* kNodeNames = "45nm, 28nm, 16nm, 7nm";

/// Leakage (mW) of a design of `cell_um2` of standard cells and SRAM macros
/// at `density_mw_per_mm2`: the cells leak, the placement's whitespace does not.
inline double leakage_mw(double cell_um2, double density_mw_per_mm2) { return cell_um2 * 1e-6 * density_mw_per_mm2; }

inline constexpr double kUtilisation = 0.70;   ///< placed/cell area (ASAP7 closes at 0.76-0.77; 0.70 conservative)
inline constexpr double kGePerFlipFlop = 5.3;  ///< Sky130 dfxtp_1 20.02 um^2 / nand2_1 3.754 um^2

/// Array efficiency of a ROM table of `bytes`: 0.15 at 8 KiB (CACTI-7, 28 nm),
/// 0.70 at 1 MiB and above (N5 macro density), log-linear between (derived).
double sram_array_efficiency(double bytes);
/// An SRAM macro's periphery (decoders, sense amplifiers, drivers, control)
/// over its bit cells: a square array's rows and columns grow as the square
/// root of its bits, so periphery / cells = kSramPeripheryAt8KiB x
/// sqrt(8 KiB / bank bytes), anchored at CACTI-7's 8 KiB macro at 28 nm
/// (~15% bit cells). The law gives 0.67 at 1 MiB where N5's macro density
/// gives ~0.70 (derived); a macro of any size pays it, so more banks cost
/// more periphery.
inline constexpr double kSramPeripheryAt8KiB = 1 / 0.15 - 1;
double sram_periphery_over_cells(double bank_bytes);

struct UnitArea {
  std::string unit;
  double ge = 0;       ///< logic gate equivalents
  double table_bits = 0;  ///< ROM/table bits, costed as SRAM cells
  double flip_flops = 0;  ///< of all instances: what the clock drives each cycle
  double um2 = 0;
  int instances = 1;   ///< lanes, tree nodes, ...
  /// Fixed point: one instance's operators (the units with RTL in rtl_models/).
  std::optional<LogicInventory> per_instance;
};

/// Gate equivalents per operator of the fixed-point units, fitted to yosys
/// synthesis of rtl_models/ over a sweep of widths (tools/area/calibrate_area.py,
/// table in docs/AREA.md); flip-flops at kGePerFlipFlop.
struct LogicCosts {
  double adder_bit, multiplier_bit_product, requant_bit, shifter_bit;
  double mac_bit_product = 0, round_bit = 0, saturate_bit = 0;  ///< the backward's units' operators
};
/// A 2:1 multiplexer bit: yosys's $_MUX_, 12 transistors in its CMOS cost
/// model, over a NAND2's 4 (not fitted: the calibrated units have no muxes).
inline constexpr double kGePerMuxBit = 3.0;
extern const LogicCosts kFittedLogicCosts;
/// The backward's units (row_sum_lane.v, param_grad_acc.v, row_sum_node.v,
/// row_mean.v, dx_unit.v), fitted on their own sweep: their inventories
/// count each requantiser by its modes over the width it rounds to, and a
/// multiply-accumulate's products apart from a plain multiplier's.
extern const LogicCosts kFittedBackwardLogicCosts;
double logic_ge(const LogicInventory& v, const LogicCosts& c = kFittedLogicCosts);

struct AreaReport {
  std::string node;
  std::vector<UnitArea> units;
  double datapath_um2 = 0;
  double sram_um2 = 0;
  double sram_bytes = 0;
  double cell_um2 = 0;  ///< what leaks: the cells, tables and SRAM macros, without the placement's whitespace
  int sram_macros = 0;  ///< banks (one macro each)
  double total_mm2() const { return (datapath_um2 + sram_um2) * 1e-6; }
  double flip_flops() const;  ///< of every unit: the registers the clock drives
};

/// An SRAM as the macros it is built from: `banks` macros of bytes / banks,
/// each with `ports` ports.
struct SramMacros {
  double bytes = 0;
  int banks = 1;
  int ports = 1;
};

/// A second port's bit cell: 8 transistors over the 6T cell's 6 (Cypress,
/// "Memory Cell Architecture of Cypress Dual-Ports": the 6T cell plus two
/// pass gates for the second bit-line pair), its area taken in proportion.
inline constexpr double kDualPortCellOverSinglePort = 8.0 / 6.0;

/// The pipeline registers timing closure added (sim/rtl/timing_closure.hpp):
/// a `timing_registers` unit of `flip_flops` at kGePerFlipFlop, when any.
void add_timing_registers(AreaReport& r, double flip_flops, const std::string& node);

/// Area (um^2) of the macros at the node: each bank's bit cells (dual-port
/// cells for two ports) plus its periphery (decoders, sense amplifiers,
/// I/O: sram_periphery_over_cells of the bank's size, once per port).
double sram_area_um2(const SramMacros& sram, const NodeTable& node);

/// Area of the datapath units at their configured widths plus the SRAM's
/// macros; the merge tree on dp.merge_units (dedicated or a sequencer), its
/// pipeline registers `merge_level_cycles` deep.
AreaReport estimate_area(const core::DatapathConfig& dp, const SramMacros& sram, const std::string& node,
                         int merge_level_cycles, const core::BackwardConfig* backward = nullptr);

struct EnergyPerOp {
  double lane_op_pj = 0;       ///< one element through a lane (statistics)
  double normalize_op_pj = 0;  ///< one element through the normalise unit
  double row_pj = 0;           ///< merge tree + RSQRT, once per row
};
/// `backward`: the backward unit's logic instead of the forward's (docs/ASIC.md,
/// "Backward"): L row-sum lanes (x_hat recomputed unless stored, g, the S1/S2
/// accumulators, the dgamma/dbeta update), an adder tree, the row-mean unit
/// (S/C), and L dx lanes (x_hat and g again from the replayed row, dx).
EnergyPerOp estimate_op_energy(const core::DatapathConfig& dp, const core::BackwardConfig* backward = nullptr);

/// The residual adder of a fused unit (sim/core/residual_add.hpp): one lane
/// at its arithmetic -- fp32 (Horowitz's adder, multiplier and a register),
/// or residual_add_inventory at the fitted costs -- with the dropout scale's
/// multiplier when `dropout`.
double residual_adder_lane_ge(const core::ResidualAddConfig& add, bool dropout);
/// One Philox4x32-10 pipeline, four mask words a cycle
/// (rtl_models/philox_mask.v: ten rounds of two 32x32 products by constants,
/// the xors, the key schedule and the round registers, and the four
/// threshold compares), as yosys 0.23 synthesises it in the flow of the
/// datapath units (`normsim area --synth`, its cells at sim/rtl's cell_ge; a
/// test re-synthesises it): gates of 128275 GE and 2186 flip-flops. Products
/// by constants are shift-and-add trees, far below a general multiplier's
/// fitted cost.
inline constexpr double kPhiloxPipelineFlipFlops = 2186;
inline constexpr double kGePhiloxPipeline = 128275.0 + kPhiloxPipelineFlipFlops * kGePerFlipFlop;
/// Energy of one sum (and its scale multiply) at the adder's arithmetic.
double residual_add_pj(const core::ResidualAddConfig& add, bool dropout);
/// Energy of one mask word: a quarter of a Philox4x32-10 evaluation and its compare.
double dropout_mask_pj_per_element();
/// pJ per byte of an SRAM access, by the size of the macro accessed
/// (Horowitz 64-bit reads: 8 KB 10 pJ, 32 KB 20 pJ, 1 MB 100 pJ, log-linear
/// between; below 8 KB the 8-32 KB segment's law, energy as the square root
/// of the bytes (the bit- and word-line lengths), down to fakeram45's
/// smallest macro here, 128 B, whose clock energy a bit is 0.117 of its
/// 9984 B macro's where the law gives 0.113).
double sram_pj_per_byte(double bank_bytes);
inline constexpr double kSramSmallestMacroBytes = 128;

/// A flip-flop's energy a clock cycle at 45 nm: Aladdin's (Shao et al., ISCA
/// 2014) 40 nm register, 0.009 pJ a bit a 1 GHz cycle (Accelergy-Project/
/// hwcomponents-library, aladdin.py), taken at 45 nm. Every flip-flop of
/// the design is clocked every cycle of the run (no clock gating).
inline constexpr double kPjPerFlipFlopCycle = 0.009;

/// Dynamic energy at `node` and `supply_v` against 45 nm at Horowitz's 0.9 V:
/// E_node(V) / E_45(0.9), Stillmaker & Baas's fitted polynomial
/// E(V) = a V^2 + b V + c per node (LP 45/32 nm, HP 20/16/7 nm; 28 nm
/// interpolated between 32 and 20 nm). invalid_argument for an unknown node.
double energy_factor(const std::string& node, double supply_v);

/// A fanout-of-four inverter's delay at 45 nm: 360 ps per um of drawn gate
/// length (Ho, Mai & Horowitz, "The Future of Wires", Proc. IEEE 2001; the
/// rule Hrishikesh et al., ISCA 2002, time pipelines by) x 0.045 um.
inline constexpr double kFo4At45nmPs = 360 * 0.045;
/// A pipeline register's overhead (flip-flop and clock skew and jitter):
/// 1.8 FO4, Hrishikesh et al., "The Optimal Logic Depth per Pipeline Stage
/// is 6 to 8 FO4 Inverter Delays", ISCA 2002.
inline constexpr double kRegisterOverheadFo4 = 1.8;
/// FO4 delay (ps) at `node` and `supply_v`: kFo4At45nmPs scaled by
/// Stillmaker & Baas's fitted HP delay polynomials, d_node(V) / d_45(1.0 V)
/// (28 nm linear between their 32 and 20 nm fits). invalid_argument for an
/// unknown node.
double fo4_delay_ps(const std::string& node, double supply_v);

/// An SRAM bank's timing at `node` and `supply_v`: clock to read data (ns)
/// and its minimum clock period (ns). OpenROAD-flow-scripts' fakeram45
/// macros (bsg_fakeram, CACTI at 45 nm, 1.1 V): 256 B (64x32) 0.207 / 0.164,
/// 4 KiB (512x64) 0.305 / 0.293, 9984 B (2048x39) 0.435 / 0.321 ns;
/// log-linear in bytes between them (the last segment's slope beyond, the
/// smallest's figures below), scaled to the node by the FO4 ratio
/// fo4_delay_ps(node, V) / fo4_delay_ps(45nm, 1.1 V).
struct SramTiming {
  double access_ns = 0;
  double min_period_ns = 0;
};
SramTiming sram_timing(double bank_bytes, const std::string& node, double supply_v);

/// Write energy over read energy of an SRAM access: CACTI-7's 8 KiB macro at
/// 28 nm, 0.049 / 0.035 pJ/bit.
inline constexpr double kSramWriteOverRead = 0.049 / 0.035;

/// What a run moved and computed, for its energy.
struct ActivityCounts {
  double dram_bytes = 0;           ///< read + written
  double dram_pj_per_bit = 0;      ///< the arch's DRAM access energy
  double sram_read_bytes = 0, sram_write_bytes = 0;
  double sram_bank_bytes = 0;      ///< the bank an access reads or writes: its size sets the energy per byte
  double elements = 0;             ///< through the lanes and the normalise unit
  double rows = 0;                 ///< through the merge tree and the RSQRT unit
  double residual_sums = 0;        ///< z = dropout(x) + r computed (this unit's adder or a separate one)
  double masked_elements = 0;      ///< ... of them through the dropout mask (a Philox word each)
  double flip_flops = 0;           ///< the design's registers ...
  double cycles = 0;               ///< ... clocked for the run's cycles
  std::string node = "45nm";
  double supply_v = 0.9;
};

struct EnergyReport {
  double dram_pj = 0, sram_read_pj = 0, sram_write_pj = 0, datapath_pj = 0;
  /// Static energy: the design's leakage power for the run's time (set by run_costs, which knows both).
  double leakage_pj = 0;
  /// A residual workload's adds and dropout mask (Philox4x32-10 evaluations),
  /// wherever they run: the same work fused or not.
  double residual_add_pj = 0, dropout_mask_pj = 0;
  /// The registers' clock: every flip-flop a cycle (kPjPerFlipFlopCycle at the node).
  double clock_pj = 0;
  double sram_pj() const { return sram_read_pj + sram_write_pj; }
  double total_pj() const {
    return dram_pj + sram_pj() + datapath_pj + residual_add_pj + dropout_mask_pj + clock_pj + leakage_pj;
  }
  double total_uj() const { return total_pj() * 1e-6; }
  double node_factor = 1;  ///< energy_factor of the run's node
  double sram_read_pj_per_byte = 0, sram_write_pj_per_byte = 0;  ///< at the node, for the bank accessed
};

/// A run's energy: DRAM at the arch's pJ/bit; SRAM per access to its bank and
/// the arithmetic, Horowitz's 45 nm figures scaled to the run's node.
EnergyReport estimate_energy(const core::DatapathConfig& dp, const ActivityCounts& a,
                             const core::BackwardConfig* backward = nullptr);

}  // namespace normsim::area
