// L lanes, one element per lane per cycle; element i to lane i mod L: the
// forward's Welford (or partial-sum) lanes, or the backward's row-sum lanes
// (S1 = sum g, S2 = sum g x_hat). Each finished row goes through the row's
// reduction and the unit that finishes its statistics (its `reduce` and
// `finish` ports, blocking transports: the Chan merge tree and the RSQRT
// unit, or the row-sum tree and the S/C unit) and on to the output unit
// with them. The lanes also write the part of the row the replay path keeps
// into the row buffer, and a fused unit's sum z into DRAM, as they take each
// transaction; a backward's lanes hand each transaction's columns to the
// parameter-gradient accumulator (`param_grads`).
#pragma once

#include "sim/asic/cycle_signal.hpp"
#include "sim/asic/memory_models.hpp"
#include "sim/asic/param_grad_accumulator.hpp"
#include "sim/asic/row_arithmetic.hpp"
#include "sim/asic/row_slot.hpp"
#include "sim/asic/row_transport.hpp"
#include "sim/asic/run_geometry.hpp"
#include "sim/asic/sim_time.hpp"
#include "sim/asic/stall_counters.hpp"
#include "sim/asic/steady_state.hpp"

namespace normsim::asic {

struct WelfordLaneArray : sc_core::sc_module, HasPeriodState, CycleSlot {
  SC_HAS_PROCESS(WelfordLaneArray);
  sc_core::sc_fifo_in<ChunkToken> from_input{"from_input"};
  sc_core::sc_fifo_out<RowSlot*> to_output{"to_output"};  ///< rows with their statistics
  sc_core::sc_fifo_out<double> sum_in_dram{"sum_in_dram"};     ///< fused with a re-read: per row, the cycle its z is in DRAM
  CycleIn adder_done{"adder_done"};                           ///< a separate adder's z is in DRAM (stall attribution)
  RowTransportPort reduce{"reduce"};                          ///< each finished row's lane states to the row's reduction
  RowTransportPort finish{"finish"};                          ///< then to the unit that finishes its statistics
  ParamGradPort param_grads{"param_grads"};                   ///< a backward's: each transaction's columns, accumulated
  DramRequestPort dram{"dram"};  ///< the DRAM (netlist channel `dram`)
  SramRequestPort sram{"sram"};  ///< the SRAM (netlist channel `sram`)
  /// `latency_cycles`: the lane pipeline's depth.
  WelfordLaneArray(sc_core::sc_module_name n, const RunGeometry& g, int latency_cycles, RowArithmetic* arith);
  const core::StatGroup& stats() const { return stats_; }
  double last_row_cycle() const { return last_row_cycle_; }  ///< when the lanes finished the last row
  double first_stats_cycle() const { return first_stats_cycle_; }  ///< when the first row's statistics were out (-1: none yet)
  void period_state(PeriodState& s) const override;

 private:
  void step();
  /// The lanes take `tok_`: counters and times; false if they must first
  /// wait for the cycle its writes (the row buffer's, a fused unit's z) can be issued.
  bool take_chunk();
  /// The kept part into the row buffer; a fused unit's sum z into DRAM.
  void write_row_buffer();
  const RunGeometry& g_;
  const int latency_cycles_;
  RowArithmetic* arith_;
  double free_at_ = 0;  ///< cycle the lanes can take the next element
  enum class Phase { take, sram_write, hand_over } phase_ = Phase::take;
  ChunkToken tok_;      ///< the transaction in the lanes
  double start_ = 0;    ///< cycle the lanes start on it
  StallCounters stalls_;
  double merge_wait_ = 0;  ///< cycles the lanes held a finished row for shared merge units
  double busy_cycles_ = 0, last_row_cycle_ = 0, first_stats_cycle_ = -1;
  double row_sum_done_ = 0;  ///< fused: when this row's z writes are in DRAM
  core::StatGroup stats_{basename()};
};

}  // namespace normsim::asic
