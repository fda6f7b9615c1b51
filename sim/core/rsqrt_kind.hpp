// The RSQRT units a design can build, each declared once: its arithmetic
// (ROM and evaluation, bit for bit its Verilog), its pipeline, what it
// refuses of the arch's rsqrt section, its operators (area and energy), its
// logic-depth fit (timing closure) and its Verilog module. The config, the
// model, sim/area, sim/rtl and `normsim list rsqrt-units` read this table and
// nothing else, so a new RSQRT unit is its own header and source, its
// Verilog, one line in rsqrt_kinds.cpp and one in CMakeLists.txt
// (docs/ARCHITECTURE.md, "Adding a unit").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/fixed_units.hpp"
#include "sim/core/logic_inventory.hpp"

namespace normsim::core {

/// The widths every RSQRT unit shares (rtl_models/rsqrt_operand.v in front,
/// rsqrt_scale.v behind): its operand IW (fraction IF), the output stage's
/// scaled value VW, the even exponents k its operand can take.
struct RsqrtWidths {
  int IW = 0, IF = 0;  ///< rsqrt_in
  int VW = 0;          ///< the output stage's value before its rounding
  int KMIN = 0, KMAX = 0;
  int out_bits = 0;  ///< rsqrt_out
  static RsqrtWidths of(const FixedFormat& in, const FixedFormat& out, const RsqrtConfig& rc);
};

/// A calibration point of a unit's own (tools/area/calibrate_area.py): the
/// sweep's formats scaled from `datapath_bits`, with this table and steps.
struct RsqrtCalibrationPoint {
  int datapath_bits, table_bits, iterations;
};

struct RsqrtKind {
  std::string_view name;     ///< rsqrt.unit's value
  std::string_view summary;  ///< one line: what it computes and how
  /// Its Verilog: the module (rtl_models/<module>.v, behind the generated
  /// `rsqrt` wrapper) and which of the section's parameters it takes
  /// (TB, ITER, NR, SEED) beside the formats'.
  std::string_view verilog_module;
  std::vector<std::string_view> verilog_parameters;

  /// Its pipeline stages (rtl_models' cycles from operand to result, less the input register).
  int (*stages)(const RsqrtConfig&);
  /// The stages, named, for a latency refusal: "normalise and seed, ..., round".
  std::string (*stage_names)(const RsqrtConfig&);
  /// Its ROM: words and bits a word, and the contents.
  int64_t (*rom_words)(const RsqrtConfig&);
  int (*rom_word_bits)(const RsqrtConfig&);
  std::vector<Fx> (*rom)(const RsqrtConfig&);
  /// 1/sqrt(v) into `out`, reading `rom`; v <= 0 saturates (flagged as overflow).
  Fx (*eval)(Fx v, const RsqrtConfig&, const std::vector<Fx>& rom, const FixedFormat& out, QuantFlags* flags);
  /// What it refuses of the section (null: only RsqrtConfig::validate's ranges).
  std::optional<RsqrtRefusal> (*refuse)(const RsqrtConfig&);

  /// Its operators at the widths its Verilog derives (shifters excluded:
  /// the shared normalise and output shift, counted by sim/area).
  LogicInventory (*operators)(const RsqrtWidths&, const RsqrtConfig&);
  /// The multiplier bit products its logic depth follows (its deepest stage).
  double (*depth_bit_products)(const LogicInventory& operators, const RsqrtConfig&);
  /// One row's evaluation in pJ, at sim/area's pJ per multiplier bit product and per adder bit.
  double (*row_pj)(const LogicInventory& operators, const RsqrtConfig&, double pj_per_mul_bit_product, double pj_per_adder_bit);
  /// Gate levels of one stage: a + b log2(depth_bit_products), fitted to
  /// yosys `ltp -noff` by tools/area/calibrate_area.py under this name.
  std::string_view depth_fit;
  double depth_a, depth_b, depth_worst_error;
  /// A section it accepts, for tests and examples (`unit` is set to the kind's index).
  RsqrtConfig example;
  /// Its own calibration points (none: it is the main sweep's).
  std::vector<RsqrtCalibrationPoint> calibration;
};

/// Every unit, the first the default; RsqrtConfig::unit indexes it.
const std::vector<RsqrtKind>& rsqrt_kinds();
/// Names in order, for the key's allowed values and `normsim list`.
std::vector<std::string> rsqrt_kind_names();
/// The index of `name`, if it is a unit.
std::optional<int> rsqrt_kind_index(std::string_view name);

}  // namespace normsim::core
