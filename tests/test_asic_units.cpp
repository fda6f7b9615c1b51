// Each ASIC unit alone, in a testbench of its own: the unit, the channels
// its ports bind to, stub neighbours that feed and drain them, and the
// reference -- sim/core's function for the unit's stage, and the unit's
// timing written out by hand. Every TEST elaborates once, in its own process.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <memory>
#include <vector>

#include "sim/asic/chan_merge_tree.hpp"
#include "sim/asic/cycle_signal.hpp"
#include "sim/asic/handshake_fifo.hpp"
#include "sim/asic/input_path_unit.hpp"
#include "sim/asic/netlist.hpp"
#include "sim/asic/norm_accelerator.hpp"
#include "sim/asic/normalize_unit.hpp"
#include "sim/asic/reread_stream.hpp"
#include "sim/asic/rsqrt_unit.hpp"
#include "sim/asic/separate_adder_pass.hpp"
#include "sim/asic/sim_time.hpp"
#include "sim/asic/unit_registry.hpp"
#include "sim/asic/welford_lane_array.hpp"
#include "sim/area/area_energy.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/row_inputs.hpp"

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
  if (t > now_cycles()) sc_core::wait(sc_core::sc_time((t - now_cycles()) * g_ticks_per_cycle, sc_core::SC_FS));
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
  EXPECT_EQ(rsqrt.first_stats_cycle(), 100 + latency + 7);
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
  WelfordLaneArray lanes("lanes", b.g, 5, dram, sram, &arith);
  HandshakeFifo<ChunkToken> in("in", 4);
  HandshakeFifo<RowSlot*> out("out", 4);
  HandshakeFifo<double> sums("sums", 4);
  CycleSignal adder("adder");
  TimedSource<ChunkToken> src("src");
  Sink<RowSlot*> sink("sink");
  lanes.from_input(in);
  lanes.to_normalize(out);
  lanes.sum_in_dram(sums);
  lanes.adder_done(adder);
  lanes.merge(tree);
  lanes.rsqrt(rsqrt);
  src.out(in);
  sink.in(out);
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
  EXPECT_EQ(sram.bytes_written(), static_cast<uint64_t>(4 * b.g.hidden * b.g.in_bytes));
  EXPECT_EQ(dram.bytes_read() + dram.bytes_written(), 0u) << "SRAM replay, unfused: the lanes write no DRAM";
  EXPECT_EQ(sums.num_available(), 0) << "no z to announce without a fused re-read";
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
  InputPathUnit input("input", b.g, rows, dram, sram, &arith);
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
    if (i > 0) EXPECT_GE(lanes.got[i].dram.issue, lanes.got[i - 1].dram.issue) << "requests in time order";
  }
  ASSERT_EQ(lanes.rows_x.size(), 5u);
  for (int r = 0; r < 5; ++r) EXPECT_EQ(lanes.rows_x[r], b.row(r)) << "row " << r;
  EXPECT_EQ(sram.peak_occupancy_bytes(), static_cast<uint64_t>(2 * b.g.stored_elems * b.g.in_bytes)) << "two row buffers held";
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
  RereadStream reread("reread", b.g, rows, dram);
  HandshakeFifo<Grant> to_normalize("to_normalize", 1024);
  HandshakeFifo<double> sums("sums", 4, HandshakeFifo<double>::Wake::next_delta);
  TimedSource<double> lanes("lanes");
  Sink<Grant> normalize("normalize");
  reread.to_normalize(to_normalize);
  reread.sum_in_dram(sums);
  lanes.out(sums);
  normalize.in(to_normalize);
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
  NormalizeUnit norm("normalize", b.g, {4, true, nullptr}, dram, sram, &arith);
  HandshakeFifo<RowSlot*> from_rsqrt("from_rsqrt", 4), free_slots("free", 4);
  HandshakeFifo<Grant> reread("reread", 1);
  CycleSignal params("params");
  TimedSource<RowSlot*> stats("stats");
  Sink<RowSlot*> back("back");
  norm.from_rsqrt(from_rsqrt);
  norm.free_slots(free_slots);
  norm.reread(reread);
  norm.params_on_chip(params);
  stats.out(from_rsqrt);
  back.in(free_slots);
  params.announce(250);
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
  SeparateAdderPass pass("pass", b.g, dram);
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

// The registry: each DRAM traffic kind is requested by exactly one unit,
// every fixed-point stage is computed by some unit, names are unique, and a
// run elaborates exactly the units its geometry enables, in the registry's order.
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
  for (int k = 0; k < kTrafficKinds; ++k) EXPECT_EQ(movers[k], 1) << to_string(static_cast<Traffic>(k));
  for (int s = 0; s < core::kStageCount; ++s) EXPECT_GE(computers[s], 1) << core::to_string(static_cast<core::Stage>(s));
}

TEST(AsicUnits, TheAcceleratorBuildsTheUnitsItsGeometryEnables) {
  Bench b("postnorm-7b", 8);
  b.a.fuse.mode = config::FuseMode::none;  // a separate adder's pass; SRAM replay: no re-read stream
  b.g = make_run_geometry(b.w, b.a, b.cfg);
  NormAccelerator top("top", b.g, b.cfg, core::MergeSchedule{b.a.lanes, b.a.merge.units}, nullptr);
  std::vector<std::string> built;
  for (const sc_core::sc_object* o : top.get_child_objects())
    if (dynamic_cast<const sc_core::sc_module*>(o)) built.push_back(o->basename());
  const std::vector<std::string> expected = {"dram", "sram", "residual_adder_pass", "input_path", "chan_merge_tree",
                                             "rsqrt", "welford_lanes", "normalize"};
  EXPECT_EQ(built, expected);
  std::vector<std::string> counted;
  for (const core::StatSet& s : top.stats()) counted.push_back(s.unit);
  EXPECT_EQ(counted, (std::vector<std::string>{"residual_adder_pass", "chan_merge_tree", "welford_lanes", "normalize",
                                               "dram", "sram"}));
  sc_core::sc_start();
  EXPECT_EQ(top.normalize().rows_done(), 8);
}

// The netlist: every port a unit declares is an sc_port of the built module
// and every sc_port of a module is declared (a port the registry does not
// name would be bound by nothing); each FIFO has one writer and one reader
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
    if (k.channel->name == "free_row_buffers") EXPECT_EQ(k.depth, 3);
    fifo_ends.insert(k.writer.unit + "." + k.writer.port);
    fifo_ends.insert(k.readers[0].unit + "." + k.readers[0].port);
  }
  NormAccelerator top("top", b.g, b.cfg, core::MergeSchedule{b.a.lanes, b.a.merge.units}, nullptr);
  for (const AsicUnitEntry* e : n.units) {
    if (!e->make) continue;  // an after-rows pass: no module
    const sc_core::sc_object* unit = nullptr;
    for (const sc_core::sc_object* o : top.get_child_objects())
      if (e->name == o->basename()) unit = o;
    ASSERT_NE(unit, nullptr) << e->name;
    std::set<std::string> ports, declared;
    for (const sc_core::sc_object* o : unit->get_child_objects())
      if (dynamic_cast<const sc_core::sc_port_base*>(o)) ports.insert(o->basename());
    for (const PortDecl& p : e->ports) {
      const ChannelDecl& d = accelerator_channel(p.channel);
      // A transport's target implements it: no sc_port of its own.
      if (d.kind == ChannelKind::transport && p.dir == PortDir::in) EXPECT_EQ(d.target, e->name);
      else declared.insert(std::string(p.port));
    }
    EXPECT_EQ(ports, declared) << e->name;
  }
  EXPECT_TRUE(fifo_ends.count("reread_stream.to_normalize") && fifo_ends.count("normalize.reread"));
  sc_core::sc_start();
  EXPECT_EQ(top.normalize().rows_done(), 8);
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
                                       {"bert-large", "asic-fp32", 0, config::FuseMode::none, core::VarianceAlgorithm::single_pass}};
  std::set<std::string> seen;
  for (const Design& d : designs) {
    Bench b(d.workload, 4, d.arch);
    b.a.merge.units = d.merge_units;
    b.a.fuse.mode = d.fuse;
    b.a.algorithm = d.algorithm;
    const area::AreaReport ar =
        area::estimate_area(config::datapath_config(b.w, b.a), {}, b.cfg.node, b.cfg.latency.merge_level_cycles);
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
