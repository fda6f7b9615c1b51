// `normsim run --rtl-full`'s verdict (compare_edge_logs, rtl_unit.hpp): two
// edge logs equal act for act give the account; any act at another edge,
// missing or extra -- or a request at the same edge of another size -- stops
// the run with one line naming the earliest such act's row, unit and both
// edges (or both sizes). The logs here are made by hand, so each
// difference is one the test planted; tests/rtl/test_run_rtl_full.sh runs
// the verilated unit itself on the shipped workloads.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "sim/asic/edge_log.hpp"
#include "sim/asic/rtl_unit.hpp"
#include "sim/config/config_error.hpp"

int sc_main(int, char**) { return 0; }  // libsystemc wants one; gtest's main runs the tests

namespace {
using normsim::asic::compare_edge_logs;
using normsim::asic::EdgeLog;

// Four rows of two transactions each: reads, hand-overs, outputs, buffers back, the port's ends.
EdgeLog four_rows() {
  EdgeLog log;
  for (int row = 0; row < 4; ++row) {
    const int64_t e = 10 * row;
    log.add("dram.input", e + 1, 2);
    log.add_bytes("dram.input", e + 1, 2 * 1024);
    log.add("input_to_lanes.write", e + 1);
    log.add("input_to_lanes.write", e + 2);
    log.add("dram.output", e + 8, 2);
    log.add_bytes("dram.output", e + 8, 2 * 2048);
    log.add("free_row_buffers.write", e + 9);
    log.add("dram.done", e + 5, 2);
    log.add("dram.done", e + 12, 2);
  }
  log.add("dram.grad", 0);  // logged by a backward's model, not a compared act
  return log;
}

// `stream` of `from` into `to`: its acts' edges and its bytes.
void copy(const EdgeLog& from, EdgeLog& to, const char* stream) {
  for (int64_t e : from.edges(stream)) to.add(stream, e);
  for (const auto& [e, bytes] : from.bytes(stream)) to.add_bytes(stream, e, bytes);
}

std::string difference(const EdgeLog& model, const EdgeLog& rtl) {
  try {
    compare_edge_logs(model, rtl, 4);
  } catch (const normsim::config::CheckFailure& e) {
    return e.what();
  }
  return "";
}

TEST(RtlUnitCompare, EqualLogsGiveEveryActsAccount) {
  const auto check = compare_edge_logs(four_rows(), four_rows(), 4);
  EXPECT_EQ(check.rows, 4);
  EXPECT_EQ(check.acts_compared, 8 + 8 + 8 + 4 + 16);
  ASSERT_EQ(check.streams.size(), 5u);
  EXPECT_EQ(check.streams[0].unit, "input_path");
  EXPECT_EQ(check.streams[0].act, "x read issued");
  EXPECT_EQ(check.streams[0].acts, 8);
  EXPECT_EQ(check.streams[0].last_cycle, 31);
  EXPECT_EQ(check.streams[0].bytes, 8 * 1024);
  EXPECT_EQ(check.streams.back().stream, "dram.done");
  EXPECT_EQ(check.streams.back().last_cycle, 42);
  EXPECT_EQ(check.streams.back().bytes, 0);  // an end moves no bytes of its own
  EXPECT_EQ(check.dram_bytes_compared, 4 * (2 * 1024 + 2 * 2048));
  EXPECT_EQ(check.sram_bytes_compared, 0);
}

TEST(RtlUnitCompare, ARequestOfAnotherSizeNamesItsRowUnitAndBothSizes) {
  const EdgeLog model = four_rows();
  EdgeLog rtl;
  for (const char* s : {"dram.input", "input_to_lanes.write", "free_row_buffers.write", "dram.done"}) copy(model, rtl, s);
  // Row 1's outputs at the same edges, but half the bytes at the second.
  for (int64_t e : model.edges("dram.output")) rtl.add("dram.output", e);
  for (const auto& [e, bytes] : model.bytes("dram.output")) rtl.add_bytes("dram.output", e, e == 18 ? bytes / 2 : bytes);
  EXPECT_EQ(difference(model, rtl), "--rtl-full: row 1, normalize: output write at cycle 18: 4096 bytes in the model, 2048 in the RTL");
  // A request the RTL asks nothing for at an edge is 0 bytes there.
  EdgeLog none;
  for (const char* s : {"dram.input", "input_to_lanes.write", "free_row_buffers.write", "dram.done"}) copy(model, none, s);
  for (int64_t e : model.edges("dram.output")) none.add("dram.output", e);
  EXPECT_EQ(difference(model, none), "--rtl-full: row 0, normalize: output write at cycle 8: 4096 bytes in the model, 0 in the RTL");
}

TEST(RtlUnitCompare, AnActACycleLateNamesItsRowUnitAndBothEdges) {
  EdgeLog rtl;
  const EdgeLog model = four_rows();
  for (const char* s : {"dram.input", "dram.output", "free_row_buffers.write", "dram.done"}) copy(model, rtl, s);
  const auto& handed = model.edges("input_to_lanes.write");
  for (size_t i = 0; i < handed.size(); ++i) rtl.add("input_to_lanes.write", handed[i] + (i == 5 ? 1 : 0));
  EXPECT_EQ(difference(model, rtl),
            "--rtl-full: row 2, input_path: transaction handed to the lanes #6: at cycle 22 in the model, at cycle 23 in the RTL");
}

TEST(RtlUnitCompare, AMissingOrExtraActIsNeverOnOneSide) {
  const EdgeLog model = four_rows();
  EdgeLog more = four_rows();
  more.add("free_row_buffers.write", 40);
  EXPECT_EQ(difference(model, more), "--rtl-full: normalize: row buffer handed back #5: never in the model, at cycle 40 in the RTL");
  // The RTL lacks row 3's second output: the first act that differs is that one.
  EdgeLog short_rtl;
  for (const char* s : {"dram.input", "input_to_lanes.write", "free_row_buffers.write", "dram.done"}) copy(model, short_rtl, s);
  const auto& out = model.edges("dram.output");
  for (size_t i = 0; i + 1 < out.size(); ++i) short_rtl.add("dram.output", out[i]);
  for (const auto& [e, bytes] : model.bytes("dram.output")) short_rtl.add_bytes("dram.output", e, bytes);
  EXPECT_EQ(difference(model, short_rtl), "--rtl-full: row 3, normalize: output write #8: at cycle 38 in the model, never in the RTL");
}

TEST(RtlUnitCompare, TheEarliestDifferenceIsTheOneNamed) {
  const EdgeLog model = four_rows();
  EdgeLog rtl;
  for (const char* s : {"dram.input", "input_to_lanes.write", "dram.output"}) copy(model, rtl, s);
  // Row 3's buffer back a cycle early, and a port's end at cycle 5 a cycle late: the end is first.
  for (int64_t e : model.edges("free_row_buffers.write")) rtl.add("free_row_buffers.write", e == 39 ? 38 : e);
  const auto& done = model.edges("dram.done");
  for (size_t i = 0; i < done.size(); ++i) rtl.add("dram.done", done[i] + (i == 1 ? 1 : 0));
  // The port's ends come in time order, not a fixed number a row: no row is named.
  EXPECT_EQ(difference(model, rtl), "--rtl-full: dram: request's last byte #2: at cycle 5 in the model, at cycle 6 in the RTL");
}

}  // namespace
