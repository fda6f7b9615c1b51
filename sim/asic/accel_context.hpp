// What the accelerator's units share: configuration, the memories, the
// numerics engine (absent in timing-only mode), and the counters they fill.
// Time: one SystemC nanosecond is one clock cycle.
#pragma once

#include "sim/core/merge_schedule.hpp"

#include <systemc.h>

#include <atomic>
#include <cmath>
#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/asic/asic_config.hpp"
#include "sim/asic/memory_models.hpp"
#include "sim/asic/replay_path.hpp"
#include "sim/asic/row_slot.hpp"
#include "sim/asic/rtl_pipeline.hpp"
#include "sim/config/workload.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/core/stats.hpp"
#include "sim/core/output_checker.hpp"

namespace normsim::asic {

/// Stall cycles of one unit, by cause.
struct StallCounters {
  double dram_latency = 0;    ///< waiting for data whose request was issued too late to hide DRAM latency
  double dram_bandwidth = 0;  ///< waiting for data queued behind other DRAM traffic / streaming
  double row_buffer = 0;      ///< input path had no free row buffer (rows in flight exhausted)
  double dependency = 0;      ///< waiting for the row's statistics (or the parameters)
  double sram_port = 0;       ///< waiting for the SRAM replay read
  double dram_write = 0;      ///< output write buffer full (write bandwidth)
  double adder_pass = 0;      ///< waiting for a separate adder's pass to write z (fuse none)
  double total() const { return dram_latency + dram_bandwidth + row_buffer + dependency + sram_port + dram_write + adder_pass; }
  /// Registers each cause as "stall_cycles.<cause>" in a unit's counters.
  void register_in(core::StatGroup& g) const {
    g.add("stall_cycles.dram_latency", "cycles", "waiting for data requested too late to hide the DRAM latency", &dram_latency);
    g.add("stall_cycles.dram_bandwidth", "cycles", "waiting for data queued behind other DRAM traffic", &dram_bandwidth);
    g.add("stall_cycles.row_buffer", "cycles", "no free row buffer held the input back", &row_buffer);
    g.add("stall_cycles.dependency", "cycles", "waiting for the row's statistics or the parameters", &dependency);
    g.add("stall_cycles.sram_port", "cycles", "waiting for the SRAM replay read", &sram_port);
    g.add("stall_cycles.dram_write", "cycles", "the output write buffer was full", &dram_write);
    g.add("stall_cycles.adder_pass", "cycles", "waiting for a separate adder's pass to write the residual sum", &adder_pass);
  }
};

struct AccelContext {
  const config::Workload* workload = nullptr;
  AsicConfig cfg;
  int lanes = 16;            ///< elements a cycle the lane array takes: lanes x datapaths
  int datapath_lanes = 16;   ///< one datapath's lanes (the merge tree's width)
  core::MergeSchedule merge;  ///< the tree on the arch's merge units
  int in_bytes = 4, out_bytes = 4;  ///< in: x's, and z's (stored in x's type)
  // A residual workload (docs/ASIC.md, "Fusion").
  Fusion fusion = Fusion::none;
  int residual_bytes = 0;         ///< r's element bytes
  bool sum_written_all = false;   ///< fused: all of z is written (kept, or Pre-Norm); else only what is re-read
  double adder_done_cycle = -1;   ///< separate adder: when its last z write is in DRAM (-1: not yet known)
  sc_core::sc_event* adder_issued = nullptr;  ///< ... notified when that is known
  /// Fused with a re-read: per row from sum_first_row on, when its z is in
  /// DRAM (the re-read of z cannot start before); the lanes append, the
  /// re-read stream drops the rows it is done with.
  std::deque<double> sum_done;
  int64_t sum_first_row = 0;
  sc_core::sc_event* sum_issued = nullptr;  ///< notified when a row's z writes are issued
  int64_t hidden = 0, rows = 0;
  int64_t chunk_elems = 0;
  int chunks = 1;
  int64_t param_bytes = 0;
  int reread_fifo_transactions = 1;  ///< the re-read FIFO's depth (traffic_identity.hpp)
  DramModel* dram = nullptr;
  SramModel* sram = nullptr;
  const ReplayPath* path = nullptr;
  int64_t stored_elems = 0;  ///< path->stored_elems(hidden): the part of a row kept on chip
  // Numerics (null when timing only).
  core::NormDatapath* datapath = nullptr;
  core::OutputChecker* checker = nullptr;
  core::NumericsResult* numerics = nullptr;
  RtlPipeline* rtl = nullptr;  ///< lock-stepped RTL (--rtl), else null
  // Hand-overs between the units (each unit keeps its own counters).
  double params_done = 0;  ///< cycle gamma/beta are on chip (the input path's first read)
  int64_t rows_done = 0;   ///< rows the normalise unit has finished (the trace samples the first ones)
  std::atomic<int64_t>* rows_done_out = nullptr;  ///< mirrors rows_done for a progress line (AsicOptions::rows_done)

  /// Elements of chunk k whose sum the fused unit writes to DRAM.
  int64_t sum_elems(int k) const {
    if (fusion != Fusion::fused) return 0;
    if (sum_written_all) return chunk_end(k) - chunk_begin(k);
    return chunk_end(k) - std::clamp(stored_elems, chunk_begin(k), chunk_end(k));
  }
  int64_t chunk_begin(int k) const { return k * chunk_elems; }
  int64_t chunk_end(int k) const { return std::min<int64_t>(hidden, (k + 1) * chunk_elems); }
  /// Cycles for `elems` elements at one element per lane per cycle.
  double lane_cycles(int64_t elems) const { return static_cast<double>((elems + lanes - 1) / lanes); }
};

// The kernel counts picoseconds (asic_run sets the resolution): integer
// arithmetic on the raw value avoids sc_time's unit conversions, which cost
// more than the model's own work per transaction in timing-only runs.
inline constexpr double kPsPerCycle = 1000.0;
inline double now_cycles() { return static_cast<double>(sc_core::sc_time_stamp().value()) / kPsPerCycle; }
/// Whether cycle `t` has come, at the kernel's picosecond resolution (as
/// trigger_at rounds it): a unit that waited for t sees it reached.
inline bool reached(double t) {
  return std::nearbyint(t * kPsPerCycle) <= static_cast<double>(sc_core::sc_time_stamp().value());
}
/// The units are SC_METHODs (a timed re-trigger costs the kernel about half a
/// thread's timed wait: tools/bench/bench_systemc_wait). Re-triggers the
/// calling method at cycle `t` and returns true if `t` lies ahead; returns
/// false, and the method carries on, if it does not.
inline bool trigger_at(double t) {
  const auto now_ps = sc_core::sc_time_stamp().value();
  const double target_ps = std::nearbyint(t * kPsPerCycle);
  if (target_ps <= static_cast<double>(now_ps)) return false;
  sc_core::next_trigger(sc_core::sc_time::from_value(static_cast<sc_core::sc_time::value_type>(target_ps) - now_ps));
  return true;
}

}  // namespace normsim::asic
