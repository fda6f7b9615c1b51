// Each ASIC unit alone, in a testbench of its own: the unit, the channels
// its ports bind to, stub neighbours that feed and drain them, and the
// reference -- sim/core's function for the unit's stage, and the unit's
// timing written out by hand. Every TEST elaborates once, in its own process.
#include <gtest/gtest.h>

#include <map>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <cmath>
#include <set>
#include <memory>
#include <optional>
#include <vector>

#include "sim/asic/chan_merge_tree.hpp"
#include "sim/asic/cycle_signal.hpp"
#include "sim/asic/handshake_fifo.hpp"
#include "sim/asic/input_path_unit.hpp"
#include "sim/asic/netlist.hpp"
#include "sim/asic/norm_accelerator.hpp"
#include "sim/asic/normalize_unit.hpp"
#include "sim/asic/param_grad_accumulator.hpp"
#include "sim/asic/reread_stream.hpp"
#include "sim/asic/row_mean_unit.hpp"
#include "sim/asic/rsqrt_unit.hpp"
#include "sim/asic/separate_adder_pass.hpp"
#include "sim/asic/sim_time.hpp"
#include "sim/asic/unit_registry.hpp"
#include "sim/asic/welford_lane_array.hpp"
#include "sim/area/area_energy.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/row_inputs.hpp"
#include "sim/core/rsqrt_kind.hpp"

using namespace normsim;
using namespace normsim::asic;

int sc_main(int, char**) { return 0; }  // libsystemc wants one; gtest's main runs the tests
// The units count time in the ticks run_asic sets (sim_time.hpp), before any sc_time exists.
const bool kCycleResolution = (normsim::asic::set_cycle_resolution(), true);

namespace {

std::string src() { return std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR; }

// A workload, an arch and what the units are built from.
struct Bench {
  config::Workload w;
  config::Arch a;
  AsicConfig cfg;
  RunGeometry g;
  std::vector<float> gamma, beta;
  std::unique_ptr<core::NormDatapath> dp;
  core::NumericsResult num;
  Bench(const std::string& workload, int64_t rows, const std::string& arch = "asic-default",
        InputPath path = InputPath::sram_replay) {
    w = config::load_workload(src() + "/workloads/" + workload + ".yaml");
    w.rows = rows;
    a = config::load_arch(src() + "/workloads/arch/" + arch + ".yaml");
    cfg = *a.asic;
    cfg.path = path;
    g = make_run_geometry(w, a, cfg);
    core::generate_params(w, gamma, beta);
    dp = std::make_unique<core::NormDatapath>(config::datapath_config(w, a), gamma, beta);
  }
  std::vector<double> row(int64_t r) const {
    std::vector<double> x;
    core::datapath_input_row(w, dp->config().residual_add, r, x, nullptr, nullptr);
    return x;
  }
  // sim/core's reference: the row through all four stages.
  core::RowStats reference_stats(int64_t r) const {
    core::RowState s;
    core::StageCounters c;
    dp->lanes(row(r), s, c);
    dp->merge(s, c);
    dp->rsqrt(s, c);
    return s.stats();
  }
};

void expect_same_stats(const core::RowStats& got, const core::RowStats& want) {
  EXPECT_EQ(got.mean, want.mean);
  EXPECT_EQ(got.var, want.var);
  EXPECT_EQ(got.rstd, want.rstd);
}

// Waits (a testbench thread) until cycle `t`, if it lies ahead.
void wait_until(double t) {
  if (t > now_cycles()) sc_core::wait(sc_core::sc_time((t - now_cycles()) * kTicksPerCycle, sc_core::SC_FS));
}

// Writes `tokens` into its port in order, each not before its cycle.
template <class T>
SC_MODULE(TimedSource) {
  SC_HAS_PROCESS(TimedSource);
  sc_core::sc_fifo_out<T> out;
  std::vector<std::pair<double, T>> tokens;
  explicit TimedSource(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
  void run() {
    for (const auto& [t, v] : tokens) {
      wait_until(t);
      out.write(v);
    }
  }
};

// Takes every token as it comes and records when.
template <class T>
SC_MODULE(Sink) {
  SC_HAS_PROCESS(Sink);
  sc_core::sc_fifo_in<T> in;
  std::vector<std::pair<double, T>> got;
  explicit Sink(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
  void run() {
    for (;;) {
      T v = in.read();
      got.emplace_back(now_cycles(), v);
    }
  }
};

// An output unit's neighbours: rows with their statistics fed in, row
// buffers taken back, an empty re-read FIFO, the parameters' announcement.
struct OutputUnitBench {
  HandshakeFifo<RowSlot*> from_stats{"from_stats", 4}, free_slots{"free", 4};
  HandshakeFifo<Grant> reread{"reread", 1};
  CycleSignal params{"params"};
  TimedSource<RowSlot*> stats{"stats"};
  Sink<RowSlot*> back{"back"};
  explicit OutputUnitBench(NormalizeUnit& unit) {
    unit.from_stats(from_stats);
    unit.free_slots(free_slots);
    unit.reread(reread);
    unit.params_on_chip(params);
    stats.out(from_stats);
    back.in(free_slots);
  }
};

// A lane array's neighbours: transactions fed in, rows taken out, the
// fused re-read's FIFO and the adder's signal left idle.
struct LaneArrayBench {
  HandshakeFifo<ChunkToken> in{"in", 4};
  HandshakeFifo<RowSlot*> out{"out", 4};
  HandshakeFifo<double> sums{"sums", 4};
  CycleSignal adder{"adder"};
  TimedSource<ChunkToken> src{"src"};
  Sink<RowSlot*> sink{"sink"};
  LaneArrayBench(WelfordLaneArray& lanes, RowTransportIf& reduce, RowTransportIf& finish) {
    lanes.from_input(in);
    lanes.to_output(out);
    lanes.sum_in_dram(sums);
    lanes.adder_done(adder);
    lanes.reduce(reduce);
    lanes.finish(finish);
    src.out(in);
    sink.in(out);
  }
};

}  // namespace

// The merge tree and the RSQRT unit are transports: called with a row, they
// run sim/core's stage on it and annotate its time with their latency; on
// one shared merge unit a second row waits for the first's occupancy.
TEST(AsicUnits, ChanMergeTreeAndRsqrtUnitAgainstTheCoreAndTheirLatencies) {
  Bench b("llama2-7b", 3);
  RowArithmetic arith{&b.w, b.dp.get(), nullptr, &b.num, nullptr};
  const int level_cycles = 2;
  const core::MergeSchedule shared{b.a.lanes, 1};
  ChanMergeTree tree("tree", {shared, level_cycles, 1}, &arith);
  RsqrtUnit rsqrt("rsqrt", 7, &arith);
  ASSERT_TRUE(shared.shared());
  std::vector<RowSlot> slots(3);
  for (int r = 0; r < 3; ++r) {
    slots[r].row = r;
    b.dp->lanes(b.row(r), slots[r].state, b.num.counters);
    slots[r].t_ready = 100;  // all three rows leave the lanes at once
  }
  const double occupancy = shared.occupancy_cycles(level_cycles), latency = shared.latency_cycles(level_cycles);
  ASSERT_GT(occupancy, 0);
  for (int r = 0; r < 3; ++r) {
    const double wait = tree.transport(slots[r]);
    EXPECT_EQ(wait, r * occupancy) << "row " << r << " waits for the rows before it on the one unit";
    EXPECT_EQ(slots[r].t_ready, 100 + r * occupancy + latency);
    rsqrt.transport(slots[r]);
    EXPECT_EQ(slots[r].t_ready, 100 + r * occupancy + latency + 7);
    expect_same_stats(slots[r].state.stats(), b.reference_stats(r));
  }
  EXPECT_EQ(tree.stats().snapshot().value("busy_cycles"), 3 * occupancy);

  // A dedicated tree is a pipeline: no row waits.
  const core::MergeSchedule tree_of_adders{b.a.lanes, 0};
  ChanMergeTree dedicated("dedicated", {tree_of_adders, level_cycles, 1}, nullptr);
  RowSlot s;
  s.t_ready = 50;
  EXPECT_EQ(dedicated.transport(s), 0);
  EXPECT_EQ(s.t_ready, 50 + tree_of_adders.latency_cycles(level_cycles));
  s.t_ready = 50;  // a second row at the same cycle: one issue slot behind the first
  EXPECT_EQ(dedicated.transport(s), tree_of_adders.occupancy_cycles(level_cycles));
  EXPECT_EQ(tree_of_adders.occupancy_cycles(level_cycles), 1) << "a dedicated tree takes a row a cycle";
}

// The lanes take a row's transactions as their bytes land, one element per
// lane per cycle, hand the row on with statistics equal to sim/core's, and
// write the kept part into the row buffer.
TEST(AsicUnits, WelfordLaneArrayTakesTheStreamAndMatchesTheCore) {
  Bench b("gpt2-small", 4);
  RowArithmetic arith{&b.w, b.dp.get(), nullptr, &b.num, nullptr};
  DramModel dram("dram", b.cfg.dram, b.cfg.clock_ghz);
  SramModel sram("sram", b.cfg.sram);
  ChanMergeTree tree("tree", {core::MergeSchedule{b.a.lanes, 0}, 1, 1}, &arith);
  RsqrtUnit rsqrt("rsqrt", 3, &arith);
  WelfordLaneArray lanes("lanes", b.g, 5, &arith);
  lanes.dram(dram);
  lanes.sram(sram);
  LaneArrayBench bench(lanes, tree, rsqrt);
  auto& src = bench.src;
  auto& sink = bench.sink;
  auto& sums = bench.sums;
  std::vector<RowSlot> slots(4);
  // Each transaction's bytes land 1000 cycles apart: the lanes wait for them.
  const double gap = 1000;
  double t = 0;
  for (int r = 0; r < 4; ++r) {
    slots[r].row = r;
    slots[r].x = b.row(r);
    slots[r].sram_write.assign(static_cast<size_t>(b.g.chunks), Grant{});
    for (int k = 0; k < b.g.chunks; ++k, t += gap)
      src.tokens.push_back({t, ChunkToken{&slots[r], k, b.g.chunks, Grant{t, t + 10, t + 20}}});
  }
  sc_core::sc_start();
  ASSERT_EQ(sink.got.size(), 4u);
  const double merge_latency = core::MergeSchedule{b.a.lanes, 0}.latency_cycles(1);
  const double work = b.g.lane_cycles(b.g.chunk_size(b.g.chunks - 1));
  for (int r = 0; r < 4; ++r) {
    RowSlot* s = sink.got[r].second;
    EXPECT_EQ(s->row, r);
    expect_same_stats(s->state.stats(), b.reference_stats(r));
    // The last transaction's first byte at +10, its work, then the lanes', tree's and rsqrt's latencies.
    const double last = (r * b.g.chunks + b.g.chunks - 1) * gap;
    EXPECT_EQ(s->t_ready, std::max(last + 10 + work, last + 20) + 5 + merge_latency + 3) << "row " << r;
    for (int k = 0; k < b.g.chunks; ++k) EXPECT_GT(s->sram_write[k].done, 0) << "the kept part went to the row buffer";
  }
  EXPECT_EQ(lanes.first_stats_cycle(), sink.got[0].second->t_ready) << "the first row's statistics out of the RSQRT unit";
  EXPECT_EQ(sram.bytes_written(), static_cast<uint64_t>(4 * b.g.hidden * b.g.in_bytes));
  EXPECT_EQ(dram.bytes_read() + dram.bytes_written(), 0u) << "SRAM replay, unfused: the lanes write no DRAM";
  EXPECT_EQ(sums.num_available(), 0) << "no z to announce without a fused re-read";
}

// Clocked (asic.timing: cycle), a memory takes a request only at the edge
// its unit acts on -- a dated one, the fluid model's way, is refused -- so
// that one cycle's requests reach the port in the units' slot order, the
// order the RTL port's fixed priority serves them in.
TEST(AsicUnits, ClockedMemoriesTakeRequestsOnlyAtTheEdge) {
  Bench b("gpt2-small", 4);
  DramModel dram("dram", b.cfg.dram, b.cfg.clock_ghz);
  SramModel sram("sram", b.cfg.sram);
  g_whole_cycles = true;
  dram.require_edges(true);
  sram.require_edges(true);
  EXPECT_NO_THROW(dram.read(0, 64, Traffic::input));
  EXPECT_THROW(dram.read(0.5, 64, Traffic::input), std::logic_error);
  EXPECT_THROW(dram.write(-1, 64, Traffic::output), std::logic_error);
  EXPECT_THROW(sram.read(0.25, 64), std::logic_error);
  EXPECT_NO_THROW(sram.write(0, 64));
  dram.require_edges(false);
  EXPECT_NO_THROW(dram.read(0.5, 64, Traffic::input)) << "after the rows: the passes issue at the times they compute";
  g_whole_cycles = false;
  // What frees a resource acts before what takes it.
  EXPECT_LT(cycle_slot("normalize"), cycle_slot("input_path"));
  EXPECT_LT(cycle_slot("input_path"), cycle_slot("welford_lanes"));
  EXPECT_LT(cycle_slot("normalize"), cycle_slot("reread_stream"));
  EXPECT_THROW(cycle_slot("no_such_unit"), std::logic_error);
}

// The input path reads gamma/beta once and announces them, then streams
// every row's transactions in order into the row buffers it is given, with
// each row's x as sim/core generates it.
TEST(AsicUnits, InputPathUnitStreamsRowsAndAnnouncesTheParameters) {
  Bench b("bert-large", 5, "asic-default", InputPath::partial_replay);
  RowArithmetic arith{&b.w, b.dp.get(), nullptr, &b.num, nullptr};
  DramModel dram("dram", b.cfg.dram, b.cfg.clock_ghz);
  SramModel sram("sram", b.cfg.sram);
  const RowLimit rows(b.g.rows);
  InputPathUnit input("input", b.g, rows, b.cfg.dram.window_bytes(), 2, &arith);
  input.dram(dram);
  input.sram(sram);
  HandshakeFifo<RowSlot*> free_slots("free", 2);
  HandshakeFifo<ChunkToken> to_lanes("to_lanes", 64);
  CycleSignal params("params"), adder("adder");
  input.free_slots(free_slots);
  input.to_lanes(to_lanes);
  input.params_on_chip(params);
  input.adder_done(adder);
  // The lanes' side: takes each token, returns a row's buffer after its last transaction.
  SC_MODULE(Lanes) {
    SC_HAS_PROCESS(Lanes);
    sc_core::sc_fifo_in<ChunkToken> in;
    sc_core::sc_fifo_out<RowSlot*> back;
    SramModel* sram = nullptr;
    int64_t row_buffer_bytes = 0;  ///< what the normalise unit frees with a row
    std::vector<ChunkToken> got;
    std::vector<std::vector<double>> rows_x;
    explicit Lanes(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
    void run() {
      for (;;) {
        ChunkToken t = in.read();
        got.push_back(t);
        if (t.chunk + 1 == t.chunks) {
          rows_x.push_back(t.slot->x);
          wait_until(t.dram.done);
          sram->hold(-row_buffer_bytes);
          back.write(t.slot);
        }
      }
    }
  } lanes("lanes");
  lanes.in(to_lanes);
  lanes.back(free_slots);
  lanes.sram = &sram;
  lanes.row_buffer_bytes = b.g.stored_elems * b.g.in_bytes;
  RowSlot s0, s1;
  free_slots.preload(&s0);
  free_slots.preload(&s1);
  sc_core::sc_start();
  ASSERT_TRUE(params.announced());
  EXPECT_GT(params.cycle(), 0);
  EXPECT_EQ(dram.bytes(Traffic::params), static_cast<uint64_t>(b.g.param_bytes));
  EXPECT_EQ(dram.bytes(Traffic::input), static_cast<uint64_t>(5 * b.g.hidden * b.g.in_bytes));
  EXPECT_EQ(dram.bytes(Traffic::input_reread), 0u) << "the re-read is the re-read stream's, not the input path's";
  ASSERT_EQ(lanes.got.size(), static_cast<size_t>(5 * b.g.chunks));
  for (size_t i = 0; i < lanes.got.size(); ++i) {
    EXPECT_EQ(lanes.got[i].chunk, static_cast<int>(i % b.g.chunks));
    if (i > 0) {
      EXPECT_GE(lanes.got[i].dram.issue, lanes.got[i - 1].dram.issue) << "requests in time order";
    }
  }
  ASSERT_EQ(lanes.rows_x.size(), 5u);
  for (int r = 0; r < 5; ++r) EXPECT_EQ(lanes.rows_x[r], b.row(r)) << "row " << r;
  EXPECT_EQ(sram.peak_occupancy_bytes(), static_cast<uint64_t>(2 * b.g.stored_elems * b.g.in_bytes)) << "two row buffers held";
  // Both buffers held at once; the stream outran them: rows after the second waited for one.
  std::map<std::string, double> stat;
  for (const auto& st : input.stats().snapshot().stats) stat[st.name] = st.value;
  EXPECT_EQ(stat.at("row_buffers_peak"), 2);
  EXPECT_GE(stat.at("row_buffer_waits"), 1);
  EXPECT_LE(stat.at("row_buffer_waits"), 3);
}

// The re-read stream reads the part of each row not kept, in row order;
// fused, it reads a row's z only once the lanes announced it in DRAM.
TEST(AsicUnits, RereadStreamWaitsForEachRowsSumInDram) {
  Bench b("postnorm-7b", 4, "asic-default", InputPath::partial_replay);
  b.a.fuse.mode = config::FuseMode::residual_dropout;
  b.g = make_run_geometry(b.w, b.a, b.cfg);
  ASSERT_EQ(b.g.fusion, Fusion::fused);
  ASSERT_TRUE(b.g.rereads());
  DramModel dram("dram", b.cfg.dram, b.cfg.clock_ghz);
  const RowLimit rows(b.g.rows);
  RereadStream reread("reread", b.g, rows);
  reread.dram(dram);
  HandshakeFifo<Grant> to_output("to_output", 1024);
  HandshakeFifo<double> sums("sums", 4, HandshakeFifo<double>::Wake::next_delta);
  TimedSource<double> lanes("lanes");
  Sink<Grant> normalize("normalize");
  reread.to_output(to_output);
  reread.sum_in_dram(sums);
  lanes.out(sums);
  normalize.in(to_output);
  // Row r's z is in DRAM at 5000 (r + 1), announced at 4000 (r + 1).
  for (int r = 0; r < 4; ++r) lanes.tokens.push_back({4000.0 * (r + 1), 5000.0 * (r + 1)});
  sc_core::sc_start();
  int64_t reread_chunks = 0;
  for (int k = 0; k < b.g.chunks; ++k) reread_chunks += b.g.reread_in_chunk(k) > 0;
  ASSERT_EQ(normalize.got.size(), static_cast<size_t>(4 * reread_chunks));
  for (size_t i = 0; i < normalize.got.size(); ++i) {
    const int64_t row = static_cast<int64_t>(i) / reread_chunks;
    EXPECT_GE(normalize.got[i].second.issue, 5000.0 * (row + 1)) << "transaction " << i << " of row " << row;
  }
  int64_t reread_elems = 0;
  for (int k = 0; k < b.g.chunks; ++k) reread_elems += b.g.reread_in_chunk(k);
  EXPECT_EQ(reread_elems, b.g.hidden - b.g.stored_elems);
  EXPECT_EQ(dram.bytes(Traffic::input_reread), static_cast<uint64_t>(4 * reread_elems * b.g.in_bytes));
}

// The normalise unit waits for a row's statistics and the parameters,
// replays the row from SRAM, computes y equal to sim/core's, writes it out
// and returns the row buffer.
TEST(AsicUnits, NormalizeUnitReplaysTheRowAndMatchesTheCore) {
  Bench b("llama2-7b", 3);
  core::KeptOutputs kept;
  kept.allocate(b.w.rows, b.w.hidden, false);
  core::init_numerics(b.num, b.w, b.dp->config());
  core::OutputChecker checker(b.w, b.dp->output_lsb(), b.gamma, b.beta, &kept);
  RowArithmetic arith{&b.w, b.dp.get(), &checker, &b.num, nullptr};
  DramModel dram("dram", b.cfg.dram, b.cfg.clock_ghz);
  SramModel sram("sram", b.cfg.sram);
  NormalizeUnit norm("normalize", b.g, {4, true, nullptr, {}}, b.cfg.dram.window_bytes(), &arith);
  norm.dram(dram);
  norm.sram(sram);
  OutputUnitBench bench(norm);
  auto& stats = bench.stats;
  auto& back = bench.back;
  bench.params.announce(250);
  std::vector<RowSlot> slots(3);
  for (int r = 0; r < 3; ++r) {
    slots[r].row = r;
    slots[r].x = b.row(r);
    b.dp->lanes(slots[r].x, slots[r].state, b.num.counters);
    b.dp->merge(slots[r].state, b.num.counters);
    b.dp->rsqrt(slots[r].state, b.num.counters);
    slots[r].sram_write.assign(static_cast<size_t>(b.g.chunks), Grant{0, 0, 0});
    slots[r].t_ready = 100.0 + 20000.0 * r;  // statistics far apart: each row waits for its own
    stats.tokens.push_back({0.0, &slots[r]});
  }
  sc_core::sc_start();
  ASSERT_EQ(norm.rows_done(), 3);
  ASSERT_EQ(back.got.size(), 3u);
  for (int r = 0; r < 3; ++r) {
    std::vector<double> y(static_cast<size_t>(b.w.hidden));
    core::StageCounters c;
    b.dp->normalize(slots[r].state, y, c);
    core::NumericsResult ref_num;
    core::init_numerics(ref_num, b.w, b.dp->config());
    core::KeptOutputs ref;
    ref.allocate(1, b.w.hidden, false);
    core::OutputChecker ref_checker(b.w, b.dp->output_lsb(), b.gamma, b.beta, nullptr);
    ref_checker.check_row(r, slots[r].x, y, slots[r].state.stats(), ref_num);  // rounds y to the output type
    for (int64_t i = 0; i < b.w.hidden; ++i)
      ASSERT_EQ(kept.y[static_cast<size_t>(r * b.w.hidden + i)], y[static_cast<size_t>(i)]) << "row " << r << " element " << i;
    EXPECT_GE(back.got[r].first, slots[r].t_ready + b.g.lane_cycles(b.g.hidden)) << "row " << r;
  }
  // The first row starts at the parameters (250), not its statistics (100);
  // each later row waits from the previous row's hand-back to its statistics.
  EXPECT_GE(back.got[0].first, 250 + b.g.lane_cycles(b.g.hidden));
  EXPECT_EQ(norm.stats().snapshot().value("stall_cycles.dependency"), (slots[1].t_ready - back.got[0].first) + (slots[2].t_ready - back.got[1].first));
  EXPECT_EQ(dram.bytes(Traffic::output), static_cast<uint64_t>(3 * b.g.hidden * b.g.out_bytes));
  EXPECT_EQ(dram.bytes(Traffic::stats), static_cast<uint64_t>(3 * b.g.stats_bytes_per_row));
  EXPECT_EQ(norm.param_buffer_read_bytes(), static_cast<uint64_t>(3 * b.g.param_bytes));
}

// The unfused baseline's adder: x and r in, z out over the whole tensor,
// and the cycle its last write is in DRAM announced.
TEST(AsicUnits, SeparateAdderPassMovesTheTensorAndAnnouncesItsEnd) {
  Bench b("postnorm-7b", 16);
  b.a.fuse.mode = config::FuseMode::none;
  b.g = make_run_geometry(b.w, b.a, b.cfg);
  ASSERT_EQ(b.g.fusion, Fusion::separate_adder);
  DramModel dram("dram", b.cfg.dram, b.cfg.clock_ghz);
  SeparateAdderPass pass("pass", b.g, b.cfg.dram.window_bytes());
  pass.dram(dram);
  CycleSignal done("done");
  pass.done(done);
  sc_core::sc_start();
  const uint64_t n = static_cast<uint64_t>(16 * b.g.hidden);
  EXPECT_EQ(dram.bytes(Traffic::adder_read), n * static_cast<uint64_t>(b.g.in_bytes + b.g.residual_bytes));
  EXPECT_EQ(dram.bytes(Traffic::adder_write), n * static_cast<uint64_t>(b.g.in_bytes));
  ASSERT_TRUE(done.announced());
  // Never faster than its bytes through the port.
  EXPECT_GE(done.cycle(), static_cast<double>(n * (2 * b.g.in_bytes + b.g.residual_bytes)) / b.cfg.dram_port().sustained_bytes_per_cycle.value());
  EXPECT_EQ(pass.stats().snapshot().value("pass_cycles"), done.cycle()) << "its counter is the cycle it announced";
}

// The backward's reductions: the row-sum tree is the adder tree on the arch's
// merge units at its own level latency (a shared unit makes a row wait), and
// the S/C unit a pipeline of its own latency; neither reads a forward key.
TEST(AsicUnits, RowSumTreeAndRowMeanUnitTakeTheBackwardsLatencies) {
  Bench b("llama2-7b-bwd", 3);
  b.cfg.row_sum_tree.level_cycles = 5;
  b.cfg.row_mean.latency_cycles = 9;
  b.cfg.chan_merge_tree.level_cycles = 1000;  // the forward's keys: never read here
  b.cfg.rsqrt.latency_cycles = 1000;
  const core::MergeSchedule shared{b.a.lanes, 1};
  ASSERT_TRUE(shared.shared());
  const RowLimit rows(b.g.rows);
  UnitBuild build{b.w, b.a, b.g, b.cfg, shared, nullptr, nullptr, rows, {}};
  std::unique_ptr<sc_core::sc_module> tree_m, mean_m;
  for (const AsicUnitEntry& e : asic_units()) {
    if (e.name == "row_sum_tree") tree_m = e.make(build);
    if (e.name == "row_mean") mean_m = e.make(build);
  }
  ASSERT_TRUE(tree_m && mean_m);
  auto& tree = dynamic_cast<RowTransportIf&>(*tree_m);
  auto& mean = dynamic_cast<RowTransportIf&>(*mean_m);
  const double occupancy = shared.occupancy_cycles(5), latency = shared.latency_cycles(5);
  std::vector<RowSlot> slots(3);
  for (int r = 0; r < 3; ++r) {
    slots[r].t_ready = 40;
    EXPECT_EQ(tree.transport(slots[r]), r * occupancy) << "row " << r << " waits for the rows before it on the one unit";
    EXPECT_EQ(mean.transport(slots[r]), 0);
    EXPECT_EQ(slots[r].t_ready, 40 + r * occupancy + latency + 9) << "row " << r;
  }
  EXPECT_EQ(static_cast<const ChanMergeTree&>(*tree_m).stats().snapshot().unit, "row_sum_tree") << "its counters under its own name";
}

// The gradient accumulator, on each of its three paths: the bytes of every
// transaction's read-modify-write, the partials it reads out, its pass after
// the rows, each against the geometry's closed form.
TEST(AsicUnits, ParamGradAccumulatorOnEachPath) {
  for (const config::ParamGradPath path :
       {config::ParamGradPath::onchip, config::ParamGradPath::partials, config::ParamGradPath::dram_rmw}) {
    Bench b("llama2-7b-bwd", 10);
    b.a.asic->param_grad_accumulator.path = path;
    b.a.asic->param_grad_accumulator.partial_rows = 4;
    b.cfg = *b.a.asic;
    b.g = make_run_geometry(b.w, b.a, b.cfg);
    const ParamGradAccumulator::Config c = ParamGradAccumulator::Config::of(b.w, b.a, b.cfg);
    ASSERT_EQ(c.path, path);
    EXPECT_EQ(c.grads, b.w.norm == core::NormKind::rmsnorm ? 1 : 2) << "dgamma, and dbeta for a LayerNorm";
    const std::string n = std::string(config::kParamGradPaths.name(path));
    DramModel dram(("dram_" + n).c_str(), b.cfg.dram, b.cfg.clock_ghz);
    SramModel sram(("sram_" + n).c_str(), b.cfg.sram);
    ParamGradAccumulator acc(("acc_" + n).c_str(), c);
    acc.dram(dram);
    acc.sram(sram);
    const double row_acc = c.acc_bytes_of(b.g.hidden);
    double t = 0;
    for (int64_t r = 0; r < b.g.rows; ++r) {
      for (int k = 0; k < b.g.chunks; ++k, t += 100) {
        const double done = acc.accumulate(t, b.g.chunk_size(k));
        if (path == config::ParamGradPath::dram_rmw) {
          EXPECT_EQ(done, t) << "a posted DRAM write holds nothing";
        } else {
          EXPECT_GE(done, t + b.cfg.sram.latency_cycles) << "the words read and written back";
        }
        // dram_rmw: its words come in beside the input, every row after the first.
        const double in = acc.input_read_bytes(r, b.g.chunk_size(k));
        EXPECT_EQ(in, path == config::ParamGradPath::dram_rmw && r > 0 ? c.acc_bytes_of(b.g.chunk_size(k)) : 0.0);
        if (in > 0) {
          EXPECT_GT(acc.read_with_input(t, in), t);
        }
      }
      acc.row_done(r, t);
    }
    const double last = acc.finish(t);
    const core::StatSet st = acc.stats().snapshot();
    const double rows = static_cast<double>(b.g.rows), fp32 = static_cast<double>(b.g.hidden * c.grads * 4);
    EXPECT_EQ(st.value("accumulator_rmw_bytes"), path == config::ParamGradPath::dram_rmw ? 0 : rows * row_acc) << n;
    EXPECT_EQ(dram.bytes(Traffic::grad_acc_write), path == config::ParamGradPath::dram_rmw ? rows * row_acc : 0) << n;
    const double partials = path == config::ParamGradPath::partials ? 3 : 0;  // rows 3, 7 and the last
    EXPECT_EQ(c.partial_count(), 3);
    EXPECT_EQ(dram.bytes(Traffic::grad_acc_read), path == config::ParamGradPath::dram_rmw ? (rows - 1) * row_acc : 0) << n;
    EXPECT_EQ(st.value("accumulator_readout_bytes"), partials * row_acc) << n;
    EXPECT_EQ(dram.bytes(Traffic::partials), partials * row_acc) << n;
    EXPECT_EQ(dram.bytes(Traffic::partials_read), partials * row_acc) << n;
    EXPECT_EQ(dram.bytes(Traffic::param_grads), path == config::ParamGradPath::dram_rmw ? 0 : fp32) << n;
    if (path == config::ParamGradPath::dram_rmw) {
      EXPECT_EQ(last, t) << "its last row wrote the result";
    } else {
      EXPECT_GT(last, t + fp32 / b.cfg.dram_port().sustained_bytes_per_cycle.value() - 1) << n;
    }
  }
}

// The row-sum lanes take x and dy, keep both in the row buffer and hand
// every transaction's columns to the accumulator; where its read-modify-write
// cannot keep up (one single-ported bank) they wait for it, counted as the
// SRAM port's stall.
TEST(AsicUnits, RowSumLanesHandEachTransactionToTheAccumulator) {
  Bench b("llama2-7b-bwd", 4);
  b.cfg.sram.banks = 1;
  b.cfg.sram.ports = 1;
  b.cfg.sram.access_bytes = 4;
  b.g = make_run_geometry(b.w, b.a, b.cfg);
  DramModel dram("dram", b.cfg.dram, b.cfg.clock_ghz);
  SramModel sram("sram", b.cfg.sram);
  ChanMergeTree tree("row_sum_tree", {core::MergeSchedule{b.a.lanes, 0}, 1, 1}, nullptr);
  RowMeanUnit mean("row_mean", 4);
  ParamGradAccumulator acc("param_grad_accumulator", ParamGradAccumulator::Config::of(b.w, b.a, b.cfg));
  WelfordLaneArray lanes("row_sum_lanes", b.g, 4, nullptr);
  acc.dram(dram);
  acc.sram(sram);
  lanes.dram(dram);
  lanes.sram(sram);
  LaneArrayBench bench(lanes, tree, mean);
  lanes.param_grads(acc);
  auto& src = bench.src;
  auto& sink = bench.sink;
  std::vector<RowSlot> slots(4);
  for (int r = 0; r < 4; ++r) {
    slots[r].row = r;
    slots[r].sram_write.assign(static_cast<size_t>(b.g.chunks), Grant{});
    for (int k = 0; k < b.g.chunks; ++k) src.tokens.push_back({0.0, ChunkToken{&slots[r], k, b.g.chunks, Grant{0, 0, 0}}});
  }
  sc_core::sc_start();
  ASSERT_EQ(sink.got.size(), 4u);
  const double row_acc = acc.config().acc_bytes_of(b.g.hidden);
  EXPECT_EQ(acc.stats().snapshot().value("accumulator_rmw_bytes"), 4 * row_acc);
  // One 4-byte port: the row buffer's x and dy and the accumulator's words
  // read and written, every byte through it.
  const double port_bytes = 4 * (static_cast<double>(b.g.stored_elems * b.g.row_elem_bytes()) + 2 * row_acc);
  EXPECT_EQ(sram.bytes_written() + sram.bytes_read(), static_cast<uint64_t>(port_bytes));
  const core::StatSet st = lanes.stats().snapshot();
  EXPECT_EQ(st.unit, "row_sum_lanes");
  EXPECT_GT(st.value("stall_cycles.sram_port"), 0) << "the lanes waited for the accumulator's port";
  EXPECT_GE(lanes.last_row_cycle(), port_bytes / 4) << "no faster than the one port";
}

// The dx unit: each row's x and dy back from the row buffer once its row
// means are in, dx written in the output's type (no statistics), and a
// fused Post-Norm backward with dropout's branch gradient beside it.
TEST(AsicUnits, DxUnitWritesDxAndTheBranchGradient) {
  Bench b("postnorm-7b-bwd", 3);
  b.a.fuse.mode = config::FuseMode::residual_dropout;
  b.g = make_run_geometry(b.w, b.a, b.cfg);
  ASSERT_GT(b.g.branch_grad_bytes, 0);
  DramModel dram("dram", b.cfg.dram, b.cfg.clock_ghz);
  SramModel sram("sram", b.cfg.sram);
  // Built as a run builds it, its latency from its own key; the forward's
  // normalise latency at 1000 cycles would show in its last output if read.
  b.cfg.normalize.latency_cycles = 1000;
  const RowLimit rows(b.g.rows);
  UnitBuild build{b.w, b.a, b.g, b.cfg, core::MergeSchedule{b.a.lanes, 0}, nullptr, nullptr, rows, {}};
  std::unique_ptr<sc_core::sc_module> unit;
  for (const AsicUnitEntry& e : asic_units())
    if (e.name == "dx_unit") unit = e.make(build);
  ASSERT_TRUE(unit);
  auto& dx = dynamic_cast<NormalizeUnit&>(*unit);
  dx.dram(dram);
  dx.sram(sram);
  OutputUnitBench bench(dx);
  auto& src = bench.stats;
  auto& back = bench.back;
  bench.params.announce(10);
  std::vector<RowSlot> slots(3);
  for (int r = 0; r < 3; ++r) {
    slots[r].row = r;
    slots[r].sram_write.assign(static_cast<size_t>(b.g.chunks), Grant{0, 0, 0});
    slots[r].t_ready = 100.0 * (r + 1);
    src.tokens.push_back({0.0, &slots[r]});
  }
  sc_core::sc_start();
  ASSERT_EQ(back.got.size(), 3u);
  const uint64_t n = static_cast<uint64_t>(3 * b.g.hidden);
  EXPECT_EQ(dram.bytes(Traffic::output), n * static_cast<uint64_t>(b.g.out_bytes));
  EXPECT_EQ(dram.bytes(Traffic::branch_grad), n * static_cast<uint64_t>(b.g.branch_grad_bytes));
  EXPECT_EQ(dram.bytes(Traffic::stats), 0u) << "the backward reads the forward's statistics, writes none";
  EXPECT_EQ(dx.stats().snapshot().unit, "dx_unit");
  // Each row buffer back once the row is replayed; the last dx out after the pipeline.
  for (int r = 0; r < 3; ++r) EXPECT_GE(back.got[r].first, slots[r].t_ready + b.g.lane_cycles(b.g.hidden)) << "row " << r;
  EXPECT_GE(dx.last_output_cycle(), slots[2].t_ready + b.g.lane_cycles(b.g.hidden) + b.cfg.dx_unit.latency_cycles);
  EXPECT_LT(dx.last_output_cycle(), 3 * b.g.lane_cycles(b.g.hidden) + b.cfg.normalize.latency_cycles)
      << "the forward's normalise latency is not the dx unit's";
}

// A backward run builds the backward's own units and none of the
// forward's, and its accumulator's pass runs after the rows.
TEST(AsicUnits, TheBackwardBuildsItsOwnUnits) {
  Bench b("llama2-7b-bwd", 8);
  NormAccelerator top("top", b.w, b.a, b.g, b.cfg, core::MergeSchedule{b.a.lanes, b.a.merge.units}, nullptr);
  std::vector<std::string> built;
  for (const sc_core::sc_object* o : top.get_child_objects())
    if (dynamic_cast<const sc_core::sc_module*>(o)) built.push_back(o->basename());
  EXPECT_EQ(built, (std::vector<std::string>{"dram", "sram", "param_grad_accumulator", "input_path", "row_sum_tree", "row_mean",
                                             "row_sum_lanes", "dx_unit"}));
  EXPECT_EQ(make_netlist(b.g, b.cfg).pass, "backward");
  sc_core::sc_start();
  EXPECT_EQ(top.output().rows_done(), 8);
  const auto after = top.finish_after_rows();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].first, "param_grad_accumulator");
  EXPECT_GT(after[0].second, top.lanes().last_row_cycle());
  const int grads = ParamGradAccumulator::Config::of(b.w, b.a, b.cfg).grads;
  EXPECT_EQ(grads, 1) << "llama2-7b-bwd: an RMSNorm, dgamma alone";
  EXPECT_EQ(top.dram.bytes(Traffic::param_grads), static_cast<uint64_t>(b.g.hidden * grads * 4)) << "in fp32";
}

// The registry: each DRAM traffic kind is requested by some unit and, in
// every pass, by at most one of the units the pass builds (the forward's
// normalise unit and the backward's dx unit both write the output); every
// fixed-point stage is computed by some unit; names are unique.
TEST(AsicUnits, TheRegistryNamesEveryTrafficKindOnceAndEveryStage) {
  std::array<int, kTrafficKinds> movers{};
  std::array<int, core::kStageCount> computers{};
  std::set<std::string_view> names;
  for (const AsicUnitEntry& e : asic_units()) {
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
    EXPECT_FALSE(e.summary.empty()) << e.name;
    for (const Traffic t : e.dram_traffic) ++movers[static_cast<size_t>(t)];
    for (const core::Stage s : e.stages) ++computers[static_cast<size_t>(s)];
  }
  for (int k = 0; k < kTrafficKinds; ++k) EXPECT_GE(movers[k], 1) << to_string(static_cast<Traffic>(k));
  for (int s = 0; s < core::kStageCount; ++s) EXPECT_GE(computers[s], 1) << core::to_string(static_cast<core::Stage>(s));
  struct Pass {
    std::string workload, pass;
    config::FuseMode fuse = config::FuseMode::none;
  };
  for (const Pass& p : std::vector<Pass>{{"llama2-7b", "forward"},
                                         {"postnorm-7b", "fused_residual", config::FuseMode::residual_dropout},
                                         {"postnorm-7b", "separate_adder"},
                                         {"llama2-7b-bwd", "backward"},
                                         {"postnorm-7b-bwd", "postnorm_backward", config::FuseMode::residual_dropout}}) {
    Bench b(p.workload, 4, "asic-default", InputPath::partial_replay);
    b.a.fuse.mode = p.fuse;
    b.g = make_run_geometry(b.w, b.a, b.cfg);
    const Netlist n = make_netlist(b.g, b.cfg);
    EXPECT_EQ(n.pass, p.pass);
    std::array<int, kTrafficKinds> in_pass{};
    for (const AsicUnitEntry* e : n.units)
      for (const Traffic t : e->dram_traffic) ++in_pass[static_cast<size_t>(t)];
    for (int k = 0; k < kTrafficKinds; ++k) EXPECT_LE(in_pass[k], 1) << to_string(static_cast<Traffic>(k)) << " in " << p.pass;
  }
}

TEST(AsicUnits, TheAcceleratorBuildsTheUnitsItsGeometryEnables) {
  Bench b("postnorm-7b", 8);
  b.a.fuse.mode = config::FuseMode::none;  // a separate adder's pass; SRAM replay: no re-read stream
  b.g = make_run_geometry(b.w, b.a, b.cfg);
  NormAccelerator top("top", b.w, b.a, b.g, b.cfg, core::MergeSchedule{b.a.lanes, b.a.merge.units}, nullptr);
  std::vector<std::string> built;
  for (const sc_core::sc_object* o : top.get_child_objects())
    if (dynamic_cast<const sc_core::sc_module*>(o)) built.push_back(o->basename());
  const std::vector<std::string> expected = {"dram", "sram", "residual_adder_pass", "input_path", "chan_merge_tree",
                                             "rsqrt", "welford_lanes", "normalize"};
  EXPECT_EQ(built, expected);
  std::vector<std::string> counted;
  for (const core::StatSet& s : top.stats()) counted.push_back(s.unit);
  EXPECT_EQ(counted, (std::vector<std::string>{"residual_adder_pass", "input_path", "chan_merge_tree", "welford_lanes",
                                               "normalize", "dram", "sram"}));
  sc_core::sc_start();
  EXPECT_EQ(top.output().rows_done(), 8);
}

// The netlist: every port a unit declares is an sc_port of the built module
// and every other sc_port of a module is one its pass leaves unbound (the
// forward's `param_grads` ports), which elaboration then accepts; each FIFO has one writer and one reader
// where both its units are built, and the channels' depths follow the arch.
TEST(AsicUnits, TheNetlistDeclaresEveryPortAndBindsEachFifoEnd) {
  Bench b("llama2-7b", 8, "asic-default", InputPath::dram_reread);
  b.cfg.rows_in_flight = 3;
  b.g = make_run_geometry(b.w, b.a, b.cfg);
  const Netlist n = make_netlist(b.g, b.cfg);
  EXPECT_EQ(n.pass, "forward");
  std::set<std::string> fifo_ends;
  for (const Netlist::Connection& k : n.connections) {
    if (k.channel->kind != ChannelKind::fifo) continue;
    EXPECT_FALSE(k.writer.unit.empty()) << k.channel->name;
    ASSERT_EQ(k.readers.size(), 1u) << k.channel->name;
    EXPECT_GT(k.depth, 0) << k.channel->name;
    if (k.channel->name == "free_row_buffers") {
      EXPECT_EQ(k.depth, 3);
    }
    fifo_ends.insert(k.writer.unit + "." + k.writer.port);
    fifo_ends.insert(k.readers[0].unit + "." + k.readers[0].port);
  }
  NormAccelerator top("top", b.w, b.a, b.g, b.cfg, core::MergeSchedule{b.a.lanes, b.a.merge.units}, nullptr);
  std::vector<const sc_core::sc_port_base*> unbound;
  for (const AsicUnitEntry* e : n.units) {
    if (!e->make) continue;  // an after-rows pass: no module
    const sc_core::sc_object* unit = nullptr;
    for (const sc_core::sc_object* o : top.get_child_objects())
      if (e->name == o->basename()) unit = o;
    ASSERT_NE(unit, nullptr) << e->name;
    std::set<std::string> declared;
    for (const PortDecl& p : e->ports) {
      const ChannelDecl& d = accelerator_channel(p.channel);
      // A transport's far end implements it: no sc_port of its own.
      if (d.kind == ChannelKind::transport && p.dir == PortDir::in) {
        EXPECT_NE(dynamic_cast<const sc_core::sc_interface*>(unit), nullptr) << e->name;
        continue;
      }
      declared.insert(std::string(p.port));
    }
    std::set<std::string> ports;
    for (const sc_core::sc_object* o : unit->get_child_objects())
      if (const auto* port = dynamic_cast<const sc_core::sc_port_base*>(o)) {
        ports.insert(o->basename());
        if (!declared.count(o->basename())) unbound.push_back(port);
      }
    for (const std::string& p : declared) EXPECT_TRUE(ports.count(p)) << e->name << "." << p;
  }
  EXPECT_TRUE(fifo_ends.count("reread_stream.to_output") && fifo_ends.count("normalize.reread"));
  sc_core::sc_start();
  for (const sc_core::sc_port_base* p : unbound) {  // an optional port (SC_ZERO_OR_MORE_BOUND), left unbound
    const auto* optional = dynamic_cast<const ParamGradPort*>(p);
    ASSERT_NE(optional, nullptr) << p->name();
    EXPECT_EQ(optional->size(), 0) << p->name();
  }
  EXPECT_EQ(unbound.size(), 1u) << "the forward lanes' param_grads (the input path declares its own; no unit answers it)";
  EXPECT_EQ(top.output().rows_done(), 8);
}

// Every unit sim/area costs is one registry entry's, on each arithmetic
// (fixed, fp32), norm (LayerNorm, RMSNorm), variance algorithm (Welford,
// single pass), merge (dedicated, shared) and a fused residual with dropout.
TEST(AsicUnits, EveryAreaUnitBelongsToExactlyOneRegistryEntry) {
  struct Design {
    std::string workload, arch;
    int merge_units = 0;
    config::FuseMode fuse = config::FuseMode::none;
    core::VarianceAlgorithm algorithm = core::VarianceAlgorithm::welford;
  };
  const std::vector<Design> designs = {{"bert-large", "asic-default"}, {"llama2-7b", "asic-default"},
                                       {"bert-large", "asic-fp32"},    {"llama2-7b", "asic-fp32"},
                                       {"bert-large", "asic-default", 1}, {"bert-large", "asic-fp32", 1},
                                       {"postnorm-7b", "asic-default", 0, config::FuseMode::residual_dropout},
                                       {"postnorm-7b", "asic-fp32", 0, config::FuseMode::residual_dropout},
                                       {"postnorm-7b-bwd", "asic-default", 0, config::FuseMode::residual_dropout},
                                       {"bert-large", "asic-default", 0, config::FuseMode::none, core::VarianceAlgorithm::single_pass},
                                       {"bert-large", "asic-fp32", 0, config::FuseMode::none, core::VarianceAlgorithm::single_pass},
                                       {"llama2-7b-bwd", "asic-default"}, {"bert-large-bwd", "asic-fp32"}};
  std::set<std::string> seen;
  for (const Design& d : designs) {
    Bench b(d.workload, 4, d.arch);
    b.a.merge.units = d.merge_units;
    b.a.fuse.mode = d.fuse;
    b.a.algorithm = d.algorithm;
    // A backward workload: the backward's units (the forward's otherwise).
    const std::optional<core::BackwardConfig> bwd =
        b.w.is_backward() ? std::optional(config::backward_config(b.w, b.a)) : std::nullopt;
    const area::AreaReport ar = area::estimate_area(config::datapath_config(b.w, b.a), {}, b.cfg.node,
                                                    b.cfg.tree_level_cycles(b.w.is_backward()), bwd ? &*bwd : nullptr);
    for (const area::UnitArea& u : ar.units) {
      int owners = 0;
      for (const AsicUnitEntry& e : asic_units())
        owners += static_cast<int>(std::count(e.area_units.begin(), e.area_units.end(), u.unit));
      EXPECT_EQ(owners, 1) << u.unit << " on " << d.workload << " / " << d.arch;
      seen.insert(u.unit);
    }
  }
  // ... and every area unit an entry names is built by one of those designs.
  for (const AsicUnitEntry& e : asic_units())
    for (const std::string_view u : e.area_units) EXPECT_TRUE(seen.count(std::string(u))) << e.name << ": " << u;
}

// A unit's Verilog (what `normsim netlist` and docs/RTL.md's block diagram
// show): every file an entry names declares the module of its name, and
// every module under rtl_models/ (the testbenches' tb/ aside) is some
// unit's, or one of the helpers every unit instantiates, or the row
// pipeline `run --rtl` assembles from the units' datapaths.
TEST(AsicUnits, EveryRtlModuleBelongsToAUnit) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(src()) / "rtl_models";
  std::set<std::string> named;
  for (const AsicUnitEntry& e : asic_units())
    for (const std::string_view stem : e.rtl) {
      const fs::path file = root / (std::string(stem) + ".v");
      std::ifstream in(file);
      ASSERT_TRUE(in) << e.name << ": " << file << " does not exist";
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      EXPECT_NE(text.find("module " + file.stem().string() + " "), std::string::npos) << file << " declares no module " << file.stem();
      named.insert(std::string(stem));
    }
  const std::set<std::string> helpers = {"fx_requant", "delay_line", "norm_row_pipeline"};
  int files = 0;
  for (const auto& f : fs::recursive_directory_iterator(root)) {
    if (f.path().extension() != ".v" || f.path().parent_path().filename() == "tb") continue;
    const std::string stem = fs::relative(f.path(), root).replace_extension().generic_string();
    EXPECT_TRUE(named.count(stem) || helpers.count(stem)) << "rtl_models/" << stem << ".v is no unit's (unit_registry.cpp's rtl)";
    ++files;
  }
  EXPECT_EQ(files, static_cast<int>(named.size() + helpers.size()));
}

// A unit's parameters are the arch's asic.<unit> section: every such section
// is a registry entry's, in the registry's order, and reads back as echoed.
TEST(AsicUnits, EveryUnitSectionIsARegistryEntrys) {
  std::vector<std::string_view> registry;
  for (const AsicUnitEntry& e : asic_units()) registry.push_back(e.name);
  size_t at = 0;
  for (std::string_view section : config::asic_unit_sections()) {
    const auto it = std::find(registry.begin() + at, registry.end(), section);
    ASSERT_NE(it, registry.end()) << section << " is no registry entry's name, or out of the registry's order";
    at = static_cast<size_t>(it - registry.begin()) + 1;
  }
  const nlohmann::json echo = config::asic_params().echo(config::AsicConfig{});
  for (std::string_view section : config::asic_unit_sections()) {
    ASSERT_TRUE(echo.contains(std::string(section))) << section;
    EXPECT_FALSE(echo[std::string(section)].empty()) << section;
  }
}

// A unit's arithmetic section is a section of a fixed-point arch (what
// `normsim netlist` shows beside its own keys), with keys, and the RSQRT
// unit's is the one that selects it.
TEST(AsicUnits, EveryArithmeticSectionIsAnArchSection) {
  const config::Arch a = config::load_arch(src() + "/workloads/arch/asic-default.yaml");
  const nlohmann::json echo = config::arch_params().echo(a);
  int with = 0;
  for (const AsicUnitEntry& e : asic_units()) {
    if (e.arithmetic_section.empty()) continue;
    ++with;
    const std::string s(e.arithmetic_section);
    ASSERT_TRUE(echo.contains(s)) << e.name << ": arch." << s;
    EXPECT_TRUE(echo[s].is_object() && !echo[s].empty()) << e.name << ": arch." << s;
  }
  EXPECT_EQ(with, 1);
  const auto rsqrt = std::find_if(asic_units().begin(), asic_units().end(), [](const AsicUnitEntry& e) { return e.name == "rsqrt"; });
  ASSERT_NE(rsqrt, asic_units().end());
  EXPECT_EQ(rsqrt->arithmetic_section, "rsqrt");
  EXPECT_EQ(echo["rsqrt"]["unit"], "newton");
}

// The RSQRT unit on a design of each unit kind: the same pipeline to time,
// and each row's rstd is that kind's core function (through rsqrt_unit) of
// q(variance + eps); another kind's design computes another rstd.
TEST(AsicUnits, RsqrtUnitComputesEachKindsRstd) {
  for (const core::RsqrtKind& k : core::rsqrt_kinds()) {
    Bench b("llama2-7b", 4);
    b.a.rsqrt = k.example;
    b.dp = std::make_unique<core::NormDatapath>(config::datapath_config(b.w, b.a), b.gamma, b.beta);
    RowArithmetic arith{&b.w, b.dp.get(), nullptr, &b.num, nullptr};
    RsqrtUnit rsqrt(("rsqrt_" + std::string(k.name)).c_str(), 5, &arith);
    const auto rom = k.rom(k.example);
    const core::FixedFormat& in = b.a.formats[static_cast<int>(core::Stage::rsqrt_in)];
    const core::FixedFormat& out = b.a.formats[static_cast<int>(core::Stage::rsqrt_out)];
    const core::Fx eps = core::quantize(b.w.eps, in);
    int differ = 0;
    for (int r = 0; r < 4; ++r) {
      RowSlot s;
      s.row = r;
      s.t_ready = 40;
      b.dp->lanes(b.row(r), s.state, b.num.counters);
      b.dp->merge(s.state, b.num.counters);
      EXPECT_EQ(rsqrt.transport(s), 0);
      EXPECT_EQ(s.t_ready, 45);
      const core::Fx v = core::quantize(core::add(core::exact(s.state.var), core::exact(eps)), in);
      EXPECT_EQ(s.state.rstd.raw, k.eval(v, k.example, rom, out, nullptr).raw) << k.name << " row " << r;
      for (const core::RsqrtKind& o : core::rsqrt_kinds())
        if (&o != &k) differ += s.state.rstd.raw != o.eval(v, o.example, o.rom(o.example), out, nullptr).raw;
    }
    EXPECT_GT(differ, 0) << k.name << ": another unit's rstd on every row: the design did not reach its unit";
  }
}
