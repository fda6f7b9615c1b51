// Timing closure of the fixed-point RTL units at the arch's clock and node.
//
// A unit's logic depth is the longest path between its registers in gates,
// modelled from its widths as a + b log2(multiplier bit products of one RTL
// stage), a and b fitted per unit to yosys's `ltp -noff` after `abc -fast`
// over the area calibration's width sweep (tools/area/calibrate_area.py,
// table and worst error in docs/AREA.md). A gate level is taken as one FO4
// (sim/area fo4_delay_ps: the node at asic.supply_v), a register as
// kRegisterOverheadFo4. A unit's levels are spread over its configured
// cycles (retimed), as the timing model's latencies assume: a Welford lane's
// welford_cycles-deep pipeline at one element a cycle presumes its mean
// recurrence is pipelined (rows interleaved), which the model does not
// check. Past a unit's maximum frequency, `asic.past_fmax: add_stages` adds
// the pipeline stages it needs (latency cycles and a product word of
// flip-flops each); `refuse` makes it an error, as is a clock whose period
// holds no more than a register's overhead.
#pragma once

#include <string>
#include <vector>

#include "sim/config/asic_params.hpp"
#include "sim/core/norm_datapath.hpp"

namespace normsim::rtl {

struct UnitTiming {
  std::string unit;         ///< sim/area's name (welford_lanes, chan_merge_tree, merge_sequencer, rsqrt_unit, normalize_affine)
  std::string latency_key;  ///< its latency key below asic (welford_lanes.latency_cycles)
  int& (*latency_of)(config::AsicConfig&) = nullptr;  ///< that key's member
  int instances = 1;
  double logic_levels = 0;  ///< gates of one RTL stage (the model)
  int rtl_stages = 1;       ///< stages of that depth in series (the RSQRT unit's Newton steps)
  int configured_cycles = 1;
  int cycles = 1;           ///< configured + the stages added past its maximum frequency
  double fmax_ghz = 0;      ///< at its configured cycles
  double flip_flops_per_stage = 0;  ///< one instance's register word of an added stage
  /// Gate levels in one cycle at `n` cycles.
  double levels_per_cycle(int n) const;
  int added_stages() const { return cycles - configured_cycles; }
  double added_flip_flops() const { return added_stages() * flip_flops_per_stage * instances; }
};

/// The SRAM's banks at the clock. A bank clocked faster than its minimum
/// period is split under add_stages (`asic.sram.banks` doubled until each
/// bank cycles at the clock: smaller macros, their area and energy charged)
/// and refused otherwise; a read then takes ceil(access x clock) cycles
/// (`asic.sram.latency_cycles` raised to it under add_stages: a pipelined read).
struct SramClosure {
  double bytes = 0;
  int configured_banks = 1, banks = 1;
  double bank_bytes = 0;  ///< at `banks`
  double access_ns = 0, min_period_ns = 0;
  int configured_cycles = 1, cycles = 1;
  int added_stages() const { return cycles - configured_cycles; }
};

struct TimingClosure {
  std::string node;
  double supply_v = 0, clock_ghz = 0;
  double fo4_ps = 0;        ///< one gate level
  double period_fo4 = 0;    ///< the clock period in FO4
  std::vector<UnitTiming> units;  ///< empty: no fixed-point RTL to time (fp32 arithmetic)
  SramClosure sram;
  /// Non-empty: the clock cannot be met (asic.past_fmax: refuse, or a period
  /// within a register's overhead), in words naming the unit, its depth and its limit.
  std::string violation;
  double fmax_ghz() const;  ///< the slowest unit's, at the configured cycles (0: none timed)
  double added_flip_flops() const;
  /// Pipeline stages added to meet the clock: the units' and the SRAM read's.
  int added_stages() const;
  /// The design as configured meets the clock: no unit past its maximum
  /// frequency, no SRAM bank split or read stage added.
  bool meets_clock() const { return added_stages() == 0 && sram.banks == sram.configured_banks; }
};

/// Fitted depth of one unit (gates of one RTL stage): a + b log2(bit products).
struct DepthFit {
  std::string unit;
  double a, b;
  double worst_error;  ///< against yosys over the calibration sweep
};
const std::vector<DepthFit>& depth_fits();
/// The model's gates of one RTL stage of `unit` (a depth_fits() name) whose
/// multipliers have `stage_bit_products` bit products.
double modelled_logic_levels(const std::string& unit, double stage_bit_products);

/// The units of `dp` (fixed-point only) and an SRAM of `sram_bytes` in c's
/// banks timed at c's clock, node and supply, with c's latencies.
TimingClosure close_timing(const core::DatapathConfig& dp, const config::AsicConfig& c, double sram_bytes);

/// c with each unit's latency at what the closure needs and the added
/// registers recorded (asic.timing_flip_flops): the design that runs.
config::AsicConfig with_closed_timing(config::AsicConfig c, const TimingClosure& t);

}  // namespace normsim::rtl
