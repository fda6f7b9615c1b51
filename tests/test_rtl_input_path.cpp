// The input path in RTL (rtl_models/unit/input_path.v, on the testbench's
// memory port) against the SystemC unit (sim/asic/input_path_unit.cpp)
// clocked (asic.timing: cycle), edge for edge: random geometries, ports,
// windows, row buffers and surroundings -- the normalise unit handing row
// buffers back, the lanes taking transactions -- driven by the same rules
// on both. At every edge the transactions issued, the transactions handed
// to the lanes, the row buffers taken and the port's completions must be
// equal. The build whose window check lets one transaction too many
// through (NORMSIM_MUTATE_WINDOW) must disagree.
#include <gtest/gtest.h>
#include <systemc.h>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include RTL_TOP_HEADER
#include "sim/asic/bandwidth_server.hpp"
#include "sim/asic/cycle_signal.hpp"
#include "sim/asic/handshake_fifo.hpp"
#include "sim/asic/input_path_unit.hpp"
#include "sim/asic/memory_models.hpp"
#include "sim/asic/port_signal.hpp"
#include "sim/asic/sim_time.hpp"
#include "sim/asic/unit_registry.hpp"
#include "tests/rtl/clocked_bench.hpp"

int sc_main(int, char**) { return 0; }  // libsystemc wants one; gtest's main runs the tests

namespace {
using namespace normsim;
using namespace normsim::asic;

constexpr int kFifoDepth = 32;  // the FIFO to the lanes (netlist.cpp: input_to_lanes)

struct Design {
  uint32_t rate_num, rate_den, latency;  // the DRAM port: bytes a cycle, cycles to the first byte
  int64_t rows, hidden, chunk_elems;
  int in_bytes, residual_bytes;
  uint64_t window_bytes;
  int row_buffers;
  uint64_t seed;  // the surroundings' choices
  std::string label() const {
    return std::to_string(rows) + " x " + std::to_string(hidden) + " in " + std::to_string(chunk_elems) +
           "-element transactions, " + std::to_string(in_bytes) + " B" + (residual_bytes ? " + r" : "") + ", port " +
           std::to_string(rate_num) + "/" + std::to_string(rate_den) + " B/cycle latency " + std::to_string(latency) +
           ", window " + std::to_string(window_bytes) + " B, " + std::to_string(row_buffers) + " row buffers";
  }
  int chunks() const { return static_cast<int>((hidden + chunk_elems - 1) / chunk_elems); }
  int64_t chunk_size(int k) const { return std::min(hidden, (k + 1) * chunk_elems) - k * chunk_elems; }
};

/// What the unit did at one edge.
struct Edge {
  int issued = 0, tokens = 0, taken = 0, done = 0;
  bool operator==(const Edge&) const = default;
};

/// The surroundings, the same rules on both sides: the lanes take up to two
/// transactions an edge (how many, a hash of the edge), and a row's buffer
/// comes back a row-dependent 1..40 cycles after the lanes took its last
/// transaction. They see the unit only through the transactions it hands over.
struct Surroundings {
  const Design& d;
  std::map<int64_t, int> returns;  // edge -> buffers handed back at it
  int64_t consumed = 0;            // transactions the lanes took
  explicit Surroundings(const Design& design) : d(design) {}
  static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
  }
  int take_at(int64_t edge) const { return static_cast<int>(mix(d.seed ^ static_cast<uint64_t>(edge)) % 3); }
  int returned_at(int64_t edge) const {
    const auto it = returns.find(edge);
    return it == returns.end() ? 0 : it->second;
  }
  /// The lanes take `n` transactions at `edge`.
  void took(int64_t edge, int n) {
    for (int i = 0; i < n; ++i, ++consumed)
      if ((consumed + 1) % d.chunks() == 0) {
        const int64_t row = consumed / d.chunks();
        ++returns[edge + 1 + static_cast<int64_t>(mix(d.seed * 31 + static_cast<uint64_t>(row)) % 40)];
      }
  }
  bool finished(int64_t edge) const { return consumed == d.rows * d.chunks() && returns.upper_bound(edge) == returns.end(); }
};

/// The model's DRAM as the unit sees it: one port, each request recorded.
struct RecordingDram : sc_core::sc_module, DramIf {
  BandwidthServer port;
  std::map<int64_t, int> transactions;  // edge -> x reads issued at it
  std::map<int64_t, int> done;          // edge -> requests done by it (first time)
  RecordingDram(sc_core::sc_module_name n, const Design& d)
      : sc_module(n), port(core::BytesPerCycle(static_cast<double>(d.rate_num) / d.rate_den), core::Cycles(d.latency)) {}
  Grant read(double now, double bytes, Traffic kind) override {
    const Grant g = port.issue(now, bytes);
    if (kind == Traffic::input) ++transactions[static_cast<int64_t>(now)];
    ++done[static_cast<int64_t>(edge_of(g.done))];
    return g;
  }
  Grant write(double now, double bytes, Traffic) override { return port.issue(now, bytes); }
  double latency() const override { return port.latency(); }
};

/// A unit of the surroundings, acting in the slot of the unit it stands for.
struct Around : sc_core::sc_module, CycleSlot {
  SC_HAS_PROCESS(Around);
  std::function<bool()> act;  // false: nothing more to do
  Around(sc_core::sc_module_name n, std::string_view stands_for, std::function<bool()> f) : sc_module(n), act(std::move(f)) {
    set_cycle_slot(asic::cycle_slot(stands_for));
    SC_METHOD(step);
  }
  void step() {
    if (await_slot()) return;
    if (act()) trigger_at(now_cycles() + 1);
  }
};

RunGeometry geometry_of(const Design& d) {
  RunGeometry g;
  g.rows = d.rows;
  g.hidden = d.hidden;
  g.chunk_elems = d.chunk_elems;
  g.chunks = d.chunks();
  g.in_bytes = g.out_bytes = d.in_bytes;
  g.residual_bytes = d.residual_bytes;
  g.fusion = d.residual_bytes ? Fusion::fused : Fusion::none;
  g.stored_elems = d.hidden;
  g.param_bytes = 2 * d.hidden * 4;
  return g;
}

struct Rtl : rtl_test::ClockedBench {
  RTL_TOP dut{"input_path"};
#define NORMSIM_PORT(p) decltype(asic::bind_signal(dut.p))& p = asic::bind_signal(dut.p);
  NORMSIM_PORT(rst) NORMSIM_PORT(rate_num) NORMSIM_PORT(rate_den) NORMSIM_PORT(latency) NORMSIM_PORT(rows)
  NORMSIM_PORT(chunks) NORMSIM_PORT(x_bytes) NORMSIM_PORT(x_last_bytes) NORMSIM_PORT(r_bytes) NORMSIM_PORT(r_last_bytes)
  NORMSIM_PORT(param_bytes) NORMSIM_PORT(window_bytes) NORMSIM_PORT(row_buffers) NORMSIM_PORT(buffers_returned)
  NORMSIM_PORT(fifo_free) NORMSIM_PORT(issued) NORMSIM_PORT(tokens) NORMSIM_PORT(buffers_taken) NORMSIM_PORT(overflow)
  NORMSIM_PORT(port_full) NORMSIM_PORT(port_done)
#undef NORMSIM_PORT
  Rtl() { dut.clk(clk); }
};

/// The model, edge by edge: the unit and its surroundings, elaborated with
/// every other design's before the kernel runs them all at once.
struct ModelRun {
  const Design& d;
  const int64_t max_edges;
  const RunGeometry g;
  const RowLimit limit;
  const std::string tag;
  RecordingDram dram;
  SramModel sram;
  InputPathUnit unit;
  HandshakeFifo<RowSlot*> free_slots;
  HandshakeFifo<ChunkToken> to_lanes;
  CycleSignal params, adder;
  std::vector<RowSlot> slots;
  std::deque<RowSlot*> held;  // buffers the lanes finished, in the order they come back
  Surroundings env;
  std::vector<Edge> edges;
  int free_after_returns, occupancy_after_reads = 0;
  Around normalize, lanes;

  static SramConfig big_sram() {
    SramConfig c;
    c.capacity_bytes = 1ULL << 40;
    return c;
  }
  ModelRun(const Design& design, int64_t edges_max)
      : d(design),
        max_edges(edges_max),
        g(geometry_of(design)),
        limit(design.rows),
        tag(std::to_string(design.seed)),
        dram(("dram_" + tag).c_str(), design),
        sram(("sram_" + tag).c_str(), big_sram()),
        unit(("input_path_" + tag).c_str(), g, limit, static_cast<double>(design.window_bytes), design.row_buffers, nullptr),
        free_slots(("free_" + tag).c_str(), design.row_buffers),
        to_lanes(("to_lanes_" + tag).c_str(), kFifoDepth),
        params(("params_" + tag).c_str()),
        adder(("adder_" + tag).c_str()),
        slots(static_cast<size_t>(design.row_buffers)),
        env(design),
        edges(static_cast<size_t>(edges_max)),
        free_after_returns(design.row_buffers),
        normalize(("normalize_" + tag).c_str(), "normalize", [this] { return hand_back(); }),
        lanes(("lanes_" + tag).c_str(), "welford_lanes", [this] { return take(); }) {
    unit.set_cycle_slot(cycle_slot("input_path"));
    unit.dram(dram);
    unit.sram(sram);
    unit.free_slots(free_slots);
    unit.to_lanes(to_lanes);
    unit.params_on_chip(params);
    unit.adder_done(adder);
    for (RowSlot& s : slots) free_slots.preload(&s);
  }
  // The normalise unit's slot: the buffers due at this edge come back.
  bool hand_back() {
    const auto e = static_cast<int64_t>(now_cycles());
    for (int i = 0; i < env.returned_at(e); ++i) {
      free_slots.nb_write(held.front());
      held.pop_front();
    }
    free_after_returns = free_slots.num_available();
    return !env.finished(e) && e + 1 < max_edges;
  }
  // The lanes' slot, after the unit's: what it did at this edge, then the lanes take their transactions.
  bool take() {
    const auto e = static_cast<int64_t>(now_cycles());
    Edge& x = edges[static_cast<size_t>(e)];
    x.tokens = to_lanes.num_available() - occupancy_after_reads;
    x.taken = free_after_returns - free_slots.num_available();
    const int n = std::min(env.take_at(e), to_lanes.num_available());
    for (int i = 0; i < n; ++i) {
      ChunkToken t;
      to_lanes.nb_read(t);
      if (t.chunk + 1 == t.chunks) held.push_back(t.slot);
    }
    env.took(e, n);
    occupancy_after_reads = to_lanes.num_available();
    return !env.finished(e) && e + 1 < max_edges;
  }
  /// After the kernel ran: the port's side of each edge.
  std::vector<Edge> result() {
    for (const auto& [e, n] : dram.transactions)
      if (e < max_edges) edges[static_cast<size_t>(e)].issued = n;
    for (const auto& [e, n] : dram.done)
      if (e < max_edges) edges[static_cast<size_t>(e)].done = n;
    return edges;
  }
};

/// The RTL, edge by edge, in the same surroundings.
std::vector<Edge> run_rtl(Rtl& b, const Design& d, int64_t max_edges, int64_t until, bool& overflow) {
  const int chunks = d.chunks();
  const int64_t last = d.chunk_size(chunks - 1);
  b.rate_num.write(d.rate_num);
  b.rate_den.write(d.rate_den);
  b.latency.write(d.latency);
  b.rows.write(static_cast<uint32_t>(d.rows));
  b.chunks.write(static_cast<uint32_t>(chunks));
  b.x_bytes.write(static_cast<uint32_t>(d.chunk_elems * d.in_bytes));
  b.x_last_bytes.write(static_cast<uint32_t>(last * d.in_bytes));
  b.r_bytes.write(static_cast<uint32_t>(d.chunk_elems * d.residual_bytes));
  b.r_last_bytes.write(static_cast<uint32_t>(last * d.residual_bytes));
  b.param_bytes.write(static_cast<uint32_t>(2 * d.hidden * 4));
  b.window_bytes.write(static_cast<uint32_t>(d.window_bytes));
  b.row_buffers.write(static_cast<uint32_t>(d.row_buffers));
  b.buffers_returned.write(0);
  b.fifo_free.write(kFifoDepth);
  b.rst.write(true);
  b.cycle();
  b.rst.write(false);
  Surroundings env(d);
  std::vector<Edge> edges(static_cast<size_t>(max_edges));
  int occupancy = 0;
  overflow = false;
  for (int64_t e = 0; e < max_edges; ++e) {
    b.buffers_returned.write(static_cast<uint32_t>(env.returned_at(e)));
    b.fifo_free.write(static_cast<uint32_t>(kFifoDepth - occupancy));
    b.settle();
    Edge& x = edges[static_cast<size_t>(e)];
    x.issued = static_cast<int>(b.issued.read());
    x.tokens = static_cast<int>(b.tokens.read());
    x.taken = static_cast<int>(b.buffers_taken.read());
    x.done = static_cast<int>(b.port_done.read());
    overflow = overflow || b.overflow.read();
    EXPECT_FALSE(b.port_full.read()) << d.label() << ": the testbench's port had no room at edge " << e;
    occupancy += x.tokens;
    const int n = std::min(env.take_at(e), occupancy);
    occupancy -= n;
    env.took(e, n);
    if (env.finished(e) && e >= until) break;  // and every request the model made is done
    b.cycle();
  }
  return edges;
}

std::vector<Design> designs() {
  std::mt19937_64 rng(20261207);
  const std::pair<uint32_t, uint32_t> rates[] = {{64, 1}, {10654, 5}, {7, 2}, {65, 64}, {128, 1}, {1000003, 1000}, {3, 1}};
  std::vector<Design> out;
  for (int i = 0; i < 24; ++i) {
    Design d;
    const auto [num, den] = rates[rng() % std::size(rates)];
    d.rate_num = num;
    d.rate_den = den;
    d.latency = 1 + static_cast<uint32_t>(rng() % 300);
    d.in_bytes = rng() % 2 ? 2 : 4;
    d.residual_bytes = rng() % 3 == 0 ? d.in_bytes : 0;
    d.chunk_elems = 16 << (rng() % 5);                          // 16..256 elements
    d.hidden = d.chunk_elems * (1 + static_cast<int64_t>(rng() % 8)) - static_cast<int64_t>(rng() % 2) * 8;
    d.rows = 8 + static_cast<int64_t>(rng() % 300);
    const uint64_t transaction = static_cast<uint64_t>(d.chunk_elems) * (d.in_bytes + d.residual_bytes);
    // Whole and partial transactions; one design in six a window under one (each read then goes alone).
    d.window_bytes = i % 6 == 5 ? 1 + rng() % transaction : transaction * (1 + rng() % 12) + rng() % transaction;
    d.row_buffers = 1 + static_cast<int>(rng() % 6);
    d.seed = rng();
    out.push_back(d);
  }
  return out;
}

TEST(RtlInputPath, EveryEdgeAsTheClockedModel) {
  set_cycle_resolution(true);
  g_whole_cycles = true;
  const std::vector<Design> all = designs();
  // Every model and the RTL elaborated first (the kernel takes no new
  // modules once it runs); the models run side by side, then the RTL runs
  // each design in turn.
  constexpr int64_t kEdges = 60000;
  std::vector<std::unique_ptr<ModelRun>> runs;
  for (const Design& d : all) runs.push_back(std::make_unique<ModelRun>(d, kEdges));
  Rtl b;
  sc_core::sc_start(sc_core::sc_time::from_value(static_cast<sc_core::sc_time::value_type>(kEdges * g_ticks_per_cycle)));
  std::vector<std::vector<Edge>> model;
  for (auto& r : runs) model.push_back(r->result());
  int64_t compared = 0, differ = 0, active = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const Design& d = all[i];
    bool overflow = false;
    int64_t last = 0;  // the model's last edge with anything done
    for (int64_t e = 0; e < kEdges; ++e)
      if (!(model[i][static_cast<size_t>(e)] == Edge{})) last = e;
    const std::vector<Edge> rtl = run_rtl(b, d, kEdges, last, overflow);
    EXPECT_FALSE(overflow) << d.label() << ": more transactions at an edge than the RTL's ISSUE";
    int reported = 0;
    for (int64_t e = 0; e < kEdges; ++e) {
      const Edge& m = model[i][static_cast<size_t>(e)];
      const Edge& r = rtl[static_cast<size_t>(e)];
      active += m.issued + m.tokens + m.taken > 0;
      ++compared;
      if (m == r) continue;
      ++differ;
      if (++reported <= 3) {
#ifndef RTL_EXPECT_MISMATCH
        ADD_FAILURE() << d.label() << ": edge " << e << ": model issued " << m.issued << ", handed over " << m.tokens
                      << ", took " << m.taken << " buffers, port done " << m.done << "; RTL " << r.issued << ", " << r.tokens
                      << ", " << r.taken << ", " << r.done;
#endif
      }
    }
  }
  g_whole_cycles = false;
  std::printf("%zu designs, %lld edges compared (%lld with the unit acting), %lld differ\n", all.size(),
              static_cast<long long>(compared), static_cast<long long>(active), static_cast<long long>(differ));
  EXPECT_GT(active, 5000) << "the unit hardly acted: the test shows little";
#ifdef RTL_EXPECT_MISMATCH
  EXPECT_GT(differ, 0) << "the mutated window agreed with the model: the test cannot fail";
#else
  EXPECT_EQ(differ, 0);
#endif
}

}  // namespace
