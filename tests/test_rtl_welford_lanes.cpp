// The streams into the normalise unit in RTL -- the input path, the lanes
// (rtl_models/unit/welford_lanes.v) behind it through their FIFO, and the
// re-read stream with the lanes' announcements of a fused row's z -- on the
// testbench's DRAM port and an SRAM port (rtl_models/tb/tb_streams.v),
// against the SystemC units (InputPathUnit, WelfordLaneArray with a
// dedicated merge tree and the RSQRT unit, RereadStream) clocked
// (asic.timing: cycle), edge for edge: random geometries, lane counts,
// replay paths (all, none or part of a row kept), fused residuals (z
// written where re-read, or all of it), ports, SRAMs, latencies, windows
// and re-read FIFOs, with the normalise unit taking rows and re-read
// transactions and handing buffers back by the same rules on both sides.
// At every edge each unit's requests, hand-overs and takes, the rows out
// (with the edge each row's statistics are ready), the re-read
// transactions (with the edge each lands) and both ports' completions must
// be equal. The build whose lanes start a transaction a cycle late
// (NORMSIM_MUTATE_LANES) must disagree.
#include <gtest/gtest.h>
#include <systemc.h>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include RTL_TOP_HEADER
#include "sim/asic/chan_merge_tree.hpp"
#include "sim/asic/cycle_signal.hpp"
#include "sim/asic/handshake_fifo.hpp"
#include "sim/asic/input_path_unit.hpp"
#include "sim/asic/port_signal.hpp"
#include "sim/asic/reread_stream.hpp"
#include "sim/asic/rsqrt_unit.hpp"
#include "sim/asic/sim_time.hpp"
#include "sim/asic/welford_lane_array.hpp"
#include "sim/core/merge_schedule.hpp"
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
  uint32_t sram_rate = 16, sram_latency = 1;  // the SRAM port: banks x access bytes a cycle
  int64_t stored_elems = 0;                   // the part of a row the replay path keeps
  int lanes = 16;
  int welford_latency = 1, level_cycles = 1, rsqrt_latency = 1;
  int residual_bytes = 0;  // r beside x: a fused residual (0: none)
  bool sum_all = false;    // fused: all of z written (else what is re-read)
  int reread_fifo = 1;     // the re-read FIFO's transactions
  std::string label() const {
    return StreamDesign::label() + ", " + std::to_string(stored_elems) + " elements kept, " + std::to_string(lanes) +
           " lanes, SRAM " + std::to_string(sram_rate) + " B/cycle latency " + std::to_string(sram_latency) +
           (residual_bytes ? sum_all ? ", fused (all of z written)" : ", fused" : "") + ", re-read FIFO of " +
           std::to_string(reread_fifo);
  }
  bool rereads() const { return stored_elems < hidden; }
  /// The transactions of a row that re-read something.
  int reread_chunks() const {
    int n = 0;
    for (int k = 0; k < chunks(); ++k) n += stored_elems < k * chunk_elems + chunk_size(k);
    return n;
  }
  int tree_latency() const { return core::MergeSchedule{lanes, 0}.latency_cycles(level_cycles); }
  int stats_latency() const { return welford_latency + tree_latency() + rsqrt_latency; }
};

/// What the units did at one edge.
struct Edge {
  int issued = 0, tokens = 0, buffers = 0, taken = 0, sram_writes = 0, rows = 0, dram_done = 0, sram_done = 0;
  int sum_writes = 0, sums = 0, reread_issued = 0, reread_tokens = 0;
  int64_t ready_edges = 0;   // the sum of the edges the rows handed over have their statistics ready
  int64_t reread_edges = 0;  // the sum of the edges the re-read transactions land
  bool operator==(const Edge&) const = default;
};

/// The normalise unit, the same rules on both sides: at an edge it takes
/// the oldest row waiting (if any, and if the edge's hash says so) and
/// hands its buffer back a row-dependent 1..40 cycles later.
struct Normalize {
  const Design& d;
  std::map<int64_t, int> returns;  // edge -> buffers handed back at it
  int64_t rows_taken = 0;
  explicit Normalize(const Design& design) : d(design) {}
  bool takes_at(int64_t edge) const { return rtl_test::mix(d.seed ^ static_cast<uint64_t>(edge)) % 3 != 0; }
  int returned_at(int64_t edge) const {
    const auto it = returns.find(edge);
    return it == returns.end() ? 0 : it->second;
  }
  void took(int64_t edge) {
    ++returns[edge + 1 + static_cast<int64_t>(rtl_test::mix(d.seed * 31 + static_cast<uint64_t>(rows_taken)) % 40)];
    ++rows_taken;
  }
  bool finished(int64_t edge) const { return rows_taken == d.rows && returns.upper_bound(edge) == returns.end(); }
  // Re-read transactions: up to two an edge, of rows it has taken, each once
  // its last byte lands within 64 cycles.
  int64_t reread_taken = 0;
  int rereads_at(int64_t edge) const { return static_cast<int>(rtl_test::mix(d.seed * 7 ^ static_cast<uint64_t>(edge)) % 3); }
  bool may_take_reread(int64_t edge, int64_t done_edge) const {
    return d.reread_chunks() > 0 && reread_taken / d.reread_chunks() < rows_taken && done_edge <= edge + 64;
  }
};

RunGeometry geometry_of(const Design& d) {
  RunGeometry g;
  g.rows = d.rows;
  g.hidden = d.hidden;
  g.chunk_elems = d.chunk_elems;
  g.chunks = d.chunks();
  g.lanes = d.lanes;
  g.in_bytes = g.out_bytes = d.in_bytes;
  g.stored_elems = d.stored_elems;
  g.param_bytes = 2 * d.hidden * 4;
  g.residual_bytes = d.residual_bytes;
  g.fusion = d.residual_bytes ? Fusion::fused : Fusion::none;
  g.sum_written_all = d.sum_all;
  g.reread_fifo_transactions = d.reread_fifo;
  return g;
}

/// The models, edge by edge: the two units and their surroundings,
/// elaborated with every other design's before the kernel runs them all.
struct ModelRun {
  const Design& d;
  const int64_t max_edges;
  const RunGeometry g;
  const RowLimit limit;
  const std::string tag;
  RecordingMemory dram, sram;
  InputPathUnit input;
  WelfordLaneArray lanes;
  ChanMergeTree tree;
  RsqrtUnit rsqrt;
  RereadStream reread;
  HandshakeFifo<RowSlot*> free_slots, to_normalize;
  HandshakeFifo<ChunkToken> to_lanes;
  HandshakeFifo<double> sums;
  HandshakeFifo<Grant> reread_fifo;
  CycleSignal params, adder;
  std::vector<RowSlot> slots;
  std::deque<RowSlot*> held;  // buffers the normalise unit took, in the order they come back
  Normalize normalize_rules;
  std::vector<Edge> edges;
  uint64_t seen_tokens = 0, seen_buffers = 0, seen_taken = 0, seen_rows = 0, seen_sums = 0, seen_rereads = 0;
  Around normalize, observer;

  ModelRun(const Design& design, int64_t edges_max)
      : d(design),
        max_edges(edges_max),
        g(geometry_of(design)),
        limit(design.rows),
        tag(std::to_string(design.seed)),
        dram(("dram_" + tag).c_str(), static_cast<double>(design.rate_num) / design.rate_den, design.latency, Traffic::input),
        sram(("sram_" + tag).c_str(), design.sram_rate, design.sram_latency, Traffic::input),
        input(("input_path_" + tag).c_str(), g, limit, static_cast<double>(design.window_bytes), design.row_buffers, nullptr),
        lanes(("welford_lanes_" + tag).c_str(), g, design.welford_latency, nullptr),
        tree(("tree_" + tag).c_str(), ChanMergeTree::Config{core::MergeSchedule{design.lanes, 0}, design.level_cycles, 1}, nullptr),
        rsqrt(("rsqrt_" + tag).c_str(), design.rsqrt_latency, nullptr),
        reread(("reread_stream_" + tag).c_str(), g, limit),
        free_slots(("free_" + tag).c_str(), design.row_buffers),
        to_normalize(("to_normalize_" + tag).c_str(), design.row_buffers),
        to_lanes(("to_lanes_" + tag).c_str(), kFifoDepth),
        sums(("sums_" + tag).c_str(), design.row_buffers),
        reread_fifo(("reread_fifo_" + tag).c_str(), design.reread_fifo),
        params(("params_" + tag).c_str()),
        adder(("adder_" + tag).c_str()),
        slots(static_cast<size_t>(design.row_buffers)),
        normalize_rules(design),
        edges(static_cast<size_t>(edges_max)),
        normalize(("normalize_" + tag).c_str(), "normalize", [this] { return take_and_hand_back(); }),
        observer(("observer_" + tag).c_str(), "reread_stream", [this] { return observe(); }) {
    input.set_cycle_slot(cycle_slot("input_path"));
    lanes.set_cycle_slot(cycle_slot("welford_lanes"));
    input.dram(dram);
    input.sram(sram);
    input.free_slots(free_slots);
    input.to_lanes(to_lanes);
    input.params_on_chip(params);
    input.adder_done(adder);
    lanes.from_input(to_lanes);
    lanes.to_output(to_normalize);
    lanes.sum_in_dram(sums);
    lanes.adder_done(adder);
    lanes.reduce(tree);
    lanes.finish(rsqrt);
    lanes.dram(dram);
    lanes.sram(sram);
    reread.set_cycle_slot(cycle_slot("reread_stream"));
    reread.to_output(reread_fifo);
    reread.sum_in_dram(sums);
    reread.dram(dram);
    for (RowSlot& s : slots) free_slots.preload(&s);
  }
  // The normalise unit's slot: what the re-read stream (the last slot) put
  // into its FIFO at the edge before, then buffers due back, a row taken,
  // re-read transactions taken.
  bool take_and_hand_back() {
    const auto e = static_cast<int64_t>(now_cycles());
    if (e > 0) {
      Edge& x = edges[static_cast<size_t>(e - 1)];
      x.reread_tokens = static_cast<int>(reread_fifo.writes() - seen_rereads);
      const auto& q = reread_fifo.contents();
      for (size_t i = q.size() - static_cast<size_t>(x.reread_tokens); i < q.size(); ++i)
        x.reread_edges += static_cast<int64_t>(edge_of(q[i].done));
      seen_rereads = reread_fifo.writes();
    }
    for (int i = 0; i < normalize_rules.returned_at(e); ++i) {
      free_slots.nb_write(held.front());
      held.pop_front();
    }
    RowSlot* row = nullptr;
    if (normalize_rules.takes_at(e) && to_normalize.nb_read(row)) {
      held.push_back(row);
      normalize_rules.took(e);
    }
    for (int i = 0; i < normalize_rules.rereads_at(e) && reread_fifo.num_available() > 0; ++i) {
      if (!normalize_rules.may_take_reread(e, static_cast<int64_t>(edge_of(reread_fifo.contents().front().done)))) break;
      Grant t;
      reread_fifo.nb_read(t);
      ++normalize_rules.reread_taken;
    }
    return e + 1 < max_edges;
  }
  // After every unit's slot: what each did at this edge.
  bool observe() {
    const auto e = static_cast<int64_t>(now_cycles());
    Edge& x = edges[static_cast<size_t>(e)];
    x.tokens = static_cast<int>(to_lanes.writes() - seen_tokens);
    x.buffers = static_cast<int>(free_slots.reads() - seen_buffers);
    x.taken = static_cast<int>(to_lanes.reads() - seen_taken);
    x.rows = static_cast<int>(to_normalize.writes() - seen_rows);
    const auto& waiting = to_normalize.contents();  // the rows handed over at this edge are the newest
    for (int i = 0; i < x.rows; ++i)
      x.ready_edges += static_cast<int64_t>(edge_of(waiting[waiting.size() - static_cast<size_t>(x.rows) + static_cast<size_t>(i)]->t_ready));
    seen_tokens = to_lanes.writes();
    seen_buffers = free_slots.reads();
    seen_taken = to_lanes.reads();
    seen_rows = to_normalize.writes();
    x.sums = static_cast<int>(sums.writes() - seen_sums);
    seen_sums = sums.writes();
    return e + 1 < max_edges;
  }
  std::vector<Edge> result() {
    for (const auto& [kind_edge, n] : dram.by_kind) {
      const auto& [kind, e] = kind_edge;
      if (e >= max_edges) continue;
      Edge& x = edges[static_cast<size_t>(e)];
      if (kind == Traffic::input) x.issued = n;
      if (kind == Traffic::sum) x.sum_writes = n;
      if (kind == Traffic::input_reread) x.reread_issued = n;
    }
    for (const auto& [e, n] : dram.done)
      if (e < max_edges) edges[static_cast<size_t>(e)].dram_done = n;
    for (const auto& [e, n] : sram.issued)
      if (e < max_edges) edges[static_cast<size_t>(e)].sram_writes = n;
    for (const auto& [e, n] : sram.done)
      if (e < max_edges) edges[static_cast<size_t>(e)].sram_done = n;
    return edges;
  }
};

struct Rtl : rtl_test::ClockedBench {
  RTL_TOP dut{"streams"};
#define NORMSIM_PORT(p) decltype(asic::bind_signal(dut.p))& p = asic::bind_signal(dut.p);
  NORMSIM_PORT(rst) NORMSIM_PORT(rate_num) NORMSIM_PORT(rate_den) NORMSIM_PORT(latency) NORMSIM_PORT(sram_rate)
  NORMSIM_PORT(sram_latency) NORMSIM_PORT(rows) NORMSIM_PORT(chunks) NORMSIM_PORT(chunk_elems) NORMSIM_PORT(last_elems)
  NORMSIM_PORT(stored_elems) NORMSIM_PORT(elem_bytes) NORMSIM_PORT(lanes) NORMSIM_PORT(stats_latency)
  NORMSIM_PORT(param_bytes) NORMSIM_PORT(window_bytes) NORMSIM_PORT(row_buffers) NORMSIM_PORT(buffers_returned)
  NORMSIM_PORT(stats_free) NORMSIM_PORT(issued) NORMSIM_PORT(tokens) NORMSIM_PORT(buffers_taken) NORMSIM_PORT(taken)
  NORMSIM_PORT(sram_writes) NORMSIM_PORT(rows_out) NORMSIM_PORT(rows_ready) NORMSIM_PORT(overflow) NORMSIM_PORT(port_full)
  NORMSIM_PORT(port_done) NORMSIM_PORT(sram_done) NORMSIM_PORT(residual_bytes) NORMSIM_PORT(sum_all)
  NORMSIM_PORT(reread_free) NORMSIM_PORT(sum_writes) NORMSIM_PORT(sums_out) NORMSIM_PORT(reread_issued)
  NORMSIM_PORT(reread_tokens) NORMSIM_PORT(reread_end)
#undef NORMSIM_PORT
  Rtl() { dut.clk(clk); }
};

/// The RTL, edge by edge, in the same surroundings.
std::vector<Edge> run_rtl(Rtl& b, const Design& d, int64_t max_edges, int64_t until, bool& overflow) {
  b.sram_rate.write(d.sram_rate);
  b.sram_latency.write(d.sram_latency);
  b.chunk_elems.write(static_cast<uint32_t>(d.chunk_elems));
  b.last_elems.write(static_cast<uint32_t>(d.last_elems()));
  b.stored_elems.write(static_cast<uint32_t>(d.stored_elems));
  b.elem_bytes.write(static_cast<uint32_t>(d.in_bytes));
  b.lanes.write(static_cast<uint32_t>(d.lanes));
  b.stats_latency.write(static_cast<uint32_t>(d.stats_latency()));
  b.param_bytes.write(static_cast<uint32_t>(2 * d.hidden * 4));
  b.window_bytes.write(static_cast<uint32_t>(d.window_bytes));
  b.row_buffers.write(static_cast<uint32_t>(d.row_buffers));
  b.buffers_returned.write(0);
  b.stats_free.write(static_cast<uint32_t>(d.row_buffers));
  b.residual_bytes.write(static_cast<uint32_t>(d.residual_bytes));
  b.sum_all.write(d.sum_all);
  b.reread_free.write(static_cast<uint32_t>(d.reread_fifo));
  rtl_test::start_bench(b, d);
  Normalize rules(d);
  std::deque<uint64_t> waiting;  // rows handed to the normalise unit, not yet taken
  std::deque<int64_t> rereads;   // the landing edges of the re-read transactions in their FIFO
  std::vector<Edge> edges(static_cast<size_t>(max_edges));
  overflow = false;
  for (int64_t e = 0; e < max_edges; ++e) {
    // The normalise unit's slot comes first: its take is seen by the lanes at this edge.
    if (rules.takes_at(e) && !waiting.empty()) {
      waiting.pop_front();
      rules.took(e);
    }
    for (int i = 0; i < rules.rereads_at(e) && !rereads.empty() && rules.may_take_reread(e, rereads.front()); ++i) {
      rereads.pop_front();
      ++rules.reread_taken;
    }
    b.reread_free.write(static_cast<uint32_t>(d.reread_fifo - static_cast<int>(rereads.size())));
    b.buffers_returned.write(static_cast<uint32_t>(rules.returned_at(e)));
    b.stats_free.write(static_cast<uint32_t>(d.row_buffers - static_cast<int>(waiting.size())));
    b.settle();
    Edge& x = edges[static_cast<size_t>(e)];
    x.issued = static_cast<int>(b.issued.read());
    x.tokens = static_cast<int>(b.tokens.read());
    x.buffers = static_cast<int>(b.buffers_taken.read());
    x.taken = static_cast<int>(b.taken.read());
    x.sram_writes = static_cast<int>(b.sram_writes.read());
    x.rows = static_cast<int>(b.rows_out.read());
    x.dram_done = static_cast<int>(b.port_done.read());
    x.sram_done = static_cast<int>(b.sram_done.read());
    const auto ready = b.rows_ready.read();
    for (int i = 0; i < x.rows; ++i) {
      const uint64_t units = ready.range(64 * i + 63, 64 * i).to_uint64();
      x.ready_edges += static_cast<int64_t>((units + d.rate_num - 1) / d.rate_num);
      waiting.push_back(units);
    }
    x.sum_writes = static_cast<int>(b.sum_writes.read());
    x.sums = static_cast<int>(b.sums_out.read());
    x.reread_issued = static_cast<int>(b.reread_issued.read());
    x.reread_tokens = static_cast<int>(b.reread_tokens.read());
    const auto landing = b.reread_end.read();
    for (int i = 0; i < x.reread_tokens; ++i) {
      const auto edge = static_cast<int64_t>((landing.range(64 * i + 63, 64 * i).to_uint64() + d.rate_num - 1) / d.rate_num);
      x.reread_edges += edge;
      rereads.push_back(edge);
    }
    overflow = overflow || b.overflow.read();
    EXPECT_FALSE(b.port_full.read()) << d.label() << ": a testbench port had no room at edge " << e;
    if (e >= until) break;
    b.cycle();
  }
  return edges;
}

std::vector<Design> designs() {
  std::mt19937_64 rng(20261208);
  std::vector<Design> out;
  for (int i = 0; i < 24; ++i) {
    Design d;
    d.in_bytes = rng() % 2 ? 2 : 4;
    d.randomise(rng, i, 80000);
    d.sram_rate = 16u << (rng() % 6);  // 16..512 B/cycle
    d.sram_latency = 1 + static_cast<uint32_t>(rng() % 4);
    d.lanes = 4 << (rng() % 4);  // 4..32
    // SRAM replay (all kept), DRAM re-read (none) or partial replay (part).
    const int path = static_cast<int>(rng() % 3);
    d.stored_elems = path == 0 ? d.hidden : path == 1 ? 0 : static_cast<int64_t>(rng() % static_cast<uint64_t>(d.hidden));
    d.welford_latency = 1 + static_cast<int>(rng() % 6);
    d.level_cycles = 1 + static_cast<int>(rng() % 3);
    d.rsqrt_latency = 1 + static_cast<int>(rng() % 20);
    // A fused residual in one design of three: z written where re-read, or all of it.
    d.residual_bytes = rng() % 3 == 0 ? d.in_bytes : 0;
    d.sum_all = d.residual_bytes && rng() % 2;
    d.reread_fifo = 1 + static_cast<int>(rng() % 16);
    // The port moves more than x: r beside it and z out (fused), x again (re-read).
    const int port_bytes = d.in_bytes + 2 * d.residual_bytes + (d.rereads() ? d.in_bytes : 0);
    d.rows = rtl_test::rows_within(80000, d.rows, d.chunks(), static_cast<uint64_t>(d.chunk_elems * port_bytes),
                                   d.window_bytes, d.bytes_per_cycle(), d.latency, d.row_buffers);
    out.push_back(d);
  }
  return out;
}

TEST(RtlWelfordLanes, EveryEdgeAsTheClockedModel) {
  const std::vector<Design> all = designs();
  constexpr int64_t kEdges = 80000;
  int64_t rows = 0, writes = 0, all_rows = 0, z_writes = 0, rereads = 0;
  int fused = 0;
  for (const Design& d : all) fused += d.residual_bytes != 0;
  const rtl_test::EdgeComparison cmp = rtl_test::compare_clocked<ModelRun, Rtl>(
      all, kEdges, run_rtl,
      [&](const Design& d, const std::vector<Edge>& model) {
        int64_t design_rows = 0;
        for (const Edge& m : model) {
          design_rows += m.rows;
          writes += m.sram_writes;
          z_writes += m.sum_writes;
          rereads += m.reread_tokens;
        }
        EXPECT_EQ(design_rows, d.rows) << d.label() << ": the model did not finish in " << kEdges << " edges";
        rows += design_rows;
        all_rows += d.rows;
      },
      [](const Edge& m) { return m.taken + m.sram_writes + m.rows + m.sum_writes + m.reread_issued > 0; },
      [](const Edge& m, const Edge& r) {
        using rtl_test::both;
        return "issued " + both(m.issued, r.issued) + ", handed over " + both(m.tokens, r.tokens) + ", buffers " +
               both(m.buffers, r.buffers) + ", lanes took " + both(m.taken, r.taken) + ", row-buffer writes " +
               both(m.sram_writes, r.sram_writes) + ", rows out " + both(m.rows, r.rows) + " (ready edges " +
               both(m.ready_edges, r.ready_edges) + "), z writes " + both(m.sum_writes, r.sum_writes) + ", rows announced " +
               both(m.sums, r.sums) + ", re-read issued " + both(m.reread_issued, r.reread_issued) + ", into its FIFO " +
               both(m.reread_tokens, r.reread_tokens) + " (landing edges " + both(m.reread_edges, r.reread_edges) +
               "), DRAM done " + both(m.dram_done, r.dram_done) + ", SRAM done " + both(m.sram_done, r.sram_done);
      });
  std::printf("%lld rows handed to the normalise unit, %lld row-buffer writes, %lld re-read transactions; %d designs fused, "
              "%lld z writes\n",
              static_cast<long long>(rows), static_cast<long long>(writes), static_cast<long long>(rereads), fused,
              static_cast<long long>(z_writes));
  EXPECT_EQ(rows, all_rows) << "every row of every design reached the normalise unit";
  EXPECT_GT(writes, 0) << "no design kept any of its rows: the row-buffer writes are not shown";
  EXPECT_GT(rereads, 0) << "no design re-read: the re-read stream is not shown";
  EXPECT_GT(z_writes, 0) << "no fused design wrote z: the fused path is not shown";
  cmp.finish(all.size(), "lanes that start a transaction a cycle late");
}

}  // namespace
