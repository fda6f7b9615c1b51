// A cycle one unit announces once and other units read: when gamma/beta are
// on chip (the input path to the normalise unit), when a separate adder's
// last z write is in DRAM (the adder's pass to the input path and the
// lanes). A channel with a writer's and a reader's interface, so the units
// bind ports to it and a VCD shows it; the announcement wakes a waiting
// reader in the next delta cycle.
#pragma once

#include <systemc.h>

namespace normsim::asic {

class CycleInIf : virtual public sc_core::sc_interface {
 public:
  virtual bool announced() const = 0;
  /// The announced cycle; -1 before the announcement.
  virtual double cycle() const = 0;
  virtual const sc_core::sc_event& announced_event() const = 0;
};

class CycleOutIf : virtual public sc_core::sc_interface {
 public:
  virtual void announce(double cycle) = 0;
};

class CycleSignal : public sc_core::sc_prim_channel, public CycleInIf, public CycleOutIf {
 public:
  explicit CycleSignal(const char* name) : sc_core::sc_prim_channel(name) {}
  bool announced() const override { return cycle_ >= 0; }
  double cycle() const override { return cycle_; }
  const sc_core::sc_event& announced_event() const override { return event_; }
  void announce(double cycle) override {
    cycle_ = cycle;
    event_.notify(sc_core::SC_ZERO_TIME);
  }
  const char* kind() const override { return "CycleSignal"; }
  /// The value a waveform shows (-1 until announced).
  const double& traced() const { return cycle_; }

 private:
  double cycle_ = -1;
  sc_core::sc_event event_;
};

using CycleIn = sc_core::sc_port<CycleInIf>;
using CycleOut = sc_core::sc_port<CycleOutIf>;

}  // namespace normsim::asic
