// Stall cycles of one unit, by cause: each unit that can stall owns one and
// registers it in its counters, so the report sums causes over units by name.
#pragma once

#include "sim/core/stats.hpp"

namespace normsim::asic {

struct StallCounters {
  double dram_latency = 0;    ///< waiting for data whose request was issued too late to hide DRAM latency
  double dram_bandwidth = 0;  ///< waiting for data queued behind other DRAM traffic / streaming
  double row_buffer = 0;      ///< input path had no free row buffer (rows in flight exhausted)
  double dependency = 0;      ///< waiting for the row's statistics (or the parameters)
  double sram_port = 0;       ///< waiting for the SRAM replay read
  double dram_write = 0;      ///< output write buffer full (write bandwidth)
  double adder_pass = 0;      ///< waiting for a separate adder's pass to write z (fuse none)
  double total() const { return dram_latency + dram_bandwidth + row_buffer + dependency + sram_port + dram_write + adder_pass; }
  /// Registers each cause as "stall_cycles.<cause>" in a unit's counters.
  void register_in(core::StatGroup& g) const {
    g.add("stall_cycles.dram_latency", "cycles", "waiting for data requested too late to hide the DRAM latency", &dram_latency);
    g.add("stall_cycles.dram_bandwidth", "cycles", "waiting for data queued behind other DRAM traffic", &dram_bandwidth);
    g.add("stall_cycles.row_buffer", "cycles", "no free row buffer held the input back", &row_buffer);
    g.add("stall_cycles.dependency", "cycles", "waiting for the row's statistics or the parameters", &dependency);
    g.add("stall_cycles.sram_port", "cycles", "waiting for the SRAM replay read", &sram_port);
    g.add("stall_cycles.dram_write", "cycles", "the output write buffer was full", &dram_write);
    g.add("stall_cycles.adder_pass", "cycles", "waiting for a separate adder's pass to write the residual sum", &adder_pass);
  }
};

}  // namespace normsim::asic
