// Input path: takes a free row buffer and streams the row from DRAM in
// transactions of `chunk_elems` towards the lanes (which also write the part
// the replay path keeps into the row buffer as they consume it).
//
// Like every unit of the model it is an SC_METHOD: a small state machine that
// runs until it must wait (for a cycle, a free FIFO slot or a FIFO entry) and
// then names what wakes it with next_trigger.
#pragma once

#include <deque>
#include <optional>

#include "sim/asic/accel_context.hpp"

namespace normsim::asic {

SC_MODULE(InputPathUnit) {
  SC_HAS_PROCESS(InputPathUnit);
  sc_core::sc_fifo_in<RowSlot*> free_slots;
  sc_core::sc_fifo_out<ChunkToken> to_lanes;

  InputPathUnit(sc_core::sc_module_name n, AccelContext& ctx);

 private:
  void step();
  void retire();
  AccelContext& ctx_;
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
};

/// The re-read stream of the DRAM re-read and partial-replay paths: the part
/// of each row not kept in SRAM, read again in row order into a FIFO that
/// the normalise unit drains. It does not wait for the statistics, so DRAM
/// latency overlaps them; the FIFO (sized by Little's law to the port's
/// bandwidth x latency, traffic_identity.hpp) is the path's on-chip storage.
SC_MODULE(RereadStream) {
  SC_HAS_PROCESS(RereadStream);
  sc_core::sc_fifo_out<Grant> to_normalize;
  RereadStream(sc_core::sc_module_name n, AccelContext& ctx);

 private:
  void step();
  void next_chunk();
  AccelContext& ctx_;
  int64_t row_ = 0;
  int chunk_ = 0;
  std::optional<Grant> pending_;  ///< issued, waiting for room in the FIFO
};

}  // namespace normsim::asic
