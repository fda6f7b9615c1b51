// A signal of a port's own type, bound to it: Verilator's SystemC models
// type their ports by width (bool, uint32_t, uint64_t, sc_bv<N>), so whoever
// drives one -- the co-simulation tests, `run --rtl` -- lets the port choose.
// The signal lives as long as the simulation (SystemC owns its objects).
#pragma once

#include <systemc.h>

namespace normsim::asic {

template <class Port>
sc_core::sc_signal<typename Port::data_type>& bind_signal(Port& p) {
  auto* s = new sc_core::sc_signal<typename Port::data_type>();
  p(*s);
  return *s;
}

}  // namespace normsim::asic
