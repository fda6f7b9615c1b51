// The SystemC model against sim/core and against its own closed forms. Every
// TEST runs in its own process (SystemC elaborates once); comparisons that
// need two simulations go through the CLI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "sim/asic/asic_run.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/functional_run.hpp"

using namespace normsim;
using nlohmann::json;

extern "C" int sc_main(int, char**) { return 0; }  // libsystemc wants one; gtest's main runs the tests

namespace {
std::string src() { return std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR; }
std::string bin() { return std::string(std::getenv("NORMSIM_BINARY_DIR") ? std::getenv("NORMSIM_BINARY_DIR") : NORMSIM_TEST_BINARY_DIR) + "/normsim"; }
config::Arch arch(const std::string& n = "asic-default") {
  return config::load_arch(src() + "/workloads/arch/" + n + ".yaml");
}
config::Workload workload(const std::string& n, int64_t rows) {
  auto w = config::load_workload(src() + "/workloads/" + n + ".yaml");
  w.rows = rows;
  return w;
}
json cli(const std::string& args) {
  const std::string cmd = bin() + " " + args + " --json -q";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << cmd;
  return json::parse(out);
}
}  // namespace

class AsicMatchesCore : public ::testing::TestWithParam<std::string> {};

TEST_P(AsicMatchesCore, OutputsAreBitIdenticalToTheFunctionalPipeline) {
  const auto w = workload(GetParam(), 6);
  auto a = arch();
  a.asic->sram.capacity_bytes = uint64_t(8) << 20;  // long-row's 256 KiB rows fit
  const core::FunctionalResult fr = core::run_functional(w, config::datapath_config(w, a), true);
  const core::KeptOutputs& f = fr.outputs;
  asic::AsicOptions ao;
  ao.keep_outputs = true;
  ao.path = asic::InputPath::partial_replay;  // SRAM and DRAM sources in the same row
  const asic::AsicResult s = asic::run_asic(w, a, ao);
  ASSERT_EQ(s.outputs.y.size(), f.y.size());
  for (size_t i = 0; i < f.y.size(); ++i) {
    if (!(std::isnan(f.y[i]) && std::isnan(s.outputs.y[i]))) {
      ASSERT_EQ(s.outputs.y[i], f.y[i]) << "element " << i;
    }
  }
  EXPECT_EQ(s.outputs.mean, f.mean);
  EXPECT_EQ(s.outputs.rstd, f.rstd);
  for (int st = 0; st < core::kStageCount; ++st) {
    EXPECT_EQ(s.numerics.counters.overflows[st], fr.numerics.counters.overflows[st]);
    EXPECT_EQ(s.numerics.counters.quantizations[st], fr.numerics.counters.quantizations[st]);
  }
  EXPECT_EQ(s.numerics.output_error.rel_l2(), fr.numerics.output_error.rel_l2());
}

INSTANTIATE_TEST_SUITE_P(ShippedWorkloads, AsicMatchesCore,
                         ::testing::Values("gpt2-small", "bert-large", "llama2-7b", "llama3-70b", "long-row",
                                           "cancellation", "int8"),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (auto& c : s)
                             if (c == '-') c = '_';
                           return s;
                         });

TEST(AsicModel, SinglePassClampsCountedLikeTheCore) {
  const auto w = workload("cancellation", 16);
  auto a = arch();
  a.formats[static_cast<int>(core::Stage::input)].total_bits = 32;  // hold 1e4
  a.formats[static_cast<int>(core::Stage::mean)].total_bits = 40;
  const auto f = core::run_functional(w, config::datapath_config(w, a, core::VarianceAlgorithm::single_pass), false);
  asic::AsicOptions ao;
  ao.algorithm = core::VarianceAlgorithm::single_pass;
  const auto s = asic::run_asic(w, a, ao);
  EXPECT_GT(f.numerics.counters.negative_variance_clamps, 0u);
  EXPECT_EQ(s.numerics.counters.negative_variance_clamps, f.numerics.counters.negative_variance_clamps);
}

class AsicTrafficIdentity : public ::testing::TestWithParam<asic::InputPath> {};

TEST_P(AsicTrafficIdentity, DramBytesEqualTheClosedFormExactly) {
  const auto w = workload("llama2-7b", 96);  // bf16 in and out, RMSNorm: params = C*2 (gamma s16.13), stats = N*4
  asic::AsicOptions o;
  o.path = GetParam();
  o.numerics = false;
  const auto r = asic::run_asic(w, arch(), o);
  const uint64_t N = 96, C = 4096;
  const uint64_t f_elems = GetParam() == asic::InputPath::sram_replay ? C : GetParam() == asic::InputPath::dram_reread ? 0 : C / 2;
  EXPECT_EQ(r.dram_bytes_read, N * C * 2 + N * (C - f_elems) * 2 + C * 2);
  EXPECT_EQ(r.dram_bytes_written, N * C * 2 + N * 4);
  EXPECT_EQ(r.dram_bytes_read, r.expected.dram_bytes_read);
  EXPECT_EQ(r.dram_bytes_written, r.expected.dram_bytes_written);
  EXPECT_EQ(r.dram_bytes[static_cast<int>(asic::Traffic::input)], N * C * 2);
  EXPECT_EQ(r.dram_bytes[static_cast<int>(asic::Traffic::input_reread)], N * (C - f_elems) * 2);
  const uint64_t rows_in_flight = static_cast<uint64_t>(r.cfg.rows_in_flight);
  EXPECT_EQ(r.sram_peak_bytes, C * 2 + rows_in_flight * f_elems * 2);  // params + the row buffers' stored part
  // The SRAM: rows stored and replayed, gamma written once and read every row, the re-read through its FIFO.
  EXPECT_EQ(r.sram_bytes_written, N * f_elems * 2 + C * 2 + N * (C - f_elems) * 2);
  EXPECT_EQ(r.sram_bytes_read, N * f_elems * 2 + N * C * 2 + N * (C - f_elems) * 2);
  EXPECT_EQ(r.sram_bytes_written, r.expected.sram_bytes_written);
  EXPECT_EQ(r.sram_bytes_read, r.expected.sram_bytes_read);
  EXPECT_GE(r.cycles, r.expected.lower_bound_cycles);
  // Phases: the first statistics need at least a DRAM latency and a row of lanes.
  EXPECT_GT(r.first_stats_cycle, r.cfg.dram_port().latency_cycles.value() + C / 16.0);
  EXPECT_LT(r.first_stats_cycle, r.last_lanes_cycle);
  EXPECT_LT(r.last_lanes_cycle, r.cycles);
}

INSTANTIATE_TEST_SUITE_P(Paths, AsicTrafficIdentity,
                         ::testing::Values(asic::InputPath::sram_replay, asic::InputPath::dram_reread,
                                           asic::InputPath::partial_replay),
                         [](const auto& info) { return std::string(info.param == asic::InputPath::sram_replay ? "sram_replay"
                                                                   : info.param == asic::InputPath::dram_reread ? "dram_reread"
                                                                                                              : "partial_replay"); });

TEST(AsicModel, SramReplayOnLlama3IsWithinFivePercentOfTheBound) {
  auto a = arch();
  a.asic->rows_in_flight = 4;
  asic::AsicOptions o;
  o.numerics = false;
  const auto r = asic::run_asic(config::load_workload(src() + "/workloads/llama3-70b.yaml"), a, o);
  EXPECT_GE(r.cycles, r.expected.lower_bound_cycles);
  EXPECT_LE(r.cycles, 1.05 * r.expected.lower_bound_cycles);
}

TEST(AsicModel, ShortRowsOnManyDatapathsStreamAtTheDramBound) {
  // gpu-warp: 528 datapaths of 32 lanes take a 1024-element row in about a
  // cycle, the SRAM's latency is 2: the replay reads must run ahead of the
  // lanes, or the latency (not the DRAM) sets the pace, 3 cycles a row.
  auto a = arch("gpu-warp");
  a.asic->rows_in_flight = 4224;  // the SIMT model's rows in flight for fast_ln at this shape
  auto w = workload("llama2-7b", 65536);
  w.hidden = 1024;
  w.input.dtype = w.output.dtype = core::ElemType::bf16;
  asic::AsicOptions o;
  o.numerics = false;
  const auto r = asic::run_asic(w, a, o);
  EXPECT_GE(r.cycles, r.expected.lower_bound_cycles);
  EXPECT_LE(r.cycles, 1.03 * r.expected.lower_bound_cycles);  // the fill and drain: a DRAM latency each
  EXPECT_LT(r.cycles, 2.5 * static_cast<double>(w.rows));
}

TEST(AsicModel, TimingOnlyGivesIdenticalCyclesAndTraffic) {
  for (const char* path : {"sram-replay", "dram-reread", "partial-replay"}) {
    const std::string args = "run " + src() + "/workloads/gpt2-small.yaml --arch " + src() +
                             "/workloads/arch/asic-default.yaml --set workload.batch=1 --set workload.seq=64 --path " + path;
    const json full = cli(args), fast = cli(args + " --no-numerics");
    EXPECT_EQ(full["timing"]["cycles"], fast["timing"]["cycles"]) << path;
    EXPECT_EQ(full["timing"]["stall_cycles"], fast["timing"]["stall_cycles"]) << path;
    EXPECT_EQ(full["traffic"], fast["traffic"]) << path;
    EXPECT_TRUE(full.contains("numerics"));
    EXPECT_FALSE(fast.contains("numerics"));
  }
}

TEST(AsicModel, HalvingDramBandwidthDoublesCyclesWhenBandwidthBound) {
  // 64 lanes outrun a 32 B/cycle port: DRAM-bound.
  const std::string args = "run " + src() + "/workloads/llama2-7b.yaml --arch " + src() +
                           "/workloads/arch/asic-default.yaml --set workload.seq=512 --set arch.lanes=64 "
                           "--set arch.asic.rows_in_flight=8 --no-numerics --set arch.asic.dram.peak_bytes_per_s=";
  const double full = cli(args + "32e9")["timing"]["cycles"];
  const double half = cli(args + "16e9")["timing"]["cycles"];
  EXPECT_NEAR(half / full, 2.0, 0.1);
}

TEST(AsicModel, TooFewRowsInFlightExposeDramLatency) {
  const std::string args = "run " + src() + "/workloads/llama2-7b.yaml --arch " + src() +
                           "/workloads/arch/asic-default.yaml --set workload.seq=256 --no-numerics --set arch.asic.rows_in_flight=";
  const json one = cli(args + "1"), four = cli(args + "4");
  const double lat1 = one["timing"]["stall_cycles"]["dram_latency"], lat4 = four["timing"]["stall_cycles"]["dram_latency"];
  EXPECT_GT(lat1, 100 * 200.0);  // about a latency per row
  EXPECT_LT(lat4, 1000.0);       // paid once
  EXPECT_GT(one["timing"]["cycles"].get<double>(), 1.5 * four["timing"]["cycles"].get<double>());
}

TEST(AsicModel, SramTooSmallNamesTheMinimumCapacity) {
  auto a = arch();
  a.asic->sram.capacity_bytes = 1024;
  try {
    asic::resolve_asic_config(workload("llama2-7b", 4), a, {});
    FAIL();
  } catch (const config::ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("asic.sram.capacity_bytes"), std::string::npos) << m;
    const uint64_t need = static_cast<uint64_t>(a.asic->rows_in_flight) * 8192 + 8192;  // rows of 8 KiB + gamma (s16.13)
    EXPECT_NE(m.find("needs at least " + std::to_string(need) + " B"), std::string::npos) << m;
  }
  asic::AsicOptions o;
  o.path = asic::InputPath::dram_reread;  // no row buffers: the parameters and the re-read FIFO must fit
  // The FIFO by Little's law: 64 B/cycle x 200 cycles = 12800 B, whole
  // transactions of 2048 bf16 (a quarter of the 16 KiB DRAM window): 3 of 4096 B.
  a.asic->sram.capacity_bytes = 8192 + 12288;
  EXPECT_NO_THROW(asic::resolve_asic_config(workload("llama2-7b", 4), a, o));
  a.asic->sram.capacity_bytes = 8192 + 12288 - 1;
  EXPECT_THROW(asic::resolve_asic_config(workload("llama2-7b", 4), a, o), config::ConfigError);
}

// --- Hand-computed cases (docs/ASIC.md, "Cycles the docs define") -----------
// C = 64, L = 4, fp32 in and out, LayerNorm, gamma and beta s16.13 (2 B
// each), the default arch's latencies: welford 4, merge 3 a level, RSQRT 12,
// normalise 4, DRAM latency 200, SRAM replay.
namespace {
config::Workload c64(int64_t rows) {
  auto w = workload("gpt2-small", rows);
  w.hidden = 64;
  return w;
}
config::Arch c64_arch(double peak_bytes_per_cycle, int rows_in_flight) {
  auto a = arch();
  a.lanes = 4;
  a.asic->dram.peak_bytes_per_s = core::per_second(core::BytesPerCycle(peak_bytes_per_cycle), core::ghz(a.asic->clock_ghz));
  a.asic->rows_in_flight = rows_in_flight;
  return a;
}
asic::AsicResult run_timing(const config::Workload& w, const config::Arch& a) {
  asic::AsicOptions o;
  o.numerics = false;
  return asic::run_asic(w, a, o);
}
// One row through an idle machine:
//   Lat + P/B (gamma, beta first) + max(C/L, X/B) (lanes on the streaming row)
//   + W + merge latency + R (statistics) + C/L (normalise) + Nz + Lat + Y/B (y written)
double one_row_cycles(double B, int merge_cycles) {
  const double Lat = 200, P = 256, X = 256, Y = 256, C_L = 16;
  return Lat + P / B + std::max(C_L, X / B) + 4 + merge_cycles + 12 + C_L + 4 + Lat + Y / B;
}
}  // namespace

TEST(AsicHandComputed, OneRowLatencyBound) {
  const auto r = run_timing(c64(1), c64_arch(64, 1));
  EXPECT_EQ(r.dram_bytes_read, 64u * 4 + 256);   // x + gamma/beta
  EXPECT_EQ(r.dram_bytes_written, 64u * 4 + 8);  // y + mean, rstd
  EXPECT_EQ(r.sram_bytes_written, 64u * 4 + 256);
  EXPECT_EQ(r.sram_bytes_read, 64u * 4 + 256);
  EXPECT_EQ(r.first_stats_cycle, 200 + 4 + 16 + 4 + 2 * 3 + 12);
  EXPECT_EQ(r.cycles, one_row_cycles(64, 2 * 3));  // 466
  EXPECT_EQ(r.cycles, 466);
}

TEST(AsicHandComputed, OneRowBandwidthBound) {
  // 4 B a cycle: each 256-byte transfer takes 64 cycles, longer than the lanes' 16.
  const auto r = run_timing(c64(1), c64_arch(4, 1));
  EXPECT_EQ(r.dram_bytes_read, 512u);
  EXPECT_EQ(r.dram_bytes_written, 264u);
  EXPECT_EQ(r.first_stats_cycle, 200 + 64 + 64 + 4 + 6 + 12);
  EXPECT_EQ(r.cycles, one_row_cycles(4, 6));  // 634
}

TEST(AsicHandComputed, OneRowOnASharedMergeUnit) {
  auto a = c64_arch(64, 1);
  a.merge.units = 1;  // levels of 2 and 1 merges: (2 - 1 + 3) + (1 - 1 + 3) = 7
  const auto r = run_timing(c64(1), a);
  EXPECT_EQ(r.cycles, one_row_cycles(64, 7));  // 467
}

TEST(AsicHandComputed, SixtyFourRowsBandwidthBound) {
  const auto r = run_timing(c64(64), c64_arch(4, 4));
  const uint64_t N = 64, C = 64;
  EXPECT_EQ(r.dram_bytes_read, N * C * 4 + 256);
  EXPECT_EQ(r.dram_bytes_written, N * C * 4 + N * 8);
  EXPECT_EQ(r.sram_bytes_written, N * C * 4 + 256);
  EXPECT_EQ(r.sram_bytes_read, N * C * 4 + N * 256);  // gamma and beta read every row
  // The port moves every byte at 4 B a cycle: its busy cycles are the bound, exactly.
  const double port = static_cast<double>(r.dram_bytes_read + r.dram_bytes_written) / 4;
  EXPECT_EQ(r.expected.lower_bound_cycles, port);  // 8384
  double busy = -1;
  for (const auto& u : r.unit_stats)
    if (u.unit == "dram")
      for (const auto& s : u.stats)
        if (s.name == "busy_cycles") busy = s.value;
  EXPECT_EQ(busy, port);
  // Bandwidth-bound: above the bound by at most the first request's latency,
  // the last write's and one row's pipeline.
  EXPECT_GE(r.cycles, port);
  EXPECT_LE(r.cycles, port + 2 * 200 + (4 + 6 + 12 + 16 + 4));
}

TEST(AsicHandComputed, SixtyFourRowsLatencyBound) {
  // One row in flight: every row's read waits a whole DRAM latency.
  const auto r = run_timing(c64(64), c64_arch(64, 1));
  EXPECT_EQ(r.dram_bytes_read, 64u * 64 * 4 + 256);
  double latency_stall = 0;
  for (const auto& u : r.unit_stats)
    for (const auto& s : u.stats)
      if (s.name == "stall_cycles.dram_latency") latency_stall += s.value;
  EXPECT_EQ(latency_stall, 64 * 200.0);
  EXPECT_GT(r.cycles, 64 * (200 + 16.0));
}

TEST(AsicHandComputed, AOneUnitMergeBindsShortRows) {
  // C = 16 on 16 lanes: a row holds the lanes 1 cycle and one merge unit
  // 24 (its latency (8-1+3) + (4-1+3) + (2-1+3) + 3 = 23, and the capture).
  auto w = c64(256);
  w.hidden = 16;
  auto a = arch();
  a.merge.units = 1;
  a.asic->rows_in_flight = 256;  // the DRAM's latency hidden
  const auto r = run_timing(w, a);
  EXPECT_EQ(r.expected.lower_bound_cycles, 256 * 24.0);
  EXPECT_GE(r.cycles, r.expected.lower_bound_cycles);
  EXPECT_LE(r.cycles, r.expected.lower_bound_cycles + 2 * 200 + 64);
  double merge_wait = -1;
  for (const auto& u : r.unit_stats)
    if (u.unit == "welford_lanes")
      for (const auto& s : u.stats)
        if (s.name == "stall_cycles.merge_unit") merge_wait = s.value;
  EXPECT_EQ(merge_wait, 255 * (24.0 - 1));  // every row after the first waits out the one before
}

TEST(AsicModel, StallsByCauseDoNotFollowTheTransactionSize) {
  // transaction_elems is the model's granularity, not hardware: at 4096- and
  // 256-element transactions every stall cause agrees within 2% of the cycles.
  for (const char* path : {"sram-replay", "dram-reread", "partial-replay"})
    for (const char* w : {"long-row", "llama2-7b"}) {
      const std::string args = "run " + src() + "/workloads/" + w + ".yaml --arch " + src() +
                               "/workloads/arch/asic-default.yaml --set arch.asic.sram.capacity_bytes=2000000 --no-numerics --path " +
                               path + " --set arch.asic.transaction_elems=";
      const json big = cli(args + "4096")["timing"], small = cli(args + "256")["timing"];
      const double cycles = big["cycles"];
      EXPECT_NEAR(small["cycles"].get<double>(), cycles, 0.02 * cycles) << w << " " << path;
      for (const auto& [cause, v] : big["stall_cycles"].items())
        EXPECT_NEAR(small["stall_cycles"][cause].get<double>(), v.get<double>(), 0.02 * cycles) << w << " " << path << " " << cause;
    }
}
