// A row buffer slot: one row in flight through the accelerator. The input
// path takes a free slot, fills it, and the normalise unit returns it when
// the row has been replayed; `rows_in_flight` slots exist.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "sim/asic/bandwidth_server.hpp"
#include "sim/core/norm_datapath.hpp"

namespace normsim::asic {

struct RowSlot {
  int index = 0;
  int64_t row = -1;
  core::RowState state;          ///< numerics, stage to stage (unused in timing-only mode)
  std::vector<double> x;         ///< the stored input values of the row
  std::vector<Grant> sram_write; ///< per chunk: the stored part's SRAM write
  double t_ready = 0;            ///< cycle the row leaves the current unit
};

/// A transaction of the input stream: chunk `chunk` of the row in `slot`.
struct ChunkToken {
  RowSlot* slot = nullptr;
  int chunk = 0;
  int chunks = 1;
  Grant dram;  ///< its DRAM read
};
// sc_fifo prints its contents on request.
inline std::ostream& operator<<(std::ostream& os, const ChunkToken& t) {
  return os << "chunk " << t.chunk << "/" << t.chunks << " of row " << (t.slot ? t.slot->row : -1);
}

}  // namespace normsim::asic
