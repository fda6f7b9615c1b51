// A unit's counters, registered once by name, unit and meaning (MatchLib's
// and gem5's statistics style): the unit owns the values and updates them
// as it runs; reports read every unit's counters through its StatGroup and
// emit them generically, by their names.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace normsim::core {

struct Stat {
  std::string name;         ///< "busy_cycles", "stall_cycles.dram_latency", "bytes.input"
  std::string unit;         ///< "cycles", "bytes"
  std::string description;
  double value = 0;
  bool integer = false;     ///< a count (bytes, rows): reported as an integer
};

/// The counters of one unit at the end of a run.
struct StatSet {
  std::string unit;  ///< the unit's name: "welford_lanes", "normalize", "dram", "sram"
  std::vector<Stat> stats;
  /// The value of `name`; logic_error when the unit has no such counter.
  double value(const std::string& name) const;
  bool has(const std::string& name) const;
};

class StatGroup {
 public:
  explicit StatGroup(std::string unit) : unit_(std::move(unit)) {}
  void add(std::string name, std::string unit, std::string description, const double* value);
  void add(std::string name, std::string unit, std::string description, const uint64_t* value);
  /// A counter the unit derives when asked (a port's busy time).
  void add(std::string name, std::string unit, std::string description, std::function<double()> value);
  StatSet snapshot() const;
  /// The values alone, appended in snapshot()'s order (cheap: no names copied).
  void append_values(std::vector<double>& out) const;

 private:
  struct Entry {
    Stat stat;
    std::function<double()> read;
  };
  std::string unit_;
  std::vector<Entry> entries_;
};

}  // namespace normsim::core
