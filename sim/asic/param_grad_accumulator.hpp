// The backward's parameter-gradient accumulator (docs/ASIC.md, "Backward"):
// dgamma += dy x_hat and dbeta += dy, column by column, as the row-sum lanes
// take each transaction -- a read-modify-write of an on-chip accumulator
// (its SRAM ports and banks bound the lanes), or of DRAM (the words came in
// with the input; onchip's accumulator is not built) -- and, with partials,
// a readout to DRAM every partial_rows rows. After the last row its own
// pass: the accumulator read out and written once in fp32, or every partial
// read back and their sum written. The lanes reach it through their
// `param_grads` port (a blocking transport: it answers with the cycle the
// transaction may retire), and the input path through its own (reading its
// words from DRAM beside each transaction's input, dram_rmw); a forward
// leaves both ports unbound. It owns its parameters (Config), derived from
// the workload and the arch when it is built.
#pragma once

#include <systemc.h>

#include <cstdint>
#include <deque>
#include <utility>

#include "sim/asic/asic_config.hpp"
#include "sim/asic/memory_models.hpp"
#include "sim/asic/sim_time.hpp"
#include "sim/asic/steady_state.hpp"
#include "sim/config/arch.hpp"
#include "sim/config/workload.hpp"
#include "sim/core/stats.hpp"

namespace normsim::asic {

class ParamGradIf : public virtual sc_core::sc_interface {
 public:
  /// Accumulates `elems` columns from cycle `start`; returns the cycle the
  /// lanes may retire the transaction (`start`: nothing holds them).
  virtual double accumulate(double start, int64_t elems) = 0;
  /// The lanes finished row `row` at `at` (a partial may close after it).
  virtual void row_done(int64_t row, double at) = 0;
  /// Bytes of `elems` columns it reads from DRAM beside row `row`'s input
  /// (dram_rmw, every row after the first; else 0).
  virtual double input_read_bytes(int64_t row, int64_t elems) const = 0;
  /// Reads `bytes` of its words from cycle `at`; returns when they are in.
  virtual double read_with_input(double at, double bytes) = 0;
};
/// Bound in a backward, unbound in a forward.
using ParamGradPort = sc_core::sc_port<ParamGradIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

struct ParamGradAccumulator : sc_core::sc_module, ParamGradIf, HasPeriodState, CycleSlot {
  SC_HAS_PROCESS(ParamGradAccumulator);
  DramRequestPort dram{"dram"};  ///< the DRAM (netlist channel `dram`)
  SramRequestPort sram{"sram"};  ///< the SRAM (netlist channel `sram`)
  struct Config {
    config::ParamGradPath path = config::ParamGradPath::onchip;  ///< asic.param_grad_accumulator.path
    int64_t partial_rows = 256;  ///< asic.param_grad_accumulator.partial_rows
    int grads = 2;               ///< gradients a column: dgamma and dbeta, or dgamma (RMSNorm)
    int acc_bytes = 4;           ///< one accumulator word: the dgamma stage's width (fp32: 4)
    int64_t rows = 0, hidden = 0;
    /// Its parameters for workload `w` on arch `a` with the resolved config `c`.
    static Config of(const config::Workload& w, const config::Arch& a, const AsicConfig& c);
    /// Accumulator bytes of `elems` columns (every gradient).
    double acc_bytes_of(int64_t elems) const { return static_cast<double>(elems * grads * acc_bytes); }
    /// Whether a partial closes after row r (written out with partials).
    bool closes_partial(int64_t r) const { return (r + 1) % partial_rows == 0 || r + 1 == rows; }
    /// Partials a run writes.
    int64_t partial_count() const { return (rows + partial_rows - 1) / partial_rows; }
  };
  ParamGradAccumulator(sc_core::sc_module_name n, const Config& cfg);
  double accumulate(double start, int64_t elems) override;
  void row_done(int64_t row, double at) override;
  double input_read_bytes(int64_t row, int64_t elems) const override;
  double read_with_input(double at, double bytes) override;
  /// The after-rows pass from cycle `start` (the lanes' last row): returns
  /// the cycle its last byte is in DRAM (`start` when nothing is left).
  double finish(double start);
  const core::StatGroup& stats() const { return stats_; }
  const Config& config() const { return cfg_; }
  void period_state(PeriodState& s) const override;

 private:
  /// Clocked (asic.timing: cycle): a partial's readout, its SRAM read at the
  /// edge the row ends and its DRAM write at the edge the read is in. Fluid,
  /// row_done issues both at once, dated.
  void readout();
  const Config cfg_;
  std::deque<std::pair<double, double>> readout_reads_, readout_writes_;  ///< (cycle, bytes) still to issue
  sc_core::sc_event readout_added_;
  uint64_t rmw_bytes_ = 0, readout_bytes_ = 0;
  core::StatGroup stats_;
};

}  // namespace normsim::asic
