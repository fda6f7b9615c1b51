// Normalise/affine unit and output path: waits for the row's statistics,
// fetches the row back through the replay path (SRAM read for the stored
// part, DRAM re-read for the rest), computes L outputs a cycle, and writes
// them to DRAM through a write buffer whose fullness back-pressures it.
#pragma once

#include <deque>

#include "sim/asic/accel_context.hpp"

namespace normsim::asic {

SC_MODULE(NormalizeUnit) {
  SC_HAS_PROCESS(NormalizeUnit);
  sc_core::sc_fifo_in<RowSlot*> from_rsqrt;
  sc_core::sc_fifo_in<Grant> reread;  ///< the DRAM re-read stream (unused for SRAM replay)
  sc_core::sc_fifo_out<RowSlot*> free_slots;
  NormalizeUnit(sc_core::sc_module_name n, AccelContext& ctx);

 private:
  void run();
  AccelContext& ctx_;
  double free_at_ = 0;
  std::deque<std::pair<Grant, double>> writes_;  ///< outstanding output writes (grant, bytes), oldest first
  double write_bytes_in_flight_ = 0;
  std::vector<double> y_;
};

}  // namespace normsim::asic
