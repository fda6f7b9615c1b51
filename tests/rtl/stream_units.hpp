// What the forward unit's benches share (tests/test_rtl_welford_lanes.cpp,
// tests/test_rtl_forward.cpp): a design of the whole forward unit, its
// random draw, its geometry, the SystemC streams into the normalise unit
// (InputPathUnit, WelfordLaneArray with a dedicated ChanMergeTree and the
// RsqrtUnit, RereadStream) bound to each other and to recording memories
// as the netlist binds them, and the bench inputs both RTL tops take.
#pragma once

#include <systemc.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sim/asic/chan_merge_tree.hpp"
#include "sim/asic/cycle_signal.hpp"
#include "sim/asic/handshake_fifo.hpp"
#include "sim/asic/input_path_unit.hpp"
#include "sim/asic/reread_stream.hpp"
#include "sim/asic/rsqrt_unit.hpp"
#include "sim/asic/separate_adder_pass.hpp"
#include "sim/asic/welford_lane_array.hpp"
#include "sim/core/merge_schedule.hpp"
#include "tests/rtl/unit_bench.hpp"

namespace normsim::rtl_test {

struct UnitDesign : StreamDesign {
  uint32_t sram_rate = 16, sram_latency = 1;  // the SRAM port: banks x access bytes a cycle, cycles to the first
  bool sram_dual = false;                     // two ports a bank: the writes on a port of their own
  int64_t stored_elems = 0;                   // the part of a row the replay path keeps
  int lanes = 16;
  int welford_latency = 1, level_cycles = 1, rsqrt_latency = 1;
  int merge_units = 0;     // the merge tree's units (0: a dedicated tree)
  int residual_bytes = 0;  // r beside x: a fused residual (0: none)
  int adder_r_bytes = 0;   // r's bytes for a separate adder's pass ahead of the rows (0: none)
  bool sum_all = false;    // fused: all of z written (else what is re-read)
  int reread_fifo = 1;     // the re-read FIFO's transactions
  int out_bytes = 4;       // y's
  bool write_stats = false;
  int stats_bytes = 8;     // a row's statistics, when written
  int lanes_fifo = 32;     // the FIFO from the input path to the lanes (netlist.cpp: input_to_lanes)
  std::string label() const {
    return StreamDesign::label() + ", " + std::to_string(stored_elems) + " elements kept, " + std::to_string(lanes) +
           " lanes, SRAM " + std::to_string(sram_rate) + " B/cycle latency " + std::to_string(sram_latency) +
           (sram_dual ? " two ports a bank" : "") +
           (merge_units ? ", " + std::to_string(merge_units) + " shared merge units" : "") +
           (residual_bytes ? sum_all ? ", fused (all of z written)" : ", fused" : "") +
           (adder_r_bytes ? ", a separate adder's pass first" : "") + ", re-read FIFO of " +
           std::to_string(reread_fifo) + ", lanes' FIFO of " + std::to_string(lanes_fifo) + ", y " + std::to_string(out_bytes) + " B" +
           (write_stats ? ", statistics written" : "");
  }
  bool rereads() const { return stored_elems < hidden; }
  /// The transactions of a row that re-read something.
  int reread_chunks() const {
    int n = 0;
    for (int k = 0; k < chunks(); ++k) n += stored_elems < k * chunk_elems + chunk_size(k);
    return n;
  }
  /// The merge tree's schedule: a dedicated tree, or shared merge units.
  core::MergeSchedule merge() const { return core::MergeSchedule{lanes, merge_units}; }
  /// Random: the stream's (StreamDesign::randomise), 4 to 32 lanes, the
  /// whole row, none or part of it kept, SRAMs of 16 to 512 bytes a cycle
  /// and 1 to 4 cycles (two ports a bank in half), pipeline latencies of 4
  /// to 41 cycles, a fused residual in a third of the designs, FIFOs to the
  /// lanes of 2 to 32 and re-read FIFOs of 1 to 16, shared merge units in
  /// a third (1 to lanes - 2 of them), y of 2 or 4 bytes,
  /// statistics written in half; as many rows as finish. With
  /// `separate_adders`, half of the unfused designs make z in a
  /// separate adder's pass first.
  void randomise_unit(std::mt19937_64& rng, int index, int64_t edges, bool separate_adders = false) {
    in_bytes = rng() % 2 ? 2 : 4;
    randomise(rng, index, edges);
    sram_rate = 16u << (rng() % 6);
    sram_latency = 1 + static_cast<uint32_t>(rng() % 4);
    lanes = 4 << (rng() % 4);
    const int path = static_cast<int>(rng() % 3);
    stored_elems = path == 0 ? hidden : path == 1 ? 0 : static_cast<int64_t>(rng() % static_cast<uint64_t>(hidden));
    welford_latency = 1 + static_cast<int>(rng() % 6);
    level_cycles = 1 + static_cast<int>(rng() % 3);
    rsqrt_latency = 1 + static_cast<int>(rng() % 20);
    residual_bytes = rng() % 3 == 0 ? in_bytes : 0;
    sum_all = residual_bytes && rng() % 2;
    reread_fifo = 1 + static_cast<int>(rng() % 16);
    out_bytes = rng() % 2 ? 2 : 4;
    write_stats = rng() % 2;
    row_buffers = std::min(row_buffers, 8);
    lanes_fifo = 2 + static_cast<int>(mix(seed) % 31);  // from the seed: the other draws stay as they were
    sram_dual = mix(seed + 1) % 2;
    merge_units = mix(seed + 3) % 3 == 0 ? 1 + static_cast<int>(mix(seed + 4) % static_cast<uint64_t>(lanes - 2)) : 0;
    adder_r_bytes = separate_adders && !residual_bytes && mix(seed + 2) % 2 == 0 ? in_bytes : 0;
    // The port moves x, r and z (fused), x again (re-read) and y.
    const int port_bytes = in_bytes + 2 * residual_bytes + (rereads() ? in_bytes : 0) + out_bytes + (adder_r_bytes ? 3 * in_bytes : 0);
    rows = rows_within(edges, rows, chunks(), static_cast<uint64_t>(chunk_elems * port_bytes), window_bytes,
                       bytes_per_cycle(), latency, row_buffers);
  }
};

/// `count` random designs from `seed`, each finishing within `edges`.
inline std::vector<UnitDesign> unit_designs(uint64_t seed, int count, int64_t edges, bool separate_adders = false) {
  std::mt19937_64 rng(seed);
  std::vector<UnitDesign> out(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) out[static_cast<size_t>(i)].randomise_unit(rng, i, edges, separate_adders);
  return out;
}

inline asic::RunGeometry geometry_of(const UnitDesign& d) {
  asic::RunGeometry g;
  g.rows = d.rows;
  g.hidden = d.hidden;
  g.chunk_elems = d.chunk_elems;
  g.chunks = d.chunks();
  g.lanes = d.lanes;
  g.in_bytes = d.in_bytes;
  g.out_bytes = d.out_bytes;
  g.stored_elems = d.stored_elems;
  g.param_bytes = 2 * d.hidden * 4;
  g.residual_bytes = d.adder_r_bytes ? d.adder_r_bytes : d.residual_bytes;
  g.fusion = d.residual_bytes ? asic::Fusion::fused : d.adder_r_bytes ? asic::Fusion::separate_adder : asic::Fusion::none;
  g.sum_written_all = d.sum_all;
  g.reread_fifo_transactions = d.reread_fifo;
  g.stats_bytes_per_row = d.stats_bytes;
  return g;
}

/// The SystemC streams into the normalise unit, bound to each other and to
/// recording memories; the normalise unit's channels (to_normalize,
/// reread_fifo, free_slots) are left for a bench to drive or to bind.
struct StreamUnits {
  const asic::RunGeometry g;
  const asic::RowLimit limit;
  const std::string tag;
  RecordingMemory dram, sram;
  asic::InputPathUnit input;
  asic::WelfordLaneArray lanes;
  asic::ChanMergeTree tree;
  asic::RsqrtUnit rsqrt;
  asic::RereadStream reread;
  asic::HandshakeFifo<asic::RowSlot*> free_slots, to_normalize;
  asic::HandshakeFifo<asic::ChunkToken> to_lanes;
  asic::HandshakeFifo<double> sums;
  asic::HandshakeFifo<asic::Grant> reread_fifo;
  asic::CycleSignal params, adder;
  std::vector<asic::RowSlot> slots;
  std::unique_ptr<asic::SeparateAdderPass> adder_pass;  // the unfused baseline's (adder_r_bytes)

  explicit StreamUnits(const UnitDesign& d)
      : g(geometry_of(d)),
        limit(d.rows),
        tag(std::to_string(d.seed)),
        dram(("dram_" + tag).c_str(), d.bytes_per_cycle(), d.latency, asic::Traffic::input),
        sram(("sram_" + tag).c_str(), d.sram_rate, d.sram_latency, asic::Traffic::input, d.sram_dual),
        input(("input_path_" + tag).c_str(), g, limit, static_cast<double>(d.window_bytes), d.row_buffers, nullptr),
        lanes(("welford_lanes_" + tag).c_str(), g, d.welford_latency, nullptr),
        tree(("tree_" + tag).c_str(), asic::ChanMergeTree::Config{d.merge(), d.level_cycles, 1}, nullptr),
        rsqrt(("rsqrt_" + tag).c_str(), d.rsqrt_latency, nullptr),
        reread(("reread_stream_" + tag).c_str(), g, limit),
        free_slots(("free_" + tag).c_str(), d.row_buffers),
        to_normalize(("to_normalize_" + tag).c_str(), d.row_buffers),
        to_lanes(("to_lanes_" + tag).c_str(), d.lanes_fifo),
        sums(("sums_" + tag).c_str(), d.row_buffers),
        reread_fifo(("reread_fifo_" + tag).c_str(), d.reread_fifo),
        params(("params_" + tag).c_str()),
        adder(("adder_" + tag).c_str()),
        slots(static_cast<size_t>(d.row_buffers)) {
    input.set_cycle_slot(asic::cycle_slot("input_path"));
    lanes.set_cycle_slot(asic::cycle_slot("welford_lanes"));
    reread.set_cycle_slot(asic::cycle_slot("reread_stream"));
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
    reread.to_output(reread_fifo);
    reread.sum_in_dram(sums);
    reread.dram(dram);
    for (asic::RowSlot& s : slots) free_slots.preload(&s);
    if (d.adder_r_bytes) {
      adder_pass = std::make_unique<asic::SeparateAdderPass>(("adder_pass_" + tag).c_str(), g, static_cast<double>(d.window_bytes));
      adder_pass->set_cycle_slot(asic::cycle_slot("residual_adder_pass"));
      adder_pass->done(adder);
      adder_pass->dram(dram);
    }
  }
};

/// The inputs both RTL tops (tb_streams.v, tb_forward.v) take from a design.
template <class Bench>
void write_unit_inputs(Bench& b, const UnitDesign& d) {
  b.sram_rate.write(d.sram_rate);
  b.sram_latency.write(d.sram_latency);
  b.sram_dual.write(d.sram_dual);
  b.chunk_elems.write(static_cast<uint32_t>(d.chunk_elems));
  b.last_elems.write(static_cast<uint32_t>(d.last_elems()));
  b.stored_elems.write(static_cast<uint32_t>(d.stored_elems));
  b.elem_bytes.write(static_cast<uint32_t>(d.in_bytes));
  b.lanes.write(static_cast<uint32_t>(d.lanes));
  b.lanes_latency.write(static_cast<uint32_t>(d.welford_latency));
  b.merge_latency.write(static_cast<uint32_t>(d.merge().latency_cycles(d.level_cycles)));
  b.merge_occupancy.write(static_cast<uint32_t>(d.merge().occupancy_cycles(d.level_cycles)));
  b.finish_latency.write(static_cast<uint32_t>(d.rsqrt_latency));
  b.param_bytes.write(static_cast<uint32_t>(2 * d.hidden * 4));
  b.window_bytes.write(static_cast<uint32_t>(d.window_bytes));
  b.row_buffers.write(static_cast<uint32_t>(d.row_buffers));
  b.lanes_fifo.write(static_cast<uint32_t>(d.lanes_fifo));
  b.residual_bytes.write(static_cast<uint32_t>(d.residual_bytes));
  b.sum_all.write(d.sum_all);
}

/// What the streams did at an edge, from either top's outputs.
template <class Bench, class Edge>
void read_stream_outputs(Bench& b, Edge& x) {
  x.issued = static_cast<int>(b.issued.read());
  x.tokens = static_cast<int>(b.tokens.read());
  x.buffers = static_cast<int>(b.buffers_taken.read());
  x.taken = static_cast<int>(b.taken.read());
  x.sram_writes = static_cast<int>(b.sram_writes.read());
  x.rows = static_cast<int>(b.rows_out.read());
  x.sum_writes = static_cast<int>(b.sum_writes.read());
  x.sums = static_cast<int>(b.sums_out.read());
  x.reread_issued = static_cast<int>(b.reread_issued.read());
  x.reread_tokens = static_cast<int>(b.reread_tokens.read());
  x.dram_done = static_cast<int>(b.port_done.read());
  x.sram_done = static_cast<int>(b.sram_done.read());
}

/// How the streams' parts of an edge differ, model / RTL.
template <class Edge>
std::string describe_streams(const Edge& m, const Edge& r) {
  return "input issued " + both(m.issued, r.issued) + ", handed over " + both(m.tokens, r.tokens) + ", buffers " +
         both(m.buffers, r.buffers) + "; lanes took " + both(m.taken, r.taken) + ", row-buffer writes " +
         both(m.sram_writes, r.sram_writes) + ", rows out " + both(m.rows, r.rows) + ", z writes " +
         both(m.sum_writes, r.sum_writes) + ", announced " + both(m.sums, r.sums) + "; re-read issued " +
         both(m.reread_issued, r.reread_issued) + ", into its FIFO " + both(m.reread_tokens, r.reread_tokens) +
         "; DRAM done " + both(m.dram_done, r.dram_done) + ", SRAM done " + both(m.sram_done, r.sram_done);
}

}  // namespace normsim::rtl_test
