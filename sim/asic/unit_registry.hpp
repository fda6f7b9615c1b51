// The ASIC model's units, one entry each, in elaboration order: what the unit
// is, when a run has it, how it is built, its ports and the channels they
// bind to (netlist.hpp), the DRAM traffic it moves and the fixed-point
// stages it computes. NormAccelerator builds the units a run enables from
// this list and nothing else; adding a unit is its module and its entry
// here, and a new hand-over one row in netlist.cpp (docs/ARCHITECTURE.md,
// "Where a change goes").
#pragma once

#include <functional>

#include <atomic>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "sim/asic/cycle_signal.hpp"
#include "sim/asic/handshake_fifo.hpp"
#include "sim/asic/memory_models.hpp"
#include "sim/asic/netlist.hpp"
#include "sim/asic/row_arithmetic.hpp"
#include "sim/asic/row_slot.hpp"
#include "sim/asic/run_geometry.hpp"
#include "sim/core/fixed_stage.hpp"
#include "sim/core/merge_schedule.hpp"
#include "sim/core/stats.hpp"

namespace normsim::asic {


/// What a unit is built from; the units built before it are in `built`.
struct UnitBuild {
  const config::Workload& workload;  ///< what a unit derives its own parameters from, with the arch
  const config::Arch& arch;
  const RunGeometry& geometry;
  const AsicConfig& cfg;
  const core::MergeSchedule& merge;
  RowArithmetic* arith;                   ///< null when timing only
  std::atomic<int64_t>* rows_done_out;    ///< a progress line's counter, or null
  const RowLimit& row_limit;              ///< the rows the issuing units go up to
  std::function<void()> row_done;         ///< called as each row finishes (the fast-forward's look)
};

/// When an after-rows pass may start: the lanes' last row, the last output.
struct RowsDone {
  double lanes_cycle = 0, output_cycle = 0;
};

/// A unit: an SC module elaborated with the others (`make`) that works on
/// the rows, a pass after them (`after_rows`: issued on the memories once
/// every row is out, in time after them), or both (a unit with a phase per
/// row and one after the rows).
struct AsicUnitEntry {
  std::string_view name;     ///< its SystemC instance name and counter group
  std::string_view summary;  ///< one line, for docs and listings
  /// Whether a run of this geometry has the unit.
  bool (*enabled)(const RunGeometry& g);
  /// Builds it (named `name`); NormAccelerator binds its `ports`.
  std::unique_ptr<sc_core::sc_module> (*make)(UnitBuild& b);
  /// Its ports (sc_port members of these names; for a transport's target,
  /// the interface the unit implements) and the channels they bind to.
  std::vector<PortDecl> ports;
  /// Its counters (busy and stall cycles by cause), if it keeps any.
  const core::StatGroup* (*stats)(const sc_core::sc_module& unit);
  /// Adds the state that repeats with a steady period (steady_state.hpp), if it keeps any.
  void (*period_state)(const sc_core::sc_module& unit, PeriodState& s);
  /// Rows it has started to issue, if it issues rows (the fast-forward cuts after them).
  int64_t (*rows_issued)(const sc_core::sc_module& unit);
  std::vector<Traffic> dram_traffic;  ///< the DRAM traffic kinds it requests
  std::vector<core::Stage> stages;    ///< the fixed-point stages it computes (core::NormDatapath)
  /// The sim/area units that cost its logic (area::estimate_area's names, whichever the arch's arithmetic builds).
  std::vector<std::string_view> area_units;
  /// Its Verilog under rtl_models/, every variant an arch may pick (file
  /// stems): "unit/..." the control `run --rtl-full` checks edge for edge
  /// (the merge tree's and the RSQRT unit's is the lanes': their latencies,
  /// the shared merge units' turns), the others datapath units checked bit
  /// for bit. What `normsim netlist` and docs/RTL.md's block diagram show.
  std::vector<std::string_view> rtl;
  /// An after-rows pass: issues its transfers; returns the cycle its last is
  /// done. `unit` is the module `make` built (null for a pass of its own).
  double (*after_rows)(sc_core::sc_module* unit, const RunGeometry& g, DramModel& dram, const RowsDone& done) = nullptr;
  /// The arch section that sets the arithmetic it computes, if one does
  /// (`rsqrt`: which RSQRT unit, its table and steps); `normsim netlist` shows it.
  std::string_view arithmetic_section = {};
};

/// The units, in elaboration order (their processes' order in the kernel).
std::span<const AsicUnitEntry> asic_units();

/// A clocked unit's slot within a cycle (asic.timing: cycle; sim_time.hpp's
/// CycleSlot): its place in the order the units act in, which is the order
/// of their memory requests in one cycle -- the RTL port's fixed priority.
/// Throws std::logic_error for a unit not in the order.
int cycle_slot(std::string_view unit);

}  // namespace normsim::asic
