// The backward's parameter-gradient accumulator (docs/ASIC.md, "Backward"):
// dgamma += dy x_hat and dbeta += dy, column by column, as the row-sum lanes
// take each transaction -- a read-modify-write of an on-chip accumulator
// (its SRAM ports and banks bound the lanes), or of DRAM (the words came in
// with the input; onchip's accumulator is not built) -- and, with partials,
// a readout to DRAM every partial_rows rows. After the last row its own
// pass: the accumulator read out and written once in fp32, or every partial
// read back and their sum written. The lanes reach it through their
// `param_grads` port (a blocking transport: it answers with the cycle the
// transaction may retire); a forward's lanes leave that port unbound.
#pragma once

#include <systemc.h>

#include <cstdint>

#include "sim/asic/memory_models.hpp"
#include "sim/asic/run_geometry.hpp"
#include "sim/core/stats.hpp"

namespace normsim::asic {

class ParamGradIf : public virtual sc_core::sc_interface {
 public:
  /// Accumulates `elems` columns from cycle `start`; returns the cycle the
  /// lanes may retire the transaction (`start`: nothing holds them).
  virtual double accumulate(double start, int64_t elems) = 0;
  /// The lanes finished row `row` at `at` (a partial may close after it).
  virtual void row_done(int64_t row, double at) = 0;
};
/// Bound in a backward, unbound in a forward.
using ParamGradPort = sc_core::sc_port<ParamGradIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

struct ParamGradAccumulator : sc_core::sc_module, ParamGradIf {
  ParamGradAccumulator(sc_core::sc_module_name n, const RunGeometry& g, DramModel& dram, SramModel& sram);
  double accumulate(double start, int64_t elems) override;
  void row_done(int64_t row, double at) override;
  /// The after-rows pass from cycle `start` (the lanes' last row): returns
  /// the cycle its last byte is in DRAM (`start` when nothing is left).
  double finish(double start);
  const core::StatGroup& stats() const { return stats_; }

 private:
  const RunGeometry& g_;
  DramModel& dram_;
  SramModel& sram_;
  uint64_t rmw_bytes_ = 0, readout_bytes_ = 0;
  core::StatGroup stats_;
};

}  // namespace normsim::asic
