// What a clocked run did, edge by edge (asic.timing: cycle): for each of
// the units' acts -- a memory request of a kind, a request done, a token
// handed into a channel or taken from it -- the edge of every one, in
// order. `normsim run --rtl-full` fills one log from the SystemC model and
// one from the verilated unit and compares them act by act (rtl_unit.hpp),
// so a difference is named by what happened, its row and its two edges.
//
// Stream names: "dram.<traffic kind>" and "dram.done" (a request's last
// byte), "sram.read", "sram.write", "sram.done", and "<channel>.write" /
// "<channel>.read" for the netlist's FIFOs (netlist.cpp). A memory
// request's stream also logs its bytes, summed by edge.
#pragma once

#include <systemc.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/asic/sim_time.hpp"

namespace normsim::asic {

class EdgeLog {
 public:
  /// `n` acts of `stream` at `edge`.
  void add(std::string_view stream, int64_t edge, int64_t n = 1) {
    if (n <= 0) return;
    auto it = streams_.find(stream);
    if (it == streams_.end()) it = streams_.emplace(std::string(stream), std::vector<int64_t>{}).first;
    it->second.insert(it->second.end(), static_cast<size_t>(n), edge);
  }
  /// `bytes` asked for by `stream` at `edge` (a memory request's size).
  void add_bytes(std::string_view stream, int64_t edge, int64_t bytes) {
    if (bytes <= 0) return;
    auto it = bytes_.find(stream);
    if (it == bytes_.end()) it = bytes_.emplace(std::string(stream), std::map<int64_t, int64_t>{}).first;
    it->second[edge] += bytes;
  }
  /// The bytes `stream` asked for, edge by edge (empty for a stream that moved none).
  const std::map<int64_t, int64_t>& bytes(std::string_view stream) const {
    static const std::map<int64_t, int64_t> kNone;
    const auto it = bytes_.find(stream);
    return it == bytes_.end() ? kNone : it->second;
  }
  /// The edges of `stream`'s acts, in order (empty for a stream that never acted).
  const std::vector<int64_t>& edges(std::string_view stream) const {
    static const std::vector<int64_t> kNone;
    const auto it = streams_.find(stream);
    if (it == streams_.end()) return kNone;
    if (!std::is_sorted(it->second.begin(), it->second.end())) std::sort(it->second.begin(), it->second.end());
    return it->second;
  }
  /// The last edge any act happened at (-1: none).
  int64_t last_edge() const {
    int64_t last = -1;
    for (const auto& [name, e] : streams_)
      if (!e.empty()) last = std::max(last, *std::max_element(e.begin(), e.end()));
    return last;
  }

 private:
  // Requests' ends are logged as they are granted, out of order: sorted when read.
  mutable std::map<std::string, std::vector<int64_t>, std::less<>> streams_;
  std::map<std::string, std::map<int64_t, int64_t>, std::less<>> bytes_;
};

/// A process that acts at every edge after every clocked unit has
/// (asic.timing: cycle), until `act` returns false: how a run's channels
/// are watched edge by edge.
struct AfterUnits : sc_core::sc_module, CycleSlot {
  SC_HAS_PROCESS(AfterUnits);
  /// One past every unit's slot in unit_registry's cycle order.
  static constexpr int kSlot = 16;
  std::function<bool()> act;
  AfterUnits(sc_core::sc_module_name n, std::function<bool()> f) : sc_module(n), act(std::move(f)) {
    set_cycle_slot(kSlot);
    SC_METHOD(step);
  }
  void step() {
    if (await_slot()) return;
    if (act()) trigger_at(now_cycles() + 1);
  }
};

}  // namespace normsim::asic
