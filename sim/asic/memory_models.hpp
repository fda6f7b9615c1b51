// DRAM and SRAM models: loosely-timed SystemC modules (TLM-LT style, no
// processes of their own). A caller asks for a transfer at its local time and
// gets a Grant; it then waits until the grant's time. Bytes are counted by
// what they carry, so the report can split them and tests can assert the
// closed forms exactly.
#pragma once

#include <systemc.h>

#include <array>
#include <cstdint>

#include "sim/asic/asic_config.hpp"
#include "sim/asic/bandwidth_server.hpp"
#include "sim/asic/steady_state.hpp"
#include "sim/asic/traffic_kinds.hpp"
#include "sim/core/stats.hpp"

namespace normsim::asic {



/// A unit's view of the DRAM, through its `dram` port: a transfer asked for
/// at the caller's local time comes back as its Grant -- a memory channel's
/// request and response in one blocking call (TLM-LT's b_transport).
struct DramIf : virtual sc_core::sc_interface {
  virtual Grant read(double now, double bytes, Traffic kind) = 0;
  virtual Grant write(double now, double bytes, Traffic kind) = 0;
  virtual double latency() const = 0;  ///< cycles from a request to its first byte
};

/// A unit's view of the on-chip SRAM, through its `sram` port.
struct SramIf : virtual sc_core::sc_interface {
  /// A read that may not start before `not_before` (the data's write).
  virtual Grant read(double now, double bytes, double not_before = 0) = 0;
  virtual Grant write(double now, double bytes) = 0;
  /// Bytes it holds from now, more or fewer (the occupancy counter).
  virtual void hold(int64_t delta_bytes) = 0;
  virtual double latency() const = 0;
};

/// The ports a unit reaches the memories through (netlist.cpp's `dram` and `sram`).
using DramRequestPort = sc_core::sc_port<DramIf>;
using SramRequestPort = sc_core::sc_port<SramIf>;

class EdgeLog;

/// The check that clocked units ask for memory at the edge they act on
/// (asic.timing: cycle): a request at any other time has no place in the
/// RTL port's order (docs/RTL.md, "The memory port"); and, when a log is
/// given, each request's edge and its end's (edge_log.hpp).
class EdgeRequests {
 public:
  void require_edges(bool on) { on_ = on; }
  void log_edges(EdgeLog* log) { log_ = log; }

 protected:
  void check(const char* memory, double now, const char* what) const;
  /// `stream` asked for `bytes` at `now`, its last byte at `g.done`; `done` names its ends' stream.
  void logged(const char* stream, const char* done, double now, double bytes, const Grant& g) const;

 private:
  bool on_ = false;
  EdgeLog* log_ = nullptr;
};

struct DramModel : sc_core::sc_module, DramIf, EdgeRequests {
  DramModel(sc_core::sc_module_name n, const DramConfig& cfg, double clock_ghz);
  DramModel(sc_core::sc_module_name n, const DramConfig& cfg, const DramPort& port);  ///< the port at the unit's clock
  Grant read(double now, double bytes, Traffic kind) override;
  Grant write(double now, double bytes, Traffic kind) override;

  const DramConfig& config() const { return cfg_; }
  uint64_t bytes_read() const;
  uint64_t bytes_written() const;
  uint64_t bytes(Traffic t) const { return bytes_[static_cast<int>(t)]; }
  double busy_cycles() const { return port_.busy_cycles(); }
  double latency() const override { return port_.latency(); }
  BandwidthServer& port() { return port_; }
  void period_state(PeriodState& s) const { s.time(port_.free_at()); }
  const core::StatGroup& stats() const { return stats_; }

 private:
  DramConfig cfg_;
  uint64_t read_bytes_ = 0, write_bytes_ = 0;
  BandwidthServer port_;  ///< reads and writes share the bandwidth
  std::array<uint64_t, kTrafficKinds> bytes_{};
  core::StatGroup stats_{"dram"};
};

struct SramModel : sc_core::sc_module, SramIf, EdgeRequests {
  explicit SramModel(sc_core::sc_module_name n, const SramConfig& cfg);
  Grant read(double now, double bytes, double not_before = 0) override;
  Grant write(double now, double bytes) override;
  /// Occupancy bookkeeping (bytes held), for the peak-occupancy counter.
  void hold(int64_t delta_bytes) override;

  const SramConfig& config() const { return cfg_; }
  uint64_t bytes_read() const { return read_bytes_; }
  uint64_t bytes_written() const { return write_bytes_; }
  uint64_t peak_occupancy_bytes() const { return peak_; }
  int64_t held_bytes() const { return held_; }
  double busy_cycles() const;
  double latency() const override { return cfg_.latency_cycles; }
  BandwidthServer& read_port() { return read_port_; }
  /// The write port (the read port when one port serves both).
  BandwidthServer& write_port() { return shared_ ? read_port_ : write_port_; }
  void period_state(PeriodState& s) const {
    s.time(read_port_.free_at());
    s.time(write_port_.free_at());
    s.value(static_cast<double>(held_));
  }
  const core::StatGroup& stats() const { return stats_; }

 private:
  SramConfig cfg_;
  // One port per bank: reads and writes share it; two: each has its own.
  BandwidthServer read_port_, write_port_;
  bool shared_;
  uint64_t read_bytes_ = 0, write_bytes_ = 0;
  int64_t held_ = 0;
  uint64_t peak_ = 0;
  core::StatGroup stats_{"sram"};
};

}  // namespace normsim::asic
