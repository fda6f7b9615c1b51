// The re-read stream of the DRAM re-read and partial-replay paths: the part
// of each row not kept in SRAM, read again in row order into a FIFO that
// the normalise unit drains. It does not wait for the statistics, so DRAM
// latency overlaps them; the FIFO (sized by Little's law to the port's
// bandwidth x latency, traffic_identity.hpp) is the path's on-chip storage.
// A fused unit re-reads z, which the lanes write: the stream then takes,
// row by row, the cycle the row's z is in DRAM and starts no earlier.
#pragma once

#include <optional>

#include "sim/asic/memory_models.hpp"
#include "sim/asic/run_geometry.hpp"
#include "sim/asic/sim_time.hpp"
#include "sim/asic/steady_state.hpp"

namespace normsim::asic {

struct RereadStream : sc_core::sc_module, HasPeriodState, CycleSlot {
  SC_HAS_PROCESS(RereadStream);
  sc_core::sc_fifo_out<Grant> to_output{"to_output"};
  sc_core::sc_fifo_in<double> sum_in_dram{"sum_in_dram"};  ///< fused: per row, the cycle its z is in DRAM
  DramRequestPort dram{"dram"};  ///< the DRAM (netlist channel `dram`)
  /// `limit`: the rows to re-read (the workload's, less what the fast-forward skips).
  RereadStream(sc_core::sc_module_name n, const RunGeometry& g, const RowLimit& limit);
  void period_state(PeriodState& s) const override;
  int64_t rows_issued() const { return row_ + (chunk_ > 0 || pending_ ? 1 : 0); }

 private:
  void step();
  void next_chunk();
  const RunGeometry& g_;
  const RowLimit& limit_;
  int64_t row_ = 0;
  int chunk_ = 0;
  int64_t sum_row_ = -1;       ///< the row whose z cycle the stream holds (fused)
  double sum_done_ = 0;        ///< ... and that cycle
  std::optional<Grant> pending_;  ///< issued, waiting for room in the FIFO
};

}  // namespace normsim::asic
