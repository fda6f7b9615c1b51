// Simulated time as the units see it: one SystemC nanosecond is one clock
// cycle, and the kernel counts picoseconds (asic_run sets the resolution).
// Integer arithmetic on the raw value avoids sc_time's unit conversions,
// which cost more than the model's own work per transaction in timing-only
// runs.
#pragma once

#include <systemc.h>

#include <cmath>

namespace normsim::asic {

inline constexpr double kPsPerCycle = 1000.0;
inline double now_cycles() { return static_cast<double>(sc_core::sc_time_stamp().value()) / kPsPerCycle; }
/// Whether cycle `t` has come, at the kernel's picosecond resolution (as
/// trigger_at rounds it): a unit that waited for t sees it reached.
inline bool reached(double t) {
  return std::nearbyint(t * kPsPerCycle) <= static_cast<double>(sc_core::sc_time_stamp().value());
}
/// The units are SC_METHODs (a timed re-trigger costs the kernel about half a
/// thread's timed wait: tools/bench/bench_systemc_wait). Re-triggers the
/// calling method at cycle `t` and returns true if `t` lies ahead; returns
/// false, and the method carries on, if it does not.
inline bool trigger_at(double t) {
  const auto now_ps = sc_core::sc_time_stamp().value();
  const double target_ps = std::nearbyint(t * kPsPerCycle);
  if (target_ps <= static_cast<double>(now_ps)) return false;
  sc_core::next_trigger(sc_core::sc_time::from_value(static_cast<sc_core::sc_time::value_type>(target_ps) - now_ps));
  return true;
}

}  // namespace normsim::asic
