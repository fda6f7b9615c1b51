// The three ways of getting the row back for the normalise pass
// (docs/ASIC.md, "Comparing the input paths"). Each keeps the first
// `replay_stored_elems` elements of a row in SRAM while the statistics
// accumulate and re-reads the rest from DRAM:
//   sram-replay     all of it        DRAM reads of x: 1x
//   dram-reread     none of it       2x
//   partial-replay  a fraction f     (2 - f)x
// That one count is all a path is: the units split each transaction into
// its kept and re-read parts by it (RunGeometry), never by the path's name.
#pragma once

#include <cmath>
#include <cstdint>

#include "sim/asic/asic_config.hpp"

namespace normsim::asic {

/// Elements of a row of `hidden` that path `c.path` keeps in SRAM; partial
/// replay keeps round(f C), the count the closed form of the DRAM bytes uses.
inline int64_t replay_stored_elems(const AsicConfig& c, int64_t hidden) {
  switch (c.path) {
    case InputPath::sram_replay: return hidden;
    case InputPath::dram_reread: return 0;
    case InputPath::partial_replay: return static_cast<int64_t>(std::llround(c.replay_fraction * static_cast<double>(hidden)));
  }
  return 0;
}

/// Row buffer bytes in SRAM for `rows` rows in flight.
inline uint64_t replay_row_buffer_bytes(const AsicConfig& c, int64_t hidden, int elem_bytes, int rows) {
  return static_cast<uint64_t>(replay_stored_elems(c, hidden)) * static_cast<uint64_t>(elem_bytes) * static_cast<uint64_t>(rows);
}

}  // namespace normsim::asic
