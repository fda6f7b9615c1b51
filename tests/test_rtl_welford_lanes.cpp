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
#include "sim/asic/handshake_fifo.hpp"
#include "sim/asic/port_signal.hpp"
#include "sim/asic/sim_time.hpp"
#include "tests/rtl/clocked_bench.hpp"
#include "tests/rtl/stream_units.hpp"
#include "tests/rtl/unit_bench.hpp"

int sc_main(int, char**) { return 0; }  // libsystemc wants one; gtest's main runs the tests

namespace {
using namespace normsim;
using namespace normsim::asic;
using rtl_test::Around;
using rtl_test::RecordingMemory;

using Design = rtl_test::UnitDesign;

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
  std::deque<int64_t> holds;  // the rows taken, not yet handed back: the edge each may go back at
  int64_t rows_taken = 0, rows_back = 0, reread_taken = 0;
  explicit Normalize(const Design& design) : d(design) {}
  bool takes_at(int64_t edge) const { return rtl_test::mix(d.seed ^ static_cast<uint64_t>(edge)) % 3 != 0; }
  /// The buffers handed back at `edge`, in row order: a row's goes back
  /// 1..40 cycles after it was taken, and not before its re-read
  /// transactions are all taken (a real normalise unit has replayed it).
  int hand_back(int64_t edge) {
    int n = 0;
    while (!holds.empty() && holds.front() <= edge && reread_taken >= (rows_back + 1) * d.reread_chunks()) {
      holds.pop_front();
      ++rows_back;
      ++n;
    }
    return n;
  }
  void took(int64_t edge) {
    holds.push_back(edge + 1 + static_cast<int64_t>(rtl_test::mix(d.seed * 31 + static_cast<uint64_t>(rows_taken)) % 40));
    ++rows_taken;
  }
  // Re-read transactions: up to two an edge, of rows it has taken, each once
  // its last byte lands within 64 cycles.
  int rereads_at(int64_t edge) const { return static_cast<int>(rtl_test::mix(d.seed * 7 ^ static_cast<uint64_t>(edge)) % 3); }
  bool may_take_reread(int64_t edge, int64_t done_edge) const {
    return d.reread_chunks() > 0 && reread_taken / d.reread_chunks() < rows_taken && done_edge <= edge + 64;
  }
};

/// The models, edge by edge: the two units and their surroundings,
/// elaborated with every other design's before the kernel runs them all.
struct ModelRun {
  const Design& d;
  const int64_t max_edges;
  rtl_test::StreamUnits units;
  std::deque<RowSlot*> held;  // buffers the normalise unit took, in the order they come back
  Normalize normalize_rules;
  std::vector<Edge> edges;
  uint64_t seen_tokens = 0, seen_buffers = 0, seen_taken = 0, seen_rows = 0, seen_sums = 0, seen_rereads = 0;
  Around normalize, observer;
  // The channels the surroundings and the observer read.
  HandshakeFifo<RowSlot*>& free_slots = units.free_slots;
  HandshakeFifo<RowSlot*>& to_normalize = units.to_normalize;
  HandshakeFifo<ChunkToken>& to_lanes = units.to_lanes;
  HandshakeFifo<double>& sums = units.sums;
  HandshakeFifo<Grant>& reread_fifo = units.reread_fifo;

  ModelRun(const Design& design, int64_t edges_max)
      : d(design),
        max_edges(edges_max),
        units(design),
        normalize_rules(design),
        edges(static_cast<size_t>(edges_max)),
        normalize(("normalize_" + units.tag).c_str(), "normalize", [this] { return take_and_hand_back(); }),
        observer(("observer_" + units.tag).c_str(), "reread_stream", [this] { return observe(); }) {}
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
    for (int i = normalize_rules.hand_back(e); i > 0; --i) {
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
    using rtl_test::fill;
    fill(edges, units.dram, Traffic::input, &Edge::issued);
    fill(edges, units.dram, Traffic::sum, &Edge::sum_writes);
    fill(edges, units.dram, Traffic::input_reread, &Edge::reread_issued);
    fill(edges, units.dram.done, &Edge::dram_done);
    fill(edges, units.sram.issued, &Edge::sram_writes);
    fill(edges, units.sram.done, &Edge::sram_done);
    return edges;
  }
};

struct Rtl : rtl_test::ClockedBench {
  RTL_TOP dut{"streams"};
#define NORMSIM_PORT(p) decltype(asic::bind_signal(dut.p))& p = asic::bind_signal(dut.p);
  NORMSIM_PORT(rst) NORMSIM_PORT(rate_num) NORMSIM_PORT(rate_den) NORMSIM_PORT(latency) NORMSIM_PORT(sram_rate)
  NORMSIM_PORT(sram_latency) NORMSIM_PORT(sram_dual) NORMSIM_PORT(rows) NORMSIM_PORT(chunks) NORMSIM_PORT(chunk_elems) NORMSIM_PORT(last_elems)
  NORMSIM_PORT(stored_elems) NORMSIM_PORT(elem_bytes) NORMSIM_PORT(lanes) NORMSIM_PORT(lanes_latency) NORMSIM_PORT(merge_latency) NORMSIM_PORT(merge_occupancy)
  NORMSIM_PORT(finish_latency)
  NORMSIM_PORT(param_bytes) NORMSIM_PORT(window_bytes) NORMSIM_PORT(row_buffers) NORMSIM_PORT(lanes_fifo) NORMSIM_PORT(buffers_returned)
  NORMSIM_PORT(stats_free) NORMSIM_PORT(issued) NORMSIM_PORT(tokens) NORMSIM_PORT(buffers_taken) NORMSIM_PORT(taken)
  NORMSIM_PORT(sram_writes) NORMSIM_PORT(rows_out) NORMSIM_PORT(rows_ready) NORMSIM_PORT(overflow) NORMSIM_PORT(port_full)
  NORMSIM_PORT(port_done) NORMSIM_PORT(sram_done) NORMSIM_PORT(residual_bytes) NORMSIM_PORT(sum_all) NORMSIM_PORT(input_start)
  NORMSIM_PORT(reread_free) NORMSIM_PORT(sum_writes) NORMSIM_PORT(sums_out) NORMSIM_PORT(reread_issued)
  NORMSIM_PORT(reread_tokens) NORMSIM_PORT(reread_end) NORMSIM_PORT(reread_first_out) NORMSIM_PORT(head_dram_valid)
  NORMSIM_PORT(head_dram_bytes) NORMSIM_PORT(head_dram_end) NORMSIM_PORT(head_sram_valid) NORMSIM_PORT(head_sram_bytes)
  NORMSIM_PORT(head_sram_not_before) NORMSIM_PORT(head_sram_first) NORMSIM_PORT(head_sram_end)
  NORMSIM_PORT(params_reads) NORMSIM_PORT(residual_reads) NORMSIM_PORT(stream_bytes)  // tb_forward's, compared by run --rtl-full
  NORMSIM_PORT(written_valid) NORMSIM_PORT(written_row) NORMSIM_PORT(written_chunk) NORMSIM_PORT(written_end)
  NORMSIM_PORT(params_valid) NORMSIM_PORT(params_end)
#undef NORMSIM_PORT
  Rtl() { dut.clk(clk); }
};

/// The RTL, edge by edge, in the same surroundings.
std::vector<Edge> run_rtl(Rtl& b, const Design& d, int64_t max_edges, int64_t until, bool& overflow) {
  rtl_test::write_unit_inputs(b, d);
  b.input_start.write(true);  // no separate adder in these designs
  b.buffers_returned.write(0);
  b.stats_free.write(static_cast<uint32_t>(d.row_buffers));
  b.reread_free.write(static_cast<uint32_t>(d.reread_fifo));
  rtl_test::start_bench(b, d);
  Normalize rules(d);
  std::deque<uint64_t> waiting;  // rows handed to the normalise unit, not yet taken
  std::deque<int64_t> rereads;   // the landing edges of the re-read transactions in their FIFO
  std::vector<Edge> edges(static_cast<size_t>(max_edges));
  overflow = false;
  for (int64_t e = 0; e < max_edges; ++e) {
    // The normalise unit's slot comes first: its take is seen by the lanes at this edge.
    const int back = rules.hand_back(e);
    if (rules.takes_at(e) && !waiting.empty()) {
      waiting.pop_front();
      rules.took(e);
    }
    for (int i = 0; i < rules.rereads_at(e) && !rereads.empty() && rules.may_take_reread(e, rereads.front()); ++i) {
      rereads.pop_front();
      ++rules.reread_taken;
    }
    b.reread_free.write(static_cast<uint32_t>(d.reread_fifo - static_cast<int>(rereads.size())));
    b.buffers_returned.write(static_cast<uint32_t>(back));
    b.stats_free.write(static_cast<uint32_t>(d.row_buffers - static_cast<int>(waiting.size())));
    b.settle();
    Edge& x = edges[static_cast<size_t>(e)];
    rtl_test::read_stream_outputs(b, x);
    const auto ready = b.rows_ready.read();
    for (int i = 0; i < x.rows; ++i) {
      const uint64_t units = ready.range(64 * i + 63, 64 * i).to_uint64();
      x.ready_edges += static_cast<int64_t>((units + d.rate_num - 1) / d.rate_num);
      waiting.push_back(units);
    }
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

TEST(RtlWelfordLanes, EveryEdgeAsTheClockedModel) {
  constexpr int64_t kEdges = 80000;
  const std::vector<Design> all = rtl_test::unit_designs(20261208, 24, kEdges);
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
        return rtl_test::describe_streams(m, r) + "; ready edges " + both(m.ready_edges, r.ready_edges) +
               ", landing edges " + both(m.reread_edges, r.reread_edges);
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
