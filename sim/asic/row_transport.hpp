// A finished row handed to a unit as a blocking transport that annotates
// the row's time (TLM's loosely-timed b_transport, without a thread
// switch): the lanes' ports to the Chan merge tree and the RSQRT unit.
// The target unit implements the interface and is bound to the port as its
// channel (netlist.hpp: a transport row names its target unit).
#pragma once

#include <systemc.h>

#include "sim/asic/row_slot.hpp"

namespace normsim::asic {

class RowTransportIf : public virtual sc_core::sc_interface {
 public:
  /// Takes the row: its time advances by the unit's latency (and any wait
  /// for the unit). Returns the wait, the cycles before the unit took it.
  virtual double transport(RowSlot& slot) = 0;
};

using RowTransportPort = sc_core::sc_port<RowTransportIf>;

}  // namespace normsim::asic
