// Normalise/affine unit and output path: waits for the row's statistics,
// fetches the row back through the replay path (SRAM read for the stored
// part, DRAM re-read for the rest), computes L outputs a cycle, and writes
// them to DRAM through a write buffer whose fullness back-pressures it.
#pragma once

#include <atomic>
#include <deque>
#include <vector>

#include "sim/asic/cycle_signal.hpp"
#include "sim/asic/memory_models.hpp"
#include "sim/asic/row_arithmetic.hpp"
#include "sim/asic/row_slot.hpp"
#include "sim/asic/run_geometry.hpp"
#include "sim/asic/sim_time.hpp"
#include "sim/asic/stall_counters.hpp"
#include "sim/asic/steady_state.hpp"
#include <functional>

namespace normsim::asic {

struct NormalizeUnit : sc_core::sc_module, HasPeriodState, CycleSlot {
  SC_HAS_PROCESS(NormalizeUnit);
  sc_core::sc_fifo_in<RowSlot*> from_stats{"from_stats"};
  sc_core::sc_fifo_in<Grant> reread{"reread"};  ///< the DRAM re-read stream (unused for SRAM replay)
  sc_core::sc_fifo_out<RowSlot*> free_slots{"free_slots"};
  DramRequestPort dram{"dram"};  ///< the DRAM (netlist channel `dram`)
  SramRequestPort sram{"sram"};  ///< the SRAM (netlist channel `sram`)
  CycleIn params_on_chip{"params_on_chip"};             ///< gamma/beta in their buffer
  struct Config {
    int latency_cycles = 1;   ///< asic.normalize.latency_cycles, or asic.dx_unit.latency_cycles
    bool write_stats = false;  ///< write mean/rstd per row
    std::atomic<int64_t>* rows_done_out = nullptr;  ///< if set, mirrors rows_done() for a progress line
    std::function<void()> row_done;                 ///< if set, called as each row finishes (the fast-forward's look)
  };
  NormalizeUnit(sc_core::sc_module_name n, const RunGeometry& g, const Config& cfg, double dram_window_bytes,
                RowArithmetic* arith);
  const core::StatGroup& stats() const { return stats_; }
  double last_output_cycle() const { return last_output_cycle_; }  ///< when the last output write completed
  int64_t rows_done() const { return rows_done_; }                 ///< rows finished (the trace samples the first ones)
  uint64_t param_buffer_read_bytes() const { return param_buffer_read_bytes_; }
  uint64_t reread_fifo_read_bytes() const { return reread_fifo_read_bytes_; }
  void period_state(PeriodState& s) const override;

 private:
  void step();
  /// Clocked (asic.timing: cycle): the replay address generator, a process
  /// of its own that issues a row's SRAM reads the SRAM's latency before
  /// the row starts, at that edge, while step() still computes the row
  /// before; it runs at most a row ahead (it takes a row once the row
  /// before has its end known). Fluid, step() dates the reads back instead.
  void replay_generator();
  /// Row `row`'s transaction k back from its buffer, read at `at` (held
  /// until its write has ended); `ready` when nothing of it is kept.
  Grant replay_read(const RowSlot& row, int k, double at, double ready);
  /// Chunk k_'s compute and the cycle its output write is issued (issue_).
  void schedule_chunk();
  void write_chunk();
  void finish_row();
  const RunGeometry& g_;
  const Config cfg_;
  RowArithmetic* arith_;
  double free_at_ = 0;
  double replay_issued_ = 0;  ///< cycle the last SRAM replay read was issued
  const double write_buffer_bytes_;  ///< what the DRAM can have in flight (max_outstanding x burst_bytes)
  std::deque<std::pair<Grant, double>> writes_;  ///< outstanding output writes (grant, bytes), oldest first
  double write_bytes_in_flight_ = 0;
  std::vector<double> y_;
  // Where the row in the unit stands.
  enum class Phase { take, start, fetch, write, hand_back } phase_ = Phase::take;
  RowSlot* slot_ = nullptr;
  double ready_ = 0;  ///< cycle the row's replay starts
  double t_ = 0;      ///< cycle the current chunk may start
  double issue_ = 0;  ///< cycle chunk k_'s output write is issued
  int k_ = 0;
  std::vector<Grant> fetch_sram_, fetch_dram_;  ///< per chunk: where its input comes back from
  // The replay generator's (clocked only).
  struct Replay {
    RowSlot* slot;
    double ready;             ///< cycle the row's replay starts
    std::vector<Grant> sram;  ///< its SRAM reads, per chunk
  };
  RowSlot* generating_ = nullptr;  ///< the row whose reads it waits to issue
  double generating_ready_ = 0;    ///< ... and the cycle its replay starts
  std::deque<Replay> replays_;  ///< rows whose reads are out, for step() to take
  int64_t rows_generated_ = 0;  ///< rows whose reads the generator issued
  int64_t rows_scheduled_ = 0;  ///< rows whose last chunk step() has scheduled: their end known
  double row_end_ = 0;          ///< the end of the last of them
  sc_core::sc_event replay_issued_event_, row_end_known_;
  StallCounters stalls_;
  double busy_cycles_ = 0, last_output_cycle_ = 0;
  int64_t rows_done_ = 0;
  uint64_t param_buffer_read_bytes_ = 0;  ///< gamma/beta read once per row
  uint64_t reread_fifo_read_bytes_ = 0;   ///< the re-read, through its FIFO
  core::StatGroup stats_{basename()};
};

}  // namespace normsim::asic
