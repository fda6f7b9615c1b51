// The backward's S/C unit: the row-sum tree's S1 and S2 to the row means
// S1/C and S2/C (core::row_mean: a shift where C is a power of two, else a
// multiply by the table's 1/C), a pipeline of fixed latency
// (asic.row_mean.latency_cycles). The row-sum lanes hand it each summed row
// through their `finish` port (a blocking transport, row_transport.hpp).
// The backward's numerics run beside the simulation (core::NormBackward),
// so it moves time only.
#pragma once

#include <systemc.h>

#include "sim/asic/row_slot.hpp"
#include "sim/asic/row_transport.hpp"

namespace normsim::asic {

struct RowMeanUnit : sc_core::sc_module, RowTransportIf {
  RowMeanUnit(sc_core::sc_module_name n, int latency_cycles) : sc_module(n), latency_cycles_(latency_cycles) {}
  /// Never waits (a pipeline): returns 0.
  double transport(RowSlot& slot) override {
    slot.t_ready += latency_cycles_;
    return 0;
  }

 private:
  const int latency_cycles_;
};

}  // namespace normsim::asic
