// A pipelined memory port as a FIFO server: a request issued at t sees its
// first byte after `latency` cycles (or when the port finishes the requests
// ahead of it, whichever is later) and then streams at `bytes_per_cycle`.
// Requests are served in issue order; reads and writes that share the port
// share its bandwidth. Pure timing arithmetic, no SystemC: the DRAM and SRAM
// modules own one each and turn grants into waits.
#pragma once

#include <algorithm>
#include <deque>
#include <ostream>
#include "sim/core/units.hpp"

namespace normsim::asic {

struct Grant {
  double issue = 0;       ///< cycle the request was issued
  double first_byte = 0;  ///< cycle its first byte moves
  double done = 0;        ///< cycle its last byte has moved
};
inline std::ostream& operator<<(std::ostream& os, const Grant& g) {
  return os << "grant(issue " << g.issue << ", first " << g.first_byte << ", done " << g.done << ")";
}

class BandwidthServer {
 public:
  BandwidthServer(core::BytesPerCycle bandwidth, core::Cycles latency)
      : bytes_per_cycle_(bandwidth.value()), latency_(latency.value()) {}

  /// Callers issue in non-decreasing `now` (SystemC time); `not_before`
  /// holds a request back until its data exists (e.g. a replay read of a row
  /// still being written).
  Grant issue(double now, double bytes, double not_before = 0) {
    Grant g;
    g.issue = now;
    g.first_byte = std::max({now + latency_, free_at_, not_before});
    const double xfer = bytes / bytes_per_cycle_;
    g.done = g.first_byte + xfer;
    free_at_ = g.done;
    busy_cycles_ += xfer;
    if (log_grants_) recent_.push_back(g);
    return g;
  }

  /// What a waveform shows of the port at cycle `now`: requests issued in
  /// the cycle before it, requests in flight (issued, not done), and whether
  /// a grant is moving data. Needs log_grants(true) before the requests.
  struct Activity {
    int requests = 0, outstanding = 0;
    bool granted = false;
  };
  void log_grants(bool on) { log_grants_ = on; }
  Activity activity(double now) {
    while (!recent_.empty() && recent_.front().done < now - 1) recent_.pop_front();
    Activity a;
    for (const Grant& g : recent_) {
      if (g.issue > now - 1 && g.issue <= now) ++a.requests;
      if (g.issue <= now && now < g.done) ++a.outstanding;
      if (g.first_byte <= now && now < g.done) a.granted = true;
    }
    return a;
  }

  double busy_cycles() const { return busy_cycles_; }
  double free_at() const { return free_at_; }  ///< cycle the port finishes the requests issued so far
  double latency() const { return latency_; }
  double bytes_per_cycle() const { return bytes_per_cycle_; }

  /// Splits a consumer's wait for `g` (from `ready` to g.done) into the part
  /// due to latency not hidden by issuing early enough, and the rest
  /// (bandwidth: queueing behind other requests and the transfer itself).
  static void attribute(const Grant& g, double ready, double latency, double& latency_part, double& bandwidth_part) {
    const double wait = std::max(0.0, g.done - ready);
    latency_part = std::clamp(g.issue + latency - ready, 0.0, wait);
    bandwidth_part = wait - latency_part;
  }

 private:
  double bytes_per_cycle_, latency_;
  double free_at_ = 0, busy_cycles_ = 0;
  bool log_grants_ = false;
  std::deque<Grant> recent_;
};

}  // namespace normsim::asic
