// Logic synthesis of the RTL units with yosys (`synth`, then `abc` onto a
// generic gate library), at an arch's formats: the ground truth that the
// analytic area model of sim/area is calibrated against. The ROMs (1/n and
// rsqrt seed tables) are left as black boxes: their bits are costed as table
// cells by sim/area, not as logic.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/arch.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/rtl/rtl_config.hpp"

namespace normsim::rtl {

struct SynthesisResult {
  Unit unit = Unit::welford_lane;
  std::map<std::string, int64_t> cells;  ///< yosys cell type -> count (gates and flip-flops)
  int64_t flip_flops = 0;
  double ge = 0;       ///< NAND2 gate equivalents: CMOS transistors / 4, flip-flops at sim/area's kGePerFlipFlop
  double cmos_transistors = 0;  ///< yosys `stat -tech cmos` (its gates only: no flip-flops, no black boxes)
  int logic_levels = 0;  ///< the longest path between registers (or ports), in gates: yosys `ltp -noff`
  double seconds = 0;  ///< yosys run time
};

/// The yosys on PATH, if any (`normsim area --synth` needs it).
std::optional<std::string> find_yosys();

/// Gate equivalents of a yosys cell: its transistors in yosys's CMOS cost
/// model (stat -tech cmos: NOT 2, NAND/NOR 4, AND/OR 6, XOR/XNOR/MUX 12)
/// over the 4 of a NAND2; flip-flops of any kind at kGePerFlipFlop.
/// nullopt for a cell the model does not know.
std::optional<double> cell_ge(const std::string& type);

/// Synthesises `unit` at the arch's formats in a scratch directory, or in
/// keep_dir/<unit>/ (script synth.ys, ROM stubs, yosys.log) when given; the
/// Verilog comes from `rtl_dir` (rtl_models/). Throws std::runtime_error
/// with yosys's last lines when it fails.
/// A backward unit takes the workload's side of its parameters from `backward`.
SynthesisResult synthesize(Unit unit, const config::Arch& arch, int count_bits, const std::string& rtl_dir,
                           const std::string& yosys, const std::string& keep_dir = {},
                           const BackwardUnitOptions& backward = {});

/// A unit of sim/area's report (welford_lanes, chan_merge_tree, rsqrt_unit,
/// normalize_affine) as synthesised: one instance times how many the
/// datapath has.
struct DatapathUnitSynthesis {
  std::string area_unit;  ///< sim/area's name
  int instances = 1;
  SynthesisResult one;    ///< a single instance
  double model_logic_levels = 0;  ///< the timing model's gates of one RTL stage (sim/rtl/timing_closure.hpp), to compare with one.logic_levels
  double ge() const { return one.ge * instances; }
};

/// The RTL units of a fixed-point datapath, synthesised: Welford lanes and
/// the merge tree's nodes or, on shared units, the whole merge sequencer
/// (LayerNorm with Welford), the RSQRT unit and the
/// normalise lanes, and a fused residual unit's dropout mask generator.
/// Units without RTL (sum / square-sum lanes, an fp32 residual adder) are absent.
/// `backward`: the backward unit's instead (row-sum lanes, parameter-gradient
/// lanes, tree nodes, row-mean unit, dx lanes).
std::vector<DatapathUnitSynthesis> synthesize_datapath(const config::Arch& arch, const core::DatapathConfig& dp,
                                                       const std::string& rtl_dir, const std::string& yosys,
                                                       const std::string& keep_dir = {},
                                                       const core::BackwardConfig* backward = nullptr);

}  // namespace normsim::rtl
