// Input path: takes a free row buffer and streams the row from DRAM in
// transactions of `chunk_elems` towards the lanes (which also write the part
// the replay path keeps into the row buffer as they consume it). Its first
// read brings gamma/beta on chip, and it announces when they are there.
//
// Like every unit of the model it is an SC_METHOD: a small state machine that
// runs until it must wait (for a cycle, a free FIFO slot or a FIFO entry) and
// then names what wakes it with next_trigger.
#pragma once

#include <deque>
#include <optional>

#include "sim/asic/cycle_signal.hpp"
#include "sim/asic/memory_models.hpp"
#include "sim/asic/param_grad_accumulator.hpp"
#include "sim/asic/row_arithmetic.hpp"
#include "sim/asic/row_slot.hpp"
#include "sim/asic/run_geometry.hpp"
#include "sim/asic/sim_time.hpp"
#include "sim/asic/steady_state.hpp"
#include "sim/core/stats.hpp"

namespace normsim::asic {

struct InputPathUnit : sc_core::sc_module, HasPeriodState, CycleSlot {
  SC_HAS_PROCESS(InputPathUnit);
  sc_core::sc_fifo_in<RowSlot*> free_slots{"free_slots"};
  sc_core::sc_fifo_out<ChunkToken> to_lanes{"to_lanes"};
  CycleOut params_on_chip{"params_on_chip"};  ///< when gamma/beta have landed in their buffer
  CycleIn adder_done{"adder_done"};       ///< a separate adder's z is in DRAM (read only with fuse none)
  DramRequestPort dram{"dram"};  ///< the DRAM (netlist channel `dram`)
  SramRequestPort sram{"sram"};  ///< the SRAM (netlist channel `sram`)
  ParamGradPort param_grads{"param_grads"};  ///< a backward's: the accumulator's words read beside the input (dram_rmw)

  /// `arith`: the rows' arithmetic, null when timing only.
  /// `limit`: the rows to issue (the workload's, less what the fast-forward skips).
  /// `row_buffers`: the rows in flight (the free pool's size).
  InputPathUnit(sc_core::sc_module_name n, const RunGeometry& g, const RowLimit& limit, double dram_window_bytes,
                int row_buffers, RowArithmetic* arith);
  void period_state(PeriodState& s) const override;
  int64_t rows_issued() const { return row_ + (slot_ ? 1 : 0); }
  /// row_buffers_peak: the most row buffers held at once (taken, not yet
  /// replayed). row_buffer_waits: the rows that found every one busy. With no
  /// wait, more rows in flight run the same schedule: the input path never
  /// looked for a buffer it did not find (docs/ASIC.md, "Rows in flight").
  const core::StatGroup& stats() const { return stats_; }

 private:
  void step();
  void retire();
  const RunGeometry& g_;
  const RowLimit& limit_;
  RowArithmetic* arith_;
  double window_bytes_;
  std::deque<std::pair<double, double>> in_flight_;  ///< (done cycle, bytes) of issued reads
  double in_flight_bytes_ = 0;
  // Where the stream stands.
  bool params_issued_ = false;
  int64_t row_ = 0;
  int chunk_ = 0;
  RowSlot* slot_ = nullptr;              ///< the row buffer being filled, null between rows
  bool window_wait_ = false;             ///< woken at the oldest read's completion
  std::optional<ChunkToken> pending_;    ///< issued, waiting for room in the FIFO to the lanes
  int row_buffers_;
  double row_buffers_peak_ = 0, row_buffer_waits_ = 0;
  bool waiting_for_buffer_ = false;  ///< this row already counted as waiting
  core::StatGroup stats_{basename()};
};

}  // namespace normsim::asic
