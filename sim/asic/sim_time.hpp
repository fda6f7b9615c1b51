// Simulated time as the units see it: one SystemC nanosecond is one clock
// cycle, and the kernel counts femtoseconds (asic_run sets the resolution):
// 10^6 ticks a cycle hold every multiple of 2^-6 cycle exactly, so a grant
// ending at a fraction of a cycle (a 4-byte write on a 64-byte port) wakes
// its unit at that very time, and the model's times are exact sums -- which
// the fast-forward's extrapolation relies on (steady_state.hpp).
// Integer arithmetic on the raw value avoids sc_time's unit conversions,
// which cost more than the model's own work per transaction in timing-only
// runs.
#pragma once

#include <systemc.h>

#include <cmath>

namespace normsim::asic {

/// Kernel ticks a cycle: 10^6 (fs); 1000 (ps) in a run lock-stepped with the
/// verilated RTL, whose SystemC model needs the kernel at the Verilog
/// timeprecision (such a run simulates every row: no fast-forward).
inline double g_ticks_per_cycle = 1e6;
/// Cycle-discrete timing (asic.timing: cycle): a unit acts only at a whole
/// cycle -- a wait for time t ends at the edge ceil(t) -- as clocked logic
/// does, while a memory port keeps its byte-exact fluid time (the credit the
/// RTL port carries, docs/RTL.md "The memory port"). Off: every wait ends
/// at t itself (asic.timing: fluid).
inline bool g_whole_cycles = false;
/// Cycle `t` in kernel ticks: at the kernel's resolution (absorbing the
/// double arithmetic's last bits), then up to the next edge when the units
/// act at whole cycles.
inline double ticks_of(double t) {
  const double ticks = std::nearbyint(t * g_ticks_per_cycle);
  return g_whole_cycles ? std::ceil(ticks / g_ticks_per_cycle) * g_ticks_per_cycle : ticks;
}
/// The edge a time t is seen at: t itself (fluid) or ceil(t) (whole cycles).
inline double edge_of(double t) { return g_whole_cycles ? ticks_of(t) / g_ticks_per_cycle : t; }
/// The kernel's resolution for these ticks: set once a simulation context, before any time exists.
inline void set_cycle_resolution(bool rtl = false) {
  g_ticks_per_cycle = rtl ? 1e3 : 1e6;
  sc_core::sc_set_time_resolution(1, rtl ? sc_core::SC_PS : sc_core::SC_FS);
}
inline double now_cycles() { return static_cast<double>(sc_core::sc_time_stamp().value()) / g_ticks_per_cycle; }
/// Whether cycle `t` has come, at the kernel's femtosecond resolution (as
/// trigger_at rounds it): a unit that waited for t sees it reached.
inline bool reached(double t) { return ticks_of(t) <= static_cast<double>(sc_core::sc_time_stamp().value()); }
/// The units are SC_METHODs (a timed re-trigger costs the kernel about half a
/// thread's timed wait: tools/bench/bench_systemc_wait). Re-triggers the
/// calling method at cycle `t` and returns true if `t` lies ahead; returns
/// false, and the method carries on, if it does not.
inline bool trigger_at(double t) {
  const auto now_ticks = sc_core::sc_time_stamp().value();
  const double target = ticks_of(t);
  if (target <= static_cast<double>(now_ticks)) return false;
  sc_core::next_trigger(sc_core::sc_time::from_value(static_cast<sc_core::sc_time::value_type>(target) - now_ticks));
  return true;
}

}  // namespace normsim::asic
