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
#include "tests/rtl/unit_bench.hpp"

int sc_main(int, char**) { return 0; }  // libsystemc wants one; gtest's main runs the tests

namespace {
using namespace normsim;
using namespace normsim::asic;
using rtl_test::Around;
using rtl_test::RecordingMemory;

constexpr int kFifoDepth = 32;  // the FIFO to the lanes (netlist.cpp: input_to_lanes)

struct Design : rtl_test::StreamDesign {
  int residual_bytes = 0;  // r beside x (a fused residual), or none
  std::string label() const { return StreamDesign::label() + (residual_bytes ? ", r beside x" : ""); }
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
  int take_at(int64_t edge) const { return static_cast<int>(rtl_test::mix(d.seed ^ static_cast<uint64_t>(edge)) % 3); }
  int returned_at(int64_t edge) const {
    const auto it = returns.find(edge);
    return it == returns.end() ? 0 : it->second;
  }
  /// The lanes take `n` transactions at `edge`.
  void took(int64_t edge, int n) {
    for (int i = 0; i < n; ++i, ++consumed)
      if ((consumed + 1) % d.chunks() == 0) {
        const int64_t row = consumed / d.chunks();
        ++returns[edge + 1 + static_cast<int64_t>(rtl_test::mix(d.seed * 31 + static_cast<uint64_t>(row)) % 40)];
      }
  }
  bool finished(int64_t edge) const { return consumed == d.rows * d.chunks() && returns.upper_bound(edge) == returns.end(); }
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
  RecordingMemory dram;
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
        dram(("dram_" + tag).c_str(), static_cast<double>(design.rate_num) / design.rate_den, design.latency, Traffic::input),
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
    rtl_test::fill(edges, dram.issued, &Edge::issued);
    rtl_test::fill(edges, dram.done, &Edge::done);
    return edges;
  }
};

/// The RTL, edge by edge, in the same surroundings.
std::vector<Edge> run_rtl(Rtl& b, const Design& d, int64_t max_edges, int64_t until, bool& overflow) {
  const int chunks = d.chunks();
  const int64_t last = d.chunk_size(chunks - 1);
  b.x_bytes.write(static_cast<uint32_t>(d.chunk_elems * d.in_bytes));
  b.x_last_bytes.write(static_cast<uint32_t>(last * d.in_bytes));
  b.r_bytes.write(static_cast<uint32_t>(d.chunk_elems * d.residual_bytes));
  b.r_last_bytes.write(static_cast<uint32_t>(last * d.residual_bytes));
  b.param_bytes.write(static_cast<uint32_t>(2 * d.hidden * 4));
  b.window_bytes.write(static_cast<uint32_t>(d.window_bytes));
  b.row_buffers.write(static_cast<uint32_t>(d.row_buffers));
  b.buffers_returned.write(0);
  b.fifo_free.write(kFifoDepth);
  rtl_test::start_bench(b, d);
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
  std::vector<Design> out;
  for (int i = 0; i < 24; ++i) {
    Design d;
    d.in_bytes = rng() % 2 ? 2 : 4;
    d.residual_bytes = rng() % 3 == 0 ? d.in_bytes : 0;
    d.randomise(rng, i, 60000, d.residual_bytes);
    out.push_back(d);
  }
  return out;
}

TEST(RtlInputPath, EveryEdgeAsTheClockedModel) {
  const std::vector<Design> all = designs();
  constexpr int64_t kEdges = 60000;
  const rtl_test::EdgeComparison cmp = rtl_test::compare_clocked<ModelRun, Rtl>(
      all, kEdges, run_rtl,
      [&](const Design& d, const std::vector<Edge>& model) {
        int64_t handed = 0;
        for (const Edge& m : model) handed += m.tokens;
        EXPECT_EQ(handed, d.rows * d.chunks()) << d.label() << ": the model did not finish in " << kEdges << " edges";
      },
      [](const Edge& m) { return m.issued + m.tokens + m.taken > 0; },
      [](const Edge& m, const Edge& r) {
        using rtl_test::both;
        return "issued " + both(m.issued, r.issued) + ", handed over " + both(m.tokens, r.tokens) + ", buffers taken " +
               both(m.taken, r.taken) + ", port done " + both(m.done, r.done);
      });
  cmp.finish(all.size(), "a window that leaves out the new transaction");
}

}  // namespace
