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

/// Kernel ticks a cycle: 10^6 (fs). Every verilated model is verilated at
/// 1 fs (a verilated model needs the kernel at its own timeprecision), so a
/// run with RTL beside it is the same run as one without.
inline constexpr double kTicksPerCycle = 1e6;
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
  const double ticks = std::nearbyint(t * kTicksPerCycle);
  return g_whole_cycles ? std::ceil(ticks / kTicksPerCycle) * kTicksPerCycle : ticks;
}
/// The edge a time t is seen at: t itself (fluid) or ceil(t) (whole cycles).
inline double edge_of(double t) { return g_whole_cycles ? ticks_of(t) / kTicksPerCycle : t; }
/// The kernel's resolution for these ticks: set once a simulation context, before any time exists.
inline void set_cycle_resolution() {
  sc_core::sc_set_time_resolution(1, sc_core::SC_FS);
}
/// The current cycle: the kernel's time (fluid), or the edge the units act
/// at (whole cycles: a unit's slot within the cycle is not part of its time).
inline double now_cycles() {
  const double t = static_cast<double>(sc_core::sc_time_stamp().value()) / kTicksPerCycle;
  return g_whole_cycles ? std::floor(t) : t;
}
/// A memory request made now for data of time `t` (<= now): at `t` itself
/// (fluid), at this edge (whole cycles: clocked logic issues at an edge).
inline double request_cycle(double t) { return g_whole_cycles ? now_cycles() : t; }
/// Whether cycle `t` has come, at the kernel's femtosecond resolution (as
/// trigger_at rounds it): a unit that waited for t sees it reached.
inline bool reached(double t) { return ticks_of(t) <= static_cast<double>(sc_core::sc_time_stamp().value()); }
/// The units are SC_METHODs (a timed re-trigger costs the kernel about half a
/// thread's timed wait: tools/bench/bench_systemc_wait). Re-triggers the
/// calling method at cycle `t` and returns true if `t` lies ahead; returns
/// false, and the method carries on, if it does not.
inline bool trigger_at(double t, int slot = 0) {
  const auto now_ticks = sc_core::sc_time_stamp().value();
  const double target = ticks_of(t) + (g_whole_cycles ? slot : 0);
  if (target <= static_cast<double>(now_ticks)) return false;
  sc_core::next_trigger(sc_core::sc_time::from_value(static_cast<sc_core::sc_time::value_type>(target) - now_ticks));
  return true;
}

/// A unit's place within a cycle (asic.timing: cycle). Clocked units that
/// share a memory port must agree on the order of their requests in one
/// cycle, as the RTL port's fixed-priority arbiter does; in SystemC that
/// order would be whichever process the kernel runs first, which follows
/// the chain of events that woke them (a free row buffer handed back before
/// the input path's request in one cycle, after it in another). So each
/// unit acts in a slot of its own, `slot` kernel ticks after the edge, in
/// the order unit_registry's cycle_slot() gives: a hand-over to a later slot
/// is seen in the same cycle, one to an earlier slot at the next edge (a
/// registered hand-over). Every memory request is made at the edge its
/// unit acts on (the memories check it), so the requests of one cycle are
/// in slot order. Fluid timing has no slots. Units derive from it; its
/// trigger_at hides the free one.
class CycleSlot {
 public:
  void set_cycle_slot(int slot) { slot_ = slot; }
  int cycle_slot() const { return slot_; }

 protected:
  /// Called first in a unit's method: true (re-triggered) when an event woke
  /// it outside its slot; it then runs at its slot, this cycle or the next.
  bool await_slot() const {
    if (!g_whole_cycles) return false;
    const auto now = sc_core::sc_time_stamp().value();
    const auto per_cycle = static_cast<sc_core::sc_time::value_type>(kTicksPerCycle);
    const auto offset = now % per_cycle, slot = static_cast<sc_core::sc_time::value_type>(slot_);
    if (offset == slot) return false;
    sc_core::next_trigger(sc_core::sc_time::from_value(offset < slot ? slot - offset : per_cycle - offset + slot));
    return true;
  }
  bool trigger_at(double t) const { return asic::trigger_at(t, slot_); }

 private:
  int slot_ = 0;
};

}  // namespace normsim::asic
