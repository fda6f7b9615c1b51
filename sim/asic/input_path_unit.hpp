// Input path: takes a free row buffer and streams the row from DRAM in
// transactions of `chunk_elems` towards the lanes (which also write the part
// the replay path keeps into the row buffer as they consume it).
#pragma once

#include "sim/asic/accel_context.hpp"

namespace normsim::asic {

SC_MODULE(InputPathUnit) {
  SC_HAS_PROCESS(InputPathUnit);
  sc_core::sc_fifo_in<RowSlot*> free_slots;
  sc_core::sc_fifo_out<ChunkToken> to_lanes;

  InputPathUnit(sc_core::sc_module_name n, AccelContext& ctx);

 private:
  void run();
  AccelContext& ctx_;
};

}  // namespace normsim::asic
