// The clock of a verilated SystemC model under test: a signal the test
// drives, one rising edge a cycle, the registers' outputs settled after it.
// The co-simulation benches (test_rtl_cosim.cpp, test_rtl_dram_port.cpp)
// bind their model's clk to it and step it.
#pragma once

#include <systemc.h>

namespace normsim::rtl_test {

struct ClockedBench {
  sc_core::sc_signal<bool> clk;
  void settle() { sc_core::sc_start(1, sc_core::SC_NS); }
  void cycle() {  // a rising edge, then the registers' outputs settle
    clk.write(false);
    settle();
    clk.write(true);
    settle();
  }
};

}  // namespace normsim::rtl_test
