// What the whole unit's co-simulation benches share (tests/test_rtl_*.cpp):
// the model's memories as the unit sees them, each request recorded by
// edge; a unit of the surroundings that acts in the slot of the unit it
// stands for; and the hash the surroundings make their choices from, a
// function of the edge alone, so that both sides see the same choices.
#pragma once

#include <systemc.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <tuple>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "sim/asic/bandwidth_server.hpp"
#include "sim/asic/edge_log.hpp"
#include "sim/asic/memory_models.hpp"
#include "sim/asic/sim_time.hpp"
#include "sim/asic/unit_registry.hpp"

namespace normsim::rtl_test {

inline uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

/// What every bench's design has: the DRAM port, the rows and their
/// transactions, the input path's window and the row buffers, and the seed
/// the surroundings' choices come from.
struct StreamDesign {
  uint32_t rate_num = 64, rate_den = 1, latency = 1;  // bytes a cycle, cycles to the first byte
  int64_t rows = 1, hidden = 1, chunk_elems = 1;
  int in_bytes = 4;
  uint64_t window_bytes = 0;
  int row_buffers = 1;
  uint64_t seed = 0;
  int chunks() const { return static_cast<int>((hidden + chunk_elems - 1) / chunk_elems); }
  int64_t chunk_size(int k) const { return std::min(hidden, (k + 1) * chunk_elems) - k * chunk_elems; }
  int64_t last_elems() const { return chunk_size(chunks() - 1); }
  double bytes_per_cycle() const { return static_cast<double>(rate_num) / rate_den; }
  std::string label() const {
    return std::to_string(rows) + " x " + std::to_string(hidden) + " in " + std::to_string(chunk_elems) +
           "-element transactions, " + std::to_string(in_bytes) + " B, DRAM " + std::to_string(rate_num) + "/" +
           std::to_string(rate_den) + " B/cycle latency " + std::to_string(latency) + ", window " +
           std::to_string(window_bytes) + " B, " + std::to_string(row_buffers) + " row buffers";
  }
  /// Random: ports whole, fractional and awkward, latencies of 1 to 300
  /// cycles, 1 to 8 transactions of 16 to 256 elements a row (the last one
  /// short in half the designs), windows of whole and partial transactions
  /// (design `index` % 6 == 5: under one, so each read goes alone), 1 to 6
  /// row buffers, and as many rows (up to 307) as finish within `edges`.
  /// A transaction moves `extra_elem_bytes` more an element than x's.
  void randomise(std::mt19937_64& rng, int index, int64_t edges, int extra_elem_bytes = 0);
};

/// At most `rows` rows, as many as finish well within `edges`: a
/// transaction takes its bytes at the port's rate, or its latency over the
/// transactions the window holds, whichever is longer; a row takes its
/// transactions and a share of the surroundings' delays (up to 60 cycles).
inline int64_t rows_within(int64_t edges, int64_t rows, int chunks, uint64_t transaction_bytes, uint64_t window_bytes,
                           double bytes_per_cycle, double latency, int row_buffers) {
  const double transfer = static_cast<double>(transaction_bytes) / bytes_per_cycle;
  const double in_window = std::max(1.0, static_cast<double>(window_bytes) / static_cast<double>(transaction_bytes));
  const double per_row = chunks * std::max(transfer, (latency + transfer) / in_window) + (latency + 60.0) / row_buffers;
  return std::clamp<int64_t>(static_cast<int64_t>(0.5 * static_cast<double>(edges) / per_row), 4, rows);
}

inline void StreamDesign::randomise(std::mt19937_64& rng, int index, int64_t edges, int extra_elem_bytes) {
  const std::pair<uint32_t, uint32_t> rates[] = {{64, 1}, {10654, 5}, {7, 2}, {65, 64}, {128, 1}, {1000003, 1000}, {3, 1}};
  std::tie(rate_num, rate_den) = rates[rng() % std::size(rates)];
  latency = 1 + static_cast<uint32_t>(rng() % 300);
  chunk_elems = 16 << (rng() % 5);
  hidden = chunk_elems * (1 + static_cast<int64_t>(rng() % 8)) - static_cast<int64_t>(rng() % 2) * 8;
  const uint64_t transaction = static_cast<uint64_t>(chunk_elems) * static_cast<uint64_t>(in_bytes + extra_elem_bytes);
  window_bytes = index % 6 == 5 ? 1 + rng() % transaction : transaction * (1 + rng() % 12) + rng() % transaction;
  row_buffers = 1 + static_cast<int>(rng() % 6);
  rows = rows_within(edges, 8 + static_cast<int64_t>(rng() % 300), chunks(), transaction, window_bytes, bytes_per_cycle(),
                     latency, row_buffers);
  seed = rng();
}

/// The last edge at which a unit did anything.
template <class Edge>
int64_t last_active(const std::vector<Edge>& edges) {
  int64_t last = 0;
  for (size_t e = 0; e < edges.size(); ++e)
    if (!(edges[e] == Edge{})) last = static_cast<int64_t>(e);
  return last;
}

/// Runs every model elaborated so far side by side for `edges` cycles.
inline void run_models(int64_t edges) {
  sc_core::sc_start(sc_core::sc_time::from_value(static_cast<sc_core::sc_time::value_type>(edges * asic::kTicksPerCycle)));
}

/// The edge-for-edge comparison of a bench: every design's edges, model
/// and RTL; the first few differences of each design reported (a failure,
/// except in a mutated build, which must have some).
struct EdgeComparison {
  int64_t compared = 0, differ = 0, active = 0;
  template <class Edge, class Acting, class Describe>
  void add(const std::string& label, const std::vector<Edge>& model, const std::vector<Edge>& rtl, Acting acting,
           Describe describe) {
    int reported = 0;
    for (size_t e = 0; e < model.size(); ++e) {
      active += acting(model[e]);
      ++compared;
      if (model[e] == rtl[e]) continue;
      ++differ;
      if (++reported <= 3) {
#ifndef RTL_EXPECT_MISMATCH
        ADD_FAILURE() << label << ": edge " << e << ": model / RTL: " << describe(model[e], rtl[e]);
#else
        (void)label;
        (void)describe;
#endif
      }
    }
  }
  /// The verdict: enough edges with the unit acting, and none differing
  /// (some, in a mutated build, whose `mutation` the test must see).
  void finish(size_t designs, const char* mutation) const {
    std::printf("%zu designs, %lld edges compared (%lld with the unit acting), %lld differ\n", designs,
                static_cast<long long>(compared), static_cast<long long>(active), static_cast<long long>(differ));
    EXPECT_GT(active, 5000) << "the unit hardly acted: the test shows little";
#ifdef RTL_EXPECT_MISMATCH
    EXPECT_GT(differ, 0) << "the build with " << mutation << " agreed with the model: the test cannot fail";
#else
    (void)mutation;
    EXPECT_EQ(differ, 0);
#endif
  }
};

/// "model / RTL", for a difference's line.
inline std::string both(int64_t model, int64_t rtl) { return std::to_string(model) + " / " + std::to_string(rtl); }

/// Writes a design's DRAM port and row shape into a bench whose top takes
/// them, then resets it: the inputs every bench shares.
template <class Bench, class Design>
void start_bench(Bench& b, const Design& d) {
  b.rate_num.write(d.rate_num);
  b.rate_den.write(d.rate_den);
  b.latency.write(d.latency);
  b.rows.write(static_cast<uint32_t>(d.rows));
  b.chunks.write(static_cast<uint32_t>(d.chunks()));
  b.rst.write(true);
  b.cycle();
  b.rst.write(false);
}

/// A bench's test: every design's model (`ModelRun(design, edges)`, its
/// edges from `result()`) and the RTL `Bench` elaborated, the models run
/// side by side, then for each design `check(design, model)` (did it
/// finish?), the RTL run by `run_rtl(bench, design, edges, until,
/// overflow)` to the model's last edge, and the two compared edge for edge.
template <class ModelRun, class Bench, class Design, class RunRtl, class Check, class Acting, class Describe>
EdgeComparison compare_clocked(const std::vector<Design>& all, int64_t edges, RunRtl run_rtl, Check check, Acting acting,
                               Describe describe) {
  asic::set_cycle_resolution();
  asic::g_whole_cycles = true;
  std::vector<std::unique_ptr<ModelRun>> runs;
  for (const Design& d : all) runs.push_back(std::make_unique<ModelRun>(d, edges));
  Bench b;
  run_models(edges);
  EdgeComparison cmp;
  for (size_t i = 0; i < all.size(); ++i) {
    const auto model = runs[i]->result();
    check(all[i], model);
    bool overflow = false;
    const auto rtl = run_rtl(b, all[i], edges, last_active(model) + 1, overflow);
    EXPECT_FALSE(overflow) << all[i].label() << ": more at an edge than the RTL does";
    cmp.add(all[i].label(), model, rtl, acting, describe);
  }
  asic::g_whole_cycles = false;
  return cmp;
}

/// A memory of the model on one port, each request recorded: the requests
/// of `counted` kind issued at each edge, and the requests done by each
/// edge (first time).
struct RecordingMemory : sc_core::sc_module, asic::DramIf, asic::SramIf {
  asic::BandwidthServer port;
  asic::Traffic counted;
  std::map<int64_t, int> issued, done;
  std::map<std::pair<asic::Traffic, int64_t>, int> by_kind;  // (what it carries, edge) -> DRAM requests
  std::map<std::pair<asic::Traffic, int64_t>, int64_t> bytes_by_kind;  // ... -> their bytes
  std::map<int64_t, int64_t> read_bytes, write_bytes;  // the SRAM's side: bytes by edge
  /// An SRAM of two ports a bank: its writes on a port of their own (SramModel's).
  std::unique_ptr<asic::BandwidthServer> write_port;
  RecordingMemory(sc_core::sc_module_name n, double bytes_per_cycle, double latency, asic::Traffic kind, bool two_ports = false)
      : sc_module(n), port(core::BytesPerCycle(bytes_per_cycle), core::Cycles(latency)), counted(kind) {
    if (two_ports) write_port = std::make_unique<asic::BandwidthServer>(core::BytesPerCycle(bytes_per_cycle), core::Cycles(latency));
  }
  asic::Grant request(double now, double bytes, double not_before, bool counts, asic::BandwidthServer* on = nullptr) {
    const asic::Grant g = (on ? *on : port).issue(now, bytes, not_before);
    if (counts) ++issued[static_cast<int64_t>(now)];
    ++done[static_cast<int64_t>(asic::edge_of(g.done))];
    return g;
  }
  // The DRAM's side.
  asic::Grant read(double now, double bytes, asic::Traffic kind) override {
    ++by_kind[{kind, static_cast<int64_t>(now)}];
    bytes_by_kind[{kind, static_cast<int64_t>(now)}] += static_cast<int64_t>(bytes);
    return request(now, bytes, 0, kind == counted);
  }
  asic::Grant write(double now, double bytes, asic::Traffic kind) override {
    ++by_kind[{kind, static_cast<int64_t>(now)}];
    bytes_by_kind[{kind, static_cast<int64_t>(now)}] += static_cast<int64_t>(bytes);
    return request(now, bytes, 0, kind == counted);
  }
  /// DRAM requests of `kind` at `edge`.
  int of(asic::Traffic kind, int64_t edge) const {
    const auto it = by_kind.find({kind, edge});
    return it == by_kind.end() ? 0 : it->second;
  }
  // The SRAM's side: every write counted, and the reads apart.
  std::map<int64_t, int> reads;
  asic::Grant read(double now, double bytes, double not_before) override {
    ++reads[static_cast<int64_t>(now)];
    read_bytes[static_cast<int64_t>(now)] += static_cast<int64_t>(bytes);
    return request(now, bytes, not_before, false);
  }
  asic::Grant write(double now, double bytes) override {
    write_bytes[static_cast<int64_t>(now)] += static_cast<int64_t>(bytes);
    return request(now, bytes, 0, true, write_port.get());
  }
  void hold(int64_t) override {}
  double latency() const override { return port.latency(); }
};

/// Each edge's count from `counts` (edge -> count) into its `field`.
template <class Edge>
void fill(std::vector<Edge>& edges, const std::map<int64_t, int>& counts, int Edge::*field) {
  for (const auto& [e, n] : counts)
    if (e < static_cast<int64_t>(edges.size())) edges[static_cast<size_t>(e)].*field = n;
}
/// Each edge's DRAM requests of `kind` into its `field`.
template <class Edge>
void fill(std::vector<Edge>& edges, const RecordingMemory& m, asic::Traffic kind, int Edge::*field) {
  for (const auto& [kind_edge, n] : m.by_kind)
    if (kind_edge.first == kind && kind_edge.second < static_cast<int64_t>(edges.size()))
      edges[static_cast<size_t>(kind_edge.second)].*field = n;
}

/// A unit of the surroundings, acting each edge in the slot of the unit it
/// stands for until `act` says it is done.
struct Around : sc_core::sc_module, asic::CycleSlot {
  SC_HAS_PROCESS(Around);
  std::function<bool()> act;  // false: nothing more to do
  Around(sc_core::sc_module_name n, std::string_view stands_for, std::function<bool()> f)
      : Around(n, asic::cycle_slot(stands_for), std::move(f)) {}
  /// At slot `slot`: one past every unit's (kAfterUnits) to watch what all did.
  Around(sc_core::sc_module_name n, int slot, std::function<bool()> f) : sc_module(n), act(std::move(f)) {
    set_cycle_slot(slot);
    SC_METHOD(step);
  }
  static constexpr int kAfterUnits = asic::AfterUnits::kSlot;
  void step() {
    if (await_slot()) return;
    if (act()) trigger_at(asic::now_cycles() + 1);
  }
};

}  // namespace normsim::rtl_test
