// The re-read stream in RTL (rtl_models/unit/reread_stream.v, on the
// testbench's port) against the SystemC unit (sim/asic/reread_stream.cpp)
// clocked (asic.timing: cycle), edge for edge: random geometries, ports,
// re-read FIFO depths and replay paths (none, part or all of a row kept),
// with the normalise unit taking 0 to 2 transactions an edge from the FIFO
// by the same rule on both sides. At every edge the transactions issued,
// those put into the FIFO (with the edge each one's last byte lands) and
// the port's completions must be equal. The build that re-reads a kept
// element too (NORMSIM_MUTATE_REREAD) must disagree.
#include <gtest/gtest.h>
#include <systemc.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include RTL_TOP_HEADER
#include "sim/asic/handshake_fifo.hpp"
#include "sim/asic/port_signal.hpp"
#include "sim/asic/reread_stream.hpp"
#include "sim/asic/sim_time.hpp"
#include "tests/rtl/clocked_bench.hpp"
#include "tests/rtl/unit_bench.hpp"

int sc_main(int, char**) { return 0; }  // libsystemc wants one; gtest's main runs the tests

namespace {
using namespace normsim;
using namespace normsim::asic;
using rtl_test::Around;
using rtl_test::RecordingMemory;

struct Design : rtl_test::StreamDesign {
  int64_t stored_elems = 0;  // the part of a row kept in SRAM
  int fifo_depth = 1;        // the re-read FIFO's transactions
  std::string label() const {
    return StreamDesign::label() + ", " + std::to_string(stored_elems) + " elements kept, FIFO of " +
           std::to_string(fifo_depth);
  }
  // The normalise unit's rule: 0 to 2 transactions an edge (a hash of the
  // edge), each only once its last byte lands within 64 cycles -- so that
  // the reads in flight stay within the testbench port's queue.
  int takes_at(int64_t edge) const { return static_cast<int>(rtl_test::mix(seed ^ static_cast<uint64_t>(edge)) % 3); }
  static bool near(int64_t edge, int64_t done_edge) { return done_edge <= edge + 64; }
};

/// What the unit did at one edge.
struct Edge {
  int issued = 0, tokens = 0, done = 0;
  int64_t end_edges = 0;  // the sum of the edges its transactions' last bytes land
  bool operator==(const Edge&) const = default;
};

RunGeometry geometry_of(const Design& d) {
  RunGeometry g;
  g.rows = d.rows;
  g.hidden = d.hidden;
  g.chunk_elems = d.chunk_elems;
  g.chunks = d.chunks();
  g.in_bytes = g.out_bytes = d.in_bytes;
  g.stored_elems = d.stored_elems;
  g.reread_fifo_transactions = d.fifo_depth;
  return g;
}

/// The model, edge by edge, elaborated with every other design's.
struct ModelRun {
  const Design& d;
  const int64_t max_edges;
  const RunGeometry g;
  const RowLimit limit;
  const std::string tag;
  RecordingMemory dram;
  RereadStream unit;
  HandshakeFifo<Grant> fifo;
  HandshakeFifo<double> sums;
  std::vector<Edge> edges;
  uint64_t seen = 0;
  int64_t taken = 0;
  Around normalize;

  ModelRun(const Design& design, int64_t edges_max)
      : d(design),
        max_edges(edges_max),
        g(geometry_of(design)),
        limit(design.rows),
        tag(std::to_string(design.seed)),
        dram(("dram_" + tag).c_str(), design.bytes_per_cycle(), design.latency, Traffic::input_reread),
        unit(("reread_stream_" + tag).c_str(), g, limit),
        fifo(("reread_fifo_" + tag).c_str(), design.fifo_depth),
        sums(("sums_" + tag).c_str(), 4),
        edges(static_cast<size_t>(edges_max)),
        normalize(("normalize_" + tag).c_str(), "normalize", [this] { return take(); }) {
    unit.set_cycle_slot(cycle_slot("reread_stream"));
    unit.to_output(fifo);
    unit.sum_in_dram(sums);
    unit.dram(dram);
  }
  // The normalise unit's slot: what the stream put into the FIFO at the
  // edge before (the newest entries), then this edge's takes.
  bool take() {
    const auto e = static_cast<int64_t>(now_cycles());
    if (e > 0) {
      Edge& x = edges[static_cast<size_t>(e - 1)];
      x.tokens = static_cast<int>(fifo.writes() - seen);
      const auto& q = fifo.contents();
      for (size_t i = q.size() - static_cast<size_t>(x.tokens); i < q.size(); ++i)
        x.end_edges += static_cast<int64_t>(edge_of(q[i].done));
      seen = fifo.writes();
    }
    for (int i = 0; i < d.takes_at(e) && fifo.num_available() > 0; ++i) {
      if (!Design::near(e, static_cast<int64_t>(edge_of(fifo.contents().front().done)))) break;
      Grant t;
      fifo.nb_read(t);
      ++taken;
    }
    return e + 1 < max_edges;
  }
  std::vector<Edge> result() {
    rtl_test::fill(edges, dram.issued, &Edge::issued);
    rtl_test::fill(edges, dram.done, &Edge::done);
    return edges;
  }
};

struct Rtl : rtl_test::ClockedBench {
  RTL_TOP dut{"reread_stream"};
#define NORMSIM_PORT(p) decltype(asic::bind_signal(dut.p))& p = asic::bind_signal(dut.p);
  NORMSIM_PORT(rst) NORMSIM_PORT(rate_num) NORMSIM_PORT(rate_den) NORMSIM_PORT(latency) NORMSIM_PORT(rows)
  NORMSIM_PORT(chunks) NORMSIM_PORT(chunk_elems) NORMSIM_PORT(last_elems) NORMSIM_PORT(stored_elems)
  NORMSIM_PORT(elem_bytes) NORMSIM_PORT(fifo_free) NORMSIM_PORT(issued) NORMSIM_PORT(tokens) NORMSIM_PORT(token_end)
  NORMSIM_PORT(overflow) NORMSIM_PORT(port_full) NORMSIM_PORT(port_done)
#undef NORMSIM_PORT
  Rtl() { dut.clk(clk); }
};

/// The RTL, edge by edge, in the same surroundings.
std::vector<Edge> run_rtl(Rtl& b, const Design& d, int64_t max_edges, int64_t until, bool& overflow) {
  b.chunk_elems.write(static_cast<uint32_t>(d.chunk_elems));
  b.last_elems.write(static_cast<uint32_t>(d.last_elems()));
  b.stored_elems.write(static_cast<uint32_t>(d.stored_elems));
  b.elem_bytes.write(static_cast<uint32_t>(d.in_bytes));
  b.fifo_free.write(static_cast<uint32_t>(d.fifo_depth));
  rtl_test::start_bench(b, d);
  std::vector<Edge> edges(static_cast<size_t>(max_edges));
  std::deque<int64_t> fifo;  // the done edges of the transactions in the FIFO
  overflow = false;
  for (int64_t e = 0; e < max_edges && e <= until; ++e) {
    for (int i = 0; i < d.takes_at(e) && !fifo.empty() && Design::near(e, fifo.front()); ++i)
      fifo.pop_front();  // the normalise unit's slot comes first
    b.fifo_free.write(static_cast<uint32_t>(d.fifo_depth - static_cast<int>(fifo.size())));
    b.settle();
    Edge& x = edges[static_cast<size_t>(e)];
    x.issued = static_cast<int>(b.issued.read());
    x.tokens = static_cast<int>(b.tokens.read());
    x.done = static_cast<int>(b.port_done.read());
    const auto ends = b.token_end.read();
    for (int i = 0; i < x.tokens; ++i) {
      const auto edge = static_cast<int64_t>((ends.range(64 * i + 63, 64 * i).to_uint64() + d.rate_num - 1) / d.rate_num);
      x.end_edges += edge;
      fifo.push_back(edge);
    }
    overflow = overflow || b.overflow.read();
    EXPECT_FALSE(b.port_full.read()) << d.label() << ": the testbench's port had no room at edge " << e;
    b.cycle();
  }
  return edges;
}

std::vector<Design> designs() {
  std::mt19937_64 rng(20261209);
  std::vector<Design> out;
  for (int i = 0; i < 36; ++i) {
    Design d;
    d.in_bytes = rng() % 2 ? 2 : 4;
    d.randomise(rng, i, 60000);
    d.fifo_depth = 1 + static_cast<int>(rng() % 16);
    // DRAM re-read (nothing kept), partial replay (part) or, one in six, SRAM replay (all).
    d.stored_elems = i % 6 == 3 ? d.hidden : rng() % 2 ? 0 : static_cast<int64_t>(rng() % static_cast<uint64_t>(d.hidden));
    const uint64_t transaction = static_cast<uint64_t>(d.chunk_elems) * static_cast<uint64_t>(d.in_bytes);
    d.rows = rtl_test::rows_within(60000, d.rows, d.chunks(), transaction, transaction * static_cast<uint64_t>(d.fifo_depth),
                                   d.bytes_per_cycle(), d.latency, 1);
    out.push_back(d);
  }
  return out;
}

TEST(RtlRereadStream, EveryEdgeAsTheClockedModel) {
  const std::vector<Design> all = designs();
  constexpr int64_t kEdges = 60000;
  const rtl_test::EdgeComparison cmp = rtl_test::compare_clocked<ModelRun, Rtl>(
      all, kEdges, run_rtl,
      [&](const Design& d, const std::vector<Edge>& model) {
        int64_t reread = 0, expected = 0;
        for (const Edge& m : model) reread += m.tokens;
        for (int k = 0; k < d.chunks(); ++k) expected += d.stored_elems >= k * d.chunk_elems + d.chunk_size(k) ? 0 : d.rows;
        EXPECT_EQ(reread, expected) << d.label() << ": the model did not re-read every row in " << kEdges << " edges";
      },
      [](const Edge& m) { return m.issued + m.tokens > 0; },
      [](const Edge& m, const Edge& r) {
        using rtl_test::both;
        return "issued " + both(m.issued, r.issued) + ", into the FIFO " + both(m.tokens, r.tokens) +
               " (last bytes at edges " + both(m.end_edges, r.end_edges) + "), port done " + both(m.done, r.done);
      });
  cmp.finish(all.size(), "a kept element re-read too");
}

}  // namespace
