// The unfused baseline of a residual workload (arch `fuse.mode: none`): a
// separate adder -- another unit, or the kernel before the norm on a GPU --
// streams x and r from DRAM and writes z = dropout(x) + r back, over the
// whole tensor, before the norm unit starts reading z. It shares the norm
// unit's DRAM port, reads at most the DRAM window ahead (like the input
// path), writes each transaction's z once both operands have landed, and
// computes at the rate the bytes arrive (a streaming adder is never the
// bottleneck of a pass that moves 3 bytes per byte of output). The norm
// unit's input path waits for its last write.
#pragma once

#include <deque>
#include <utility>

#include "sim/asic/cycle_signal.hpp"
#include "sim/asic/memory_models.hpp"
#include "sim/asic/run_geometry.hpp"
#include "sim/asic/sim_time.hpp"

namespace normsim::asic {

struct SeparateAdderPass : sc_core::sc_module, CycleSlot {
  SC_HAS_PROCESS(SeparateAdderPass);
  /// Announces the cycle its last z write is in DRAM, once it has issued it.
  CycleOut done{"done"};
  DramRequestPort dram{"dram"};  ///< the DRAM (netlist channel `dram`)
  /// Idle (its counters zero) unless the geometry's fusion is a separate adder.
  SeparateAdderPass(sc_core::sc_module_name n, const RunGeometry& g, double dram_window_bytes);
  const core::StatGroup& stats() const { return stats_; }

 private:
  void step();
  const RunGeometry& g_;
  double window_bytes_;
  int64_t next_ = 0, total_ = 0;                 ///< transactions over rows x chunks
  std::deque<std::pair<double, double>> reads_;   ///< (done cycle, bytes) of the operands in flight
  std::deque<std::pair<double, int64_t>> writes_; ///< (operands landed, elements) of z still to write
  double in_flight_bytes_ = 0;
  double last_write_done_ = 0;
  double pass_cycles_ = 0;
  core::StatGroup stats_{"residual_adder_pass"};
};

}  // namespace normsim::asic
