// The whole forward unit's control in RTL (rtl_models/tb/tb_forward.v: the
// input path, the lanes, the re-read stream and the normalise unit with its
// replay generator and write buffer, and the separate adder's pass ahead of
// them, on one DRAM port and the SRAM's ports) against the SystemC units
// (InputPathUnit, WelfordLaneArray with a dedicated ChanMergeTree and the
// RsqrtUnit, RereadStream, NormalizeUnit, SeparateAdderPass) clocked
// (asic.timing: cycle), edge for edge: random geometries, lane counts,
// replay paths (all, none or part of a row kept), fused residuals and
// separate adders, ports, SRAMs of one and two ports a bank, latencies,
// windows, FIFOs and statistics written or not. Nothing drives the units but each other. At every edge every unit's
// requests, hand-overs and takes and both ports' completions must be
// equal, and the bytes each kind of request asks for. The build whose
// normalise unit starts a row a cycle late
// (NORMSIM_MUTATE_NORMALIZE) must disagree.
#include <gtest/gtest.h>
#include <systemc.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include RTL_TOP_HEADER
#include "sim/asic/normalize_unit.hpp"
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
  int issued = 0, tokens = 0, buffers = 0, taken = 0, sram_writes = 0, rows = 0, sum_writes = 0, sums = 0;
  int reread_issued = 0, reread_tokens = 0, norm_rows = 0, norm_rereads = 0, sram_reads = 0, outputs = 0;
  int buffers_back = 0, dram_done = 0, sram_done = 0, adder_reads = 0, adder_writes = 0;
  uint32_t bytes[11] = {};  // asked for, by kind: tb_forward.v's kind_bytes
  bool operator==(const Edge&) const = default;
};

/// The model, edge by edge: the four units bound to each other as the
/// netlist binds them, elaborated with every other design's.
struct ModelRun {
  const Design& d;
  const int64_t max_edges;
  rtl_test::StreamUnits units;
  NormalizeUnit normalize;
  std::vector<Edge> edges;
  uint64_t seen[8] = {};
  Around observer;

  ModelRun(const Design& design, int64_t edges_max)
      : d(design),
        max_edges(edges_max),
        units(design),
        normalize(("normalize_" + units.tag).c_str(), units.g, NormalizeUnit::Config{4, design.write_stats, nullptr, {}},
                  static_cast<double>(design.window_bytes), nullptr),
        edges(static_cast<size_t>(edges_max)),
        observer(("observer_" + units.tag).c_str(), Around::kAfterUnits, [this] { return observe(); }) {
    normalize.set_cycle_slot(cycle_slot("normalize"));
    normalize.from_stats(units.to_normalize);
    normalize.reread(units.reread_fifo);
    normalize.free_slots(units.free_slots);
    normalize.dram(units.dram);
    normalize.sram(units.sram);
    normalize.params_on_chip(units.params);
  }
  // After every unit's slot: what each did at this edge, from its channels' counts.
  bool observe() {
    const auto e = static_cast<int64_t>(now_cycles());
    Edge& x = edges[static_cast<size_t>(e)];
    const rtl_test::StreamUnits& u = units;
    const uint64_t now[8] = {u.to_lanes.writes(), u.free_slots.reads(),  u.to_lanes.reads(),     u.to_normalize.writes(),
                             u.sums.writes(),     u.reread_fifo.writes(), u.to_normalize.reads(), u.reread_fifo.reads()};
    int* fields[8] = {&x.tokens, &x.buffers, &x.taken, &x.rows, &x.sums, &x.reread_tokens, &x.norm_rows, &x.norm_rereads};
    for (int i = 0; i < 8; ++i) {
      *fields[i] = static_cast<int>(now[i] - seen[i]);
      seen[i] = now[i];
    }
    x.buffers_back = static_cast<int>(u.free_slots.writes() - buffers_back_seen);
    buffers_back_seen = u.free_slots.writes();
    return e + 1 < max_edges;
  }
  uint64_t buffers_back_seen = 0;
  std::vector<Edge> result() {
    using rtl_test::fill;
    fill(edges, units.dram, Traffic::input, &Edge::issued);
    fill(edges, units.dram, Traffic::sum, &Edge::sum_writes);
    fill(edges, units.dram, Traffic::input_reread, &Edge::reread_issued);
    fill(edges, units.dram, Traffic::output, &Edge::outputs);
    fill(edges, units.dram, Traffic::adder_read, &Edge::adder_reads);
    fill(edges, units.dram, Traffic::adder_write, &Edge::adder_writes);
    fill(edges, units.dram.done, &Edge::dram_done);
    fill(edges, units.sram.issued, &Edge::sram_writes);
    fill(edges, units.sram.reads, &Edge::sram_reads);
    fill(edges, units.sram.done, &Edge::sram_done);
    // Bytes by kind, in kind_bytes' order: the DRAM's kinds, the replay reads, the row-buffer writes.
    constexpr Traffic kKinds[] = {Traffic::params, Traffic::input,  Traffic::residual,  Traffic::sum,        Traffic::input_reread,
                                  Traffic::output, Traffic::stats,  Traffic::adder_read, Traffic::adder_write};
    auto put = [this](int64_t e, int k, int64_t n) {
      if (e < static_cast<int64_t>(edges.size())) edges[static_cast<size_t>(e)].bytes[k] = static_cast<uint32_t>(n);
    };
    for (const auto& [kind_edge, n] : units.dram.bytes_by_kind)
      for (int k = 0; k < 9; ++k)
        if (kKinds[k] == kind_edge.first) put(kind_edge.second, k, n);
    for (const auto& [e, n] : units.sram.read_bytes) put(e, 9, n);
    for (const auto& [e, n] : units.sram.write_bytes) put(e, 10, n);
    return edges;
  }
};

std::string bytes_text(const Edge& x) {
  std::string out;
  for (uint32_t n : x.bytes) out += (out.empty() ? "" : ",") + std::to_string(n);
  return out;
}

struct Rtl : rtl_test::ClockedBench {
  RTL_TOP dut{"forward"};
#define NORMSIM_PORT(p) decltype(asic::bind_signal(dut.p))& p = asic::bind_signal(dut.p);
  NORMSIM_PORT(rst) NORMSIM_PORT(rate_num) NORMSIM_PORT(rate_den) NORMSIM_PORT(latency) NORMSIM_PORT(sram_rate)
  NORMSIM_PORT(sram_latency) NORMSIM_PORT(sram_dual) NORMSIM_PORT(rows) NORMSIM_PORT(chunks) NORMSIM_PORT(chunk_elems) NORMSIM_PORT(last_elems)
  NORMSIM_PORT(stored_elems) NORMSIM_PORT(elem_bytes) NORMSIM_PORT(out_bytes) NORMSIM_PORT(lanes)
  NORMSIM_PORT(lanes_latency) NORMSIM_PORT(merge_latency) NORMSIM_PORT(merge_occupancy)
  NORMSIM_PORT(finish_latency) NORMSIM_PORT(stats_bytes) NORMSIM_PORT(param_bytes) NORMSIM_PORT(window_bytes)
  NORMSIM_PORT(row_buffers) NORMSIM_PORT(lanes_fifo) NORMSIM_PORT(residual_bytes) NORMSIM_PORT(sum_all) NORMSIM_PORT(reread_depth)
  NORMSIM_PORT(issued) NORMSIM_PORT(tokens) NORMSIM_PORT(buffers_taken) NORMSIM_PORT(taken) NORMSIM_PORT(sram_writes)
  NORMSIM_PORT(rows_out) NORMSIM_PORT(sum_writes) NORMSIM_PORT(sums_out) NORMSIM_PORT(reread_issued)
  NORMSIM_PORT(reread_tokens) NORMSIM_PORT(norm_rows) NORMSIM_PORT(norm_rereads) NORMSIM_PORT(sram_reads)
  NORMSIM_PORT(outputs) NORMSIM_PORT(buffers_back) NORMSIM_PORT(overflow) NORMSIM_PORT(port_full)
  NORMSIM_PORT(port_done) NORMSIM_PORT(sram_done) NORMSIM_PORT(adder_r_bytes) NORMSIM_PORT(adder_reads)
  NORMSIM_PORT(adder_writes)
  // Compared by `run --rtl-full` (test_run_rtl_full.sh), bound here only.
  NORMSIM_PORT(params_reads) NORMSIM_PORT(residual_reads) NORMSIM_PORT(stats_writes) NORMSIM_PORT(kind_bytes)
#undef NORMSIM_PORT
  Rtl() { dut.clk(clk); }
};

std::vector<Edge> run_rtl(Rtl& b, const Design& d, int64_t max_edges, int64_t until, bool& overflow) {
  rtl_test::write_unit_inputs(b, d);
  b.out_bytes.write(static_cast<uint32_t>(d.out_bytes));
  b.stats_bytes.write(static_cast<uint32_t>(d.write_stats ? d.stats_bytes : 0));
  b.reread_depth.write(static_cast<uint32_t>(d.reread_fifo));
  b.adder_r_bytes.write(static_cast<uint32_t>(d.adder_r_bytes));
  rtl_test::start_bench(b, d);
  std::vector<Edge> edges(static_cast<size_t>(max_edges));
  overflow = false;
  for (int64_t e = 0; e < max_edges && e <= until; ++e) {
    b.settle();
    Edge& x = edges[static_cast<size_t>(e)];
    rtl_test::read_stream_outputs(b, x);
    x.norm_rows = static_cast<int>(b.norm_rows.read());
    x.norm_rereads = static_cast<int>(b.norm_rereads.read());
    x.sram_reads = static_cast<int>(b.sram_reads.read());
    x.outputs = static_cast<int>(b.outputs.read());
    x.buffers_back = static_cast<int>(b.buffers_back.read());
    x.adder_reads = static_cast<int>(b.adder_reads.read());
    x.adder_writes = static_cast<int>(b.adder_writes.read());
    const auto& by_kind = b.kind_bytes.read();  // registered: the edge before's
    for (int k = 0; k < 11 && e > 0; ++k) edges[static_cast<size_t>(e - 1)].bytes[k] = by_kind.range(32 * k + 31, 32 * k).to_uint();
    overflow = overflow || b.overflow.read();
    EXPECT_FALSE(b.port_full.read()) << d.label() << ": a testbench port had no room at edge " << e;
    b.cycle();
  }
  return edges;
}

TEST(RtlForward, EveryEdgeAsTheClockedModel) {
  constexpr int64_t kEdges = 80000;
  const std::vector<Design> all = rtl_test::unit_designs(20261210, 24, kEdges, true);
  int64_t rows = 0, all_rows = 0, outputs = 0, replays = 0, rereads = 0, adder_writes = 0, bytes[11] = {};
  int fused = 0, with_stats = 0, separate = 0, shared = 0;
  for (const Design& d : all)
    fused += d.residual_bytes != 0, with_stats += d.write_stats, separate += d.adder_r_bytes != 0, shared += d.merge_units != 0;
  const rtl_test::EdgeComparison cmp = rtl_test::compare_clocked<ModelRun, Rtl>(
      all, kEdges, run_rtl,
      [&](const Design& d, const std::vector<Edge>& model) {
        int64_t back = 0;
        for (const Edge& m : model) {
          back += m.buffers_back;
          outputs += m.outputs;
          replays += m.sram_reads;
          rereads += m.norm_rereads;
          adder_writes += m.adder_writes;
          for (int k = 0; k < 11; ++k) bytes[k] += m.bytes[k];
        }
        EXPECT_EQ(back, d.rows) << d.label() << ": the model did not finish in " << kEdges << " edges";
        rows += back;
        all_rows += d.rows;
      },
      [](const Edge& m) { return m.taken + m.rows + m.norm_rows + m.outputs + m.reread_issued + m.adder_reads + m.adder_writes > 0; },
      [](const Edge& m, const Edge& r) {
        using rtl_test::both;
        return rtl_test::describe_streams(m, r) + "; normalise took rows " + both(m.norm_rows, r.norm_rows) +
               ", re-reads " + both(m.norm_rereads, r.norm_rereads) + ", replay reads " + both(m.sram_reads, r.sram_reads) +
               ", outputs " + both(m.outputs, r.outputs) + ", buffers back " + both(m.buffers_back, r.buffers_back) +
               "; the separate adder's reads " + both(m.adder_reads, r.adder_reads) + ", z writes " +
               both(m.adder_writes, r.adder_writes) + "; bytes by kind (params, x, r, z, re-read, y, stats, adder reads, " +
               "adder writes, replay reads, row-buffer writes) " + bytes_text(m) + " / " + bytes_text(r);
      });
  std::printf("%lld rows normalised: %lld output transactions, %lld replay reads, %lld re-read transactions; %d designs "
              "fused, %d with a separate adder's pass (%lld z writes), %d on shared merge units, %d writing statistics\n",
              static_cast<long long>(rows), static_cast<long long>(outputs), static_cast<long long>(replays),
              static_cast<long long>(rereads), fused, separate, static_cast<long long>(adder_writes), shared, with_stats);
  EXPECT_EQ(rows, all_rows) << "every row of every design was normalised";
  EXPECT_GT(replays, 0) << "no replay read: the row buffers' path is not shown";
  EXPECT_GT(rereads, 0) << "no re-read: the re-read path is not shown";
  EXPECT_GT(adder_writes, 0) << "no separate adder's pass: its RTL is not shown";
  EXPECT_GT(shared, 0) << "no shared merge units: the lanes' wait for them is not shown";
  // Every kind of request moved bytes in some design: each kind's sizes are compared.
  for (int k = 0; k < 11; ++k) EXPECT_GT(bytes[k], 0) << "no bytes of kind " << k << " (kind_bytes' order)";
  cmp.finish(all.size(), "a normalise unit that starts a row a cycle late");
}

}  // namespace
