// The SIMT model: arch file, launch plans, occupancy, the exact byte
// identities of kernels that read x once, the L2 reuse behaviour, the
// hardware rsqrtf table, the kernel registry. The model against the golden
// cases as a whole is tests/test_validate.cpp.
#include <gtest/gtest.h>

#include "tests/golden_paths.hpp"

#include <cmath>
#include <cxxabi.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <set>

#include "sim/config/arch.hpp"
#include "sim/config/config_error.hpp"
#include "sim/core/gz_file.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/core/npy.hpp"
#include "sim/simt/emulate.hpp"
#include "sim/simt/kernels/kernel_registry.hpp"
#include "sim/simt/simt_model.hpp"
#include "sim/validate/golden.hpp"

// libsystemc (linked through sim/validate) calls sc_main, declared extern "C"; gtest's main runs the tests.
extern "C" int sc_main(int, char**) { return 0; }

using namespace normsim;
using namespace normsim::simt;
using normsim::core::read_gz;
using normsim::validate::GoldenCase;
using normsim::validate::load_golden;

namespace {
using normsim::test_paths::golden;
using normsim::test_paths::h200;
using normsim::test_paths::src;
Prediction run(const std::string& k, int64_t rows, int64_t hidden, const std::string& dtype = "fp32", int block = 0) {
  return predict(plan_launch(k, rows, hidden, dtype, block, h200()), h200());
}
// An l2_sweep_probe record: the missed fraction of its re-read, and the
// bytes its second pass inserts per byte of x at normal and at evict-first
// priority (the re-read by its hint, the stores of y by theirs).
struct ProbePoint {
  double x_bytes, measured_miss, normal, evict_first;
  bool cs_load, cs_store;
};
ProbePoint probe_point(const nlohmann::json& r, const GpuArch& g) {
  ProbePoint p;
  p.x_bytes = r["bytes"].get<double>();
  p.measured_miss = std::clamp((r["dram__bytes_read.sum"].get<double>() - p.x_bytes) / p.x_bytes, 0.0, 1.0);
  p.cs_load = r["p2"] == "cs";
  p.cs_store = r["store"] == "cs";
  p.normal = (p.cs_load ? 0.0 : 1.0) + (r["store"] == "plain" ? g.l2.reuse.store_weight : 0.0);
  p.evict_first = (p.cs_load ? 1.0 : 0.0) + (p.cs_store ? 1.0 : 0.0);
  return p;
}
}  // namespace

TEST(Simt, ArchFileIsTheEmbeddedDefault) {
  const GpuArch e = default_gpu_arch();
  EXPECT_EQ(e.sms, h200().sms);
  EXPECT_EQ(e.l2.bytes, h200().l2.bytes);
  EXPECT_EQ(e.dram.bytes_per_s, h200().dram.bytes_per_s);
  EXPECT_EQ(e.sms, 132);
  EXPECT_EQ(e.l2.bytes, core::Bytes(62914560.0));
}

TEST(Simt, LaunchPlansFollowNormref) {
  // v6 keeps weight, bias and a row per warp in shared memory; 65536 fp32 does not fit: v5 runs.
  EXPECT_EQ(plan_launch("v6", 1024, 65536, "fp32", 0, h200()).ran, KernelId::v5);
  EXPECT_EQ(plan_launch("v6", 32768, 4096, "fp32", 256, h200()).ran, KernelId::v6);
  EXPECT_EQ(plan_launch("v6", 32768, 4096, "fp32", 512, h200()).ran, KernelId::v5);  // 16 rows of 16 KiB + 32 KiB > 227 KiB
  const LaunchPlan v2 = plan_launch("v2", 100, 768, "fp32", 128, h200());
  ASSERT_EQ(v2.launches.size(), 3u);
  EXPECT_EQ(v2.launches[0].grid, 100);
  EXPECT_EQ(v2.launches[2].grid, (100 * 768 + 127) / 128);
  const LaunchPlan v4 = plan_launch("v4", 1000, 768, "fp32", 256, h200());
  EXPECT_EQ(v4.launches[0].grid, 125);  // 8 warps (rows) per block
  EXPECT_THROW(plan_launch("v4", 8, 64, "bf16", 0, h200()), config::ConfigError);
  EXPECT_THROW(plan_launch("nope", 8, 64, "fp32", 0, h200()), config::ConfigError);
  EXPECT_THROW(plan_launch("v5", 8, 64, "fp32", 33, h200()), config::ConfigError);
  // Every golden case: the grid and block normref launched.
  for (const auto& c : load_golden(golden())) {
    const LaunchPlan p = plan_launch(c.kernel, c.rows, c.hidden, c.dtype, c.block, h200());
    EXPECT_EQ(p.launches.front().grid, c.grid) << c.id;
    EXPECT_EQ(p.block, c.block) << c.id;
  }
  // fast_norm_cluster_stream: two blocks a row, so half as many rows in
  // flight as blocks; a persistent grid of one block an SM (64 registers and
  // 128 KiB of shared memory: the next half-row).
  const LaunchPlan cl = plan_launch("fast_ln", 1024, 65536, "fp32", 0, h200());
  EXPECT_EQ(cl.launches[0].blocks_per_row, 2);
  EXPECT_EQ(cl.launches[0].threads_per_row, 2048);
  EXPECT_EQ(cl.launches[0].grid, 132);
  EXPECT_EQ(cl.launches[0].dynamic_smem_bytes, 128 * 1024);
  EXPECT_EQ(occupancy(cl.launches[0], h200()).rows_in_flight, 66);
  EXPECT_EQ(plan_launch("fast_ln", 10, 65536, "fp32", 0, h200()).launches[0].grid, 20);
  // bwd_twolevel: the backward, then the column sum over its per-block partials.
  const LaunchPlan bw = plan_launch("bwd_twolevel", 8192, 768, "fp32", 0, h200());
  ASSERT_EQ(bw.launches.size(), 2u);
  EXPECT_EQ(bw.launches[0].grid, 1056);  // 8 blocks of 128 threads an SM (64 registers a thread: golden)
  EXPECT_EQ(bw.launches[1].input_bytes, 2 * 1056 * 768 * 4);
}

TEST(Simt, OccupancyMatchesTheKernelsLimits) {
  // v5 block 256: 8 blocks by threads.
  Occupancy o = occupancy(plan_launch("v5", 32768, 4096, "fp32", 256, h200()).launches[0], h200());
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_EQ(o.limiter, "threads");
  // v6 fp32 4096: 160 KiB of shared memory per block: one block.
  o = occupancy(plan_launch("v6", 32768, 4096, "fp32", 256, h200()).launches[0], h200());
  EXPECT_EQ(o.blocks_per_sm, 1);
  EXPECT_EQ(o.limiter, "shared memory");
  EXPECT_EQ(o.rows_in_flight, 132 * 8);
  // welford_warp_reg with 128 values per lane: 166 registers, one block of 8 warps.
  o = occupancy(plan_launch("welford_warp_reg", 32768, 4096, "fp32", 256, h200()).launches[0], h200());
  EXPECT_EQ(o.blocks_per_sm, 1);
  EXPECT_EQ(o.limiter, "registers");
  // Golden ptxas facts: the descriptor's registers are the measured ones.
  for (const auto& c : load_golden(golden())) {
    const LaunchPlan p = plan_launch(c.kernel, c.rows, c.hidden, c.dtype, c.block, h200());
    EXPECT_EQ(p.ran, c.ran) << c.id;
    if (c.kernel != KernelId::v2) {
      EXPECT_EQ(p.launches[0].registers_per_thread, c.registers_per_thread) << c.id;
    }
  }
}

// What every launch reads besides its data: its code and constants.
double launch_bytes(const LaunchPlan& p) {
  double b = 0;
  for (const SubKernel& k : p.launches) b += static_cast<double>(k.code_bytes) + h200().dram.launch_read_bytes.value();
  return b;
}

TEST(Simt, OnePassKernelsReadExactlyTheirCompulsoryBytes) {
  // x once, gamma and beta once, the code and constants once; y and the
  // statistics less what stays dirty in the L2.
  for (const auto& [k, dtype] : std::vector<std::pair<std::string, std::string>>{
           {"v6", "fp32"}, {"v6", "bf16"}, {"welford_block_smem", "bf16"}, {"welford_warp_reg", "fp32"}}) {
    const int64_t N = 4096, C = 4096, eb = dtype == "bf16" ? 2 : 4;
    const Prediction p = run(k, N, C, dtype);
    const double code = launch_bytes(plan_launch(k, N, C, dtype, 0, h200()));
    EXPECT_GT(code, 4096);
    EXPECT_EQ(p.dram_bytes_read, static_cast<double>(N * C * eb + 2 * C * 4) + code) << k << " " << dtype;
    EXPECT_EQ(p.dram_bytes_written, std::max(0.0, static_cast<double>(N * C * eb + 2 * N * 4) - h200().l2.dirty_resident_bytes))
        << k;
  }
  // v2: three launches, each starts cold (ncu flushes): x three times, mean and rstd read back.
  const Prediction v2 = run("v2", 4096, 4096);
  EXPECT_EQ(v2.dram_bytes_read, 3.0 * 4096 * 4096 * 4 + 2 * 4096 * 4 + 3 * 4096 * 4 +
                                    launch_bytes(plan_launch("v2", 4096, 4096, "fp32", 0, h200())));
}

// The code size behind each launch's instruction fetch is the function's
// length in the golden SASS (cuobjdump of the build the cases ran).

TEST(Simt, CodeBytesAndRegistersAreTheGoldenBuilds) {
  // Instructions per function in the golden SASS, by demangled template-id.
  std::map<std::string, int> instructions;
  std::map<std::string, std::pair<double, int>> stalls;  // sum and count of the control codes' stall counts
  std::istringstream sass(read_gz(golden() + "/normref.sass.gz"));
  std::string line, fn;
  const std::regex function(R"(Function : (\S+))"), instr(R"(^\s+/\*[0-9a-f]{4}\*/)");
  const std::regex op(R"(^\s+/\*([0-9a-f]+)\*/\s+(.*?)\s*;)"), self_branch(R"(BRA (?:`\(\.L_x_\d+\) )?0x([0-9a-f]+))"),
      word(R"(/\* 0x([0-9a-f]{16}) \*/)");
  std::smatch m;
  bool control_next = false;  // the previous line's instruction counts: its control word is on this line
  while (std::getline(sass, line)) {
    if (control_next && std::regex_search(line, m, word)) {
      auto& [sum, n] = stalls[fn];
      sum += static_cast<double>((std::stoull(m[1], nullptr, 16) >> 41) & 0xF);
      ++n;
      control_next = false;
      continue;
    }
    control_next = false;
    if (std::regex_search(line, m, function)) {
      int status = 0;
      char* d = abi::__cxa_demangle(std::string(m[1]).c_str(), nullptr, nullptr, &status);
      fn = status == 0 ? std::string(d) : std::string(m[1]);
      std::free(d);
      const auto at = fn.find("normref::dev::");
      fn = at == std::string::npos ? "" : fn.substr(at + 14, fn.find('(') - at - 14);
    } else if (!fn.empty() && std::regex_search(line, instr)) {
      ++instructions[fn];
      std::smatch o, b;
      if (!std::regex_search(line, o, op)) continue;
      const std::string text = o[2];
      const bool closing = std::regex_search(text, b, self_branch) && std::stoul(b[1], nullptr, 16) == std::stoul(o[1], nullptr, 16);
      control_next = text.rfind("NOP", 0) != 0 && !closing;
    }
  }
  ASSERT_GT(instructions.size(), 100u);
  // Every function the table knows is in the SASS with that many instructions and that mean stall.
  for (const auto& [name, n] : instructions) {
    EXPECT_EQ(16 * sass_facts(name).instructions, 16 * n) << name;
    EXPECT_NEAR(sass_facts(name).mean_stall_cycles, stalls[name].first / stalls[name].second, 1e-4) << name;
  }
  // Every golden case's launches: code bytes from the SASS, registers as the GPU reported them.
  int checked = 0;
  for (const auto& c : load_golden(golden())) {
    const LaunchPlan plan = plan_launch(c.kernel, c.rows, c.hidden, c.dtype, c.block, h200());
    for (const SubKernel& k : plan.launches) {
      ASSERT_TRUE(instructions.count(k.function)) << c.id << ": no function " << k.function << " in the SASS";
      EXPECT_EQ(k.code_bytes, 16 * instructions[k.function]) << c.id << " " << k.function;
      ++checked;
    }
    // normref records the first launch's registers (v2: its mean kernel).
    EXPECT_EQ(plan.launches.front().registers_per_thread, c.registers_per_thread) << c.id;
  }
  EXPECT_GE(checked, 215);
}

TEST(Simt, ReReadsMissTheL2OnlyWhenTheRowsInFlightOutgrowIt) {
  // L2-resident input: every re-reading kernel reads x from DRAM once.
  for (const char* k : {"v3", "v4", "v5", "block_reread", "rms_warp", "rms_block"}) {
    const bool rms = std::string(k).rfind("rms", 0) == 0;
    const Prediction p = run(k, 1024, 4096);
    const double compulsory = 1024.0 * 4096 * 4 + (rms ? 1 : 2) * 4096.0 * 4;
    EXPECT_LT(p.dram_bytes_read, compulsory * 1.01) << k;
  }
  // 0.5 GB read by a two-pass warp-per-row kernel with 8448 rows in flight: about twice.
  EXPECT_GT(run("rms_warp", 32768, 4096).dram_bytes_read, 1.9 * 32768 * 4096 * 4);
  // Block 64 keeps 32 rows per SM in flight (4224 rows, 69 MB), block 1024
  // two (264 rows, 4 MB): the larger working set hits the L2 less.
  EXPECT_LT(run("v5", 32768, 4096, "fp32", 64).launches[0].l2_hit, run("v5", 32768, 4096, "fp32", 1024).launches[0].l2_hit);
  EXPECT_EQ(core::reuse_hit_fraction(0, {1e6, 4}), 1.0);
  EXPECT_NEAR(core::reuse_hit_fraction(1e6, {1e6, 4}), 0.5, 1e-12);
  EXPECT_LT(core::reuse_hit_fraction(1e8, {1e6, 4}), 1e-7);
}

TEST(Simt, DramReadElasticityIsZeroForOneReadAndLargeOnTheL2Cliff) {
  // x read once: nothing the caches keep changes the DRAM bytes.
  for (const char* k : {"v2", "v6", "welford_block_smem", "welford_warp_reg", "fast_ln", "fast_rms"}) {
    const Prediction p = run(k, 32768, 4096);
    EXPECT_EQ(p.dram_read_elasticity, 0.0) << k;
    for (const auto& l : p.launches) EXPECT_EQ(l.dram_read_elasticity, 0.0) << k;
  }
  // Re-reads that stay in the L2 (1024 x 4096, 16.8 MB): flat.
  for (const char* k : {"v3", "v4", "v5", "block_reread", "rms_warp", "rms_block"})
    EXPECT_LT(run(k, 1024, 4096).dram_read_elasticity, 0.01) << k;
  // 34.6 MB of x in flight out of phase on the steady curve: a 10% change
  // of it moves block_reread's DRAM bytes by about 10% (elasticity 1.0).
  const Prediction br = run("block_reread", 16384, 8192);
  EXPECT_GT(br.dram_read_elasticity, 0.5);
  EXPECT_LT(br.dram_read_elasticity, 2.0);
  // More x in flight never means fewer misses; the case's value is its
  // launches' weighted by their DRAM bytes read.
  const Prediction bwd = run("bwd_twolevel", 8192, 4096);
  ASSERT_GT(bwd.launches.size(), 1u);
  double weighted = 0;
  for (const auto& l : bwd.launches) {
    EXPECT_GE(l.dram_read_elasticity, 0.0);
    weighted += l.dram_read_elasticity * l.dram_bytes_read;
  }
  EXPECT_NEAR(bwd.dram_read_elasticity, weighted / bwd.dram_bytes_read, 1e-12);
  for (int64_t rows : {2048, 4096, 8192, 16384, 32768})
    for (const char* k : {"v3", "v4", "v5", "block_reread", "rms_warp", "rms_block", "v1"})
      EXPECT_GE(run(k, rows, 4096).dram_read_elasticity, 0.0) << k << " " << rows;
}

TEST(Simt, OneSweepKeepsTheFirstPassTailOnlyWhenTheReReadInsertsLittle) {
  // 4096 x 8192 fp32, every row in flight: a 134 MB sweep, past the L2.
  // v4 re-reads with __ldcs and stores with __stcs: the end of the first
  // pass stays and its re-read hits, for f > 1 - half / X at most (the
  // cliff's share of the row).
  const GpuArch& g = h200();
  const double X = 4096.0 * 8192 * 4;
  const LaunchPrediction v4 = run("v4", 4096, 8192).launches[0];
  EXPECT_EQ(v4.occ.rows_in_flight, 4096);
  EXPECT_GT(v4.l2_hit, 0.5 * (g.l2.reuse.sweep.half_bytes / X));
  EXPECT_LT(v4.l2_hit, 1.1 * (g.l2.reuse.sweep.half_bytes / X));
  // rms_warp re-reads with plain loads: each re-read re-inserts its line,
  // the distance stays about X, and the sweep misses throughout.
  EXPECT_LT(run("rms_warp", 4096, 8192).launches[0].l2_hit, 0.01);
  // A sweep that fits (8192 x 768, 25 MB) hits whatever the hints.
  for (const char* k : {"v3", "v4", "rms_warp"}) EXPECT_GT(run(k, 8192, 768).launches[0].l2_hit, 0.99) << k;
}

TEST(Simt, SweepModelFollowsTheL2SweepProbe) {
  // gpu_ref's l2_sweep_probe: two sweeps over X bytes in one kernel, by the
  // second sweep's load and store hints (grid-stride order), DRAM bytes
  // read by ncu. The arch's sweep curve, evict-first pool and plain-store
  // weight come from these points; the model must keep following them.
  const GpuArch& g = h200();
  std::ifstream in(golden() + "/l2_sweep_probe.jsonl");
  ASSERT_TRUE(in.good());
  std::string line;
  double sq = 0, worst_plain = 0;
  int n = 0;
  while (std::getline(in, line)) {
    const auto r = nlohmann::json::parse(line);
    if (r.contains("error") || r["order"] != "linear" || r["p1"] != "plain" || r["p2"] == "none") continue;
    const ProbePoint p = probe_point(r, g);
    const double X = p.x_bytes;
    const double predicted =
        1 - core::lockstep_reread_hit({{1, p.normal}, {0, p.evict_first}}, X, g.l2.reuse.evict_first_pool_bytes,
                                      g.l2.reuse.sweep);
    sq += (predicted - p.measured_miss) * (predicted - p.measured_miss);
    ++n;
    // A plain second sweep and plain stores: the curve itself, within 0.1.
    if (!p.cs_load && !p.cs_store) worst_plain = std::max(worst_plain, std::fabs(predicted - p.measured_miss));
  }
  ASSERT_EQ(n, 78);  // 6 variants x 13 sizes
  EXPECT_LT(std::sqrt(sq / n), 0.08);  // 0.072: an __ldcs re-read with __stcs stores is off by up to 0.3 (SIMT.md)
  EXPECT_LT(worst_plain, 0.1);
}

TEST(Simt, SteadyCurveFollowsTheRowsOutOfPhaseProbe) {
  // l2_sweep_probe's steady mode: 1056 or 6336 warps each re-reading rows of L
  // bytes, F = warps x L in flight, out of phase. With the two passes taken as
  // equally long the model's distance is F (1 + n) / 2 + min(pool, F e / 2).
  const GpuArch& g = h200();
  std::ifstream in(golden() + "/l2_steady_probe.jsonl");
  ASSERT_TRUE(in.good());
  std::string line;
  double sq = 0;
  int n = 0;
  while (std::getline(in, line)) {
    const auto r = nlohmann::json::parse(line);
    const ProbePoint p = probe_point(r, g);
    const double F = r["warps"].get<double>() * r["row_bytes"].get<double>();
    const double predicted =
        1 - core::out_of_phase_reread_hit({{1, p.normal}, {0, p.evict_first}}, F, {1, 1}, g.l2.reuse.evict_first_pool_bytes,
                                          g.l2.reuse.steady_curve(r["warps"].get<double>()));
    sq += (predicted - p.measured_miss) * (predicted - p.measured_miss);
    ++n;
  }
  ASSERT_EQ(n, 108);  // 6 hint variants (plain, .CONSTANT and __ldcs re-reads) x 9 row sizes x 2 warp counts
  EXPECT_LT(std::sqrt(sq / n), 0.07);  // 0.057
}

TEST(Simt, OutOfPhaseRowsSpreadTheirReuseDistanceByThePassTimes) {
  // Out of phase, the byte at f of a row waits (1 - f) T1 + f T2 for its
  // re-read: a slower first pass (divisions on its chain) spreads the
  // reuse distances about the same mean, which pulls the hit fraction
  // towards the curve's middle: down where the mean distance hits (v5 with
  // 1056 rows of 24 KB in flight), up where it misses (64 KB rows).
  const GpuArch& out_of_phase = h200();
  auto hits = [&](int64_t hidden, int divisions) {
    LaunchPlan plan = plan_launch("v5", 32768 * 4096 / hidden, hidden, "fp32", 256, out_of_phase);
    plan.launches[0].passes[0].divisions_per_elem = divisions;
    return predict(plan, out_of_phase).launches[0].l2_hit;
  };
  EXPECT_GT(hits(6144, 0), 0.5);
  EXPECT_LT(hits(6144, 16), hits(6144, 0) - 0.02);
  EXPECT_LT(hits(16384, 0), 0.5);
  EXPECT_GT(hits(16384, 16), hits(16384, 0) + 0.02);
}

TEST(Simt, HardwareRsqrtTableKeepsItsMeasuredProperties) {
  const HardwareRsqrt hw(golden() + "/rsqrt_delta.npy.gz");
  std::mt19937 g(5);
  std::uniform_int_distribution<uint32_t> mant(0, 0x7fffff), expo(3, 250);
  std::set<int64_t> deltas;
  for (int i = 0; i < 200000; ++i) {
    const float x = std::bit_cast<float>((expo(g) << 23) | mant(g));
    const float r = hw(x);
    // Exponent shift, as the GPU showed on 2^30 inputs.
    ASSERT_EQ(hw(x * 4.0f), r * 0.5f) << x;
    // Within the measured -2..+1 ulp of the correctly rounded value.
    const float ref = static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
    deltas.insert(static_cast<int64_t>(std::bit_cast<uint32_t>(r)) - static_cast<int64_t>(std::bit_cast<uint32_t>(ref)));
  }
  EXPECT_GE(*deltas.begin(), -2);
  EXPECT_LE(*deltas.rbegin(), 1);
  EXPECT_GT(deltas.size(), 2u) << "the table is not the correctly rounded function";
  EXPECT_TRUE(std::isnan(hw(-1.0f)));
}

TEST(Simt, ALoneRowSlotAddsItsLatencyToItsTransfer) {
  // One row an SM (bwd at C = 8192: a 1024-thread block; the streamed
  // cluster: half a row) has no other row to hide its latency behind: the
  // chain and the DRAM time add. With many, the arch's fitted exponent.
  const GpuArch& g = h200();
  Occupancy o;
  o.rows_in_flight = g.sms;
  EXPECT_EQ(memory_overlap_exponent(o, g), 1.0);
  o.rows_in_flight = g.sms / 2;
  EXPECT_EQ(memory_overlap_exponent(o, g), 1.0);
  o.rows_in_flight = 2 * g.sms;
  EXPECT_NEAR(memory_overlap_exponent(o, g), 1 + (g.memory_overlap_exponent - 1) / 2, 1e-12);
  o.rows_in_flight = 64 * g.sms;
  EXPECT_GT(memory_overlap_exponent(o, g), g.memory_overlap_exponent - 0.03);
  const LaunchPrediction bwd = predict(plan_launch("bwd_twolevel", 4096, 8192, "bf16", 0, g), g).launches.front();
  EXPECT_EQ(bwd.occ.rows_in_flight, g.sms);
  EXPECT_GT(bwd.duration_us, bwd.latency_us + bwd.dram_us);  // the two add, then the epilogue
}

TEST(Simt, AtomicEpilogueIsAChainPerAddressAcrossTheGrid) {
  // bwd_atomic: every block adds its dgamma/dbeta partials into the same C
  // addresses, so each address takes grid reductions one after the other,
  // a warp instruction's 32-byte sectors at a time: lanes 16 B apart (fp32)
  // make 16 sectors, 32 B apart (bf16) 32 -- twice the time, as ncu shows
  // (atomic minus two-level at 8192 x 768: 34 us fp32, 64 us bf16).
  const double ns = h200().l2.atomic_ns_per_sector;
  for (const char* dt : {"fp32", "bf16"}) {
    const LaunchPlan plan = plan_launch("bwd_atomic", 8192, 768, dt, 0, h200());
    const LaunchPrediction p = predict(plan, h200()).launches.front();
    const double sectors = std::string(dt) == "fp32" ? 16 : 32;
    EXPECT_NEAR(p.epilogue_us, static_cast<double>(plan.launches.front().grid) * sectors * ns * 1e-3, 1e-9) << dt;
  }
  // Not the threads a block: the same grid at 512 threads costs the same.
  const LaunchPlan wide = plan_launch("bwd_atomic", 1024, 4096, "fp32", 0, h200());
  EXPECT_EQ(wide.launches.front().block, 512);
  EXPECT_NEAR(predict(wide, h200()).launches.front().epilogue_us,
              static_cast<double>(wide.launches.front().grid) * 16 * ns * 1e-3, 1e-9);
  // The two-level kernel's partials are stores, each block its own: sectors
  // at the L2's rate, two fp32 lanes a sector, one bf16 lane.
  for (const char* dt : {"fp32", "bf16"}) {
    const LaunchPlan two = plan_launch("bwd_twolevel", 8192, 768, dt, 0, h200());
    const double threads = static_cast<double>(two.launches.front().grid) * two.launches.front().block;
    const double sectors_per_store = std::string(dt) == "fp32" ? 0.5 : 1.0;
    EXPECT_NEAR(predict(two, h200()).launches.front().epilogue_us,
                threads * 16 * sectors_per_store / h200().l2.scattered_store_sectors_per_ns * 1e-3, 1e-9)
        << dt;
  }
}

TEST(Simt, DescriptorInstructionCountsMatchNcu) {
  // ncu's smsp__inst_executed for every golden case (ncu_profile.json, from
  // gpu_ref/scripts/run_profile.sh) against the descriptors' SASS-derived
  // counts: the issue bound counts the right work.
  std::ifstream in(golden() + "/ncu_profile.json");
  ASSERT_TRUE(in) << "ncu_profile.json";
  const auto prof = nlohmann::json::parse(in);
  double sum = 0, worst = 0;
  size_t n = 0;
  for (const auto& c : load_golden(golden())) {
    if (!prof.contains(c.id)) continue;
    const double measured = prof[c.id]["inst_executed"].get<double>();
    const double predicted = predict(plan_launch(c.kernel, c.rows, c.hidden, c.dtype, c.block, h200()), h200()).warp_instructions;
    const double e = std::fabs(predicted - measured) / measured;
    sum += e;
    worst = std::max(worst, e);
    ++n;
    EXPECT_LT(e, 0.45) << c.id << ": predicted " << predicted << " measured " << measured;
  }
  EXPECT_EQ(n, load_golden(golden()).size());
  EXPECT_LT(sum / n, 0.06) << "mean relative error of the instruction counts";
}

TEST(Simt, PredictionsRespondToTheMachineAsTheyShould) {
  // More rows: more time and bytes, never less.
  double last_t = 0, last_b = 0;
  for (int64_t rows : {1024, 4096, 16384, 65536}) {
    const Prediction p = run("v5", rows, 4096);
    EXPECT_GT(p.duration_us, last_t) << rows;
    EXPECT_GT(p.dram_bytes_read, last_b) << rows;
    last_t = p.duration_us;
    last_b = p.dram_bytes_read;
  }
  // A DRAM-bound case speeds up with bandwidth, a latency-bound one barely.
  GpuArch fast = h200();
  fast.dram.bytes_per_s *= 2;
  auto dur = [](const GpuArch& g, const char* k, int64_t n, int64_t c) {
    return predict(plan_launch(k, n, c, "fp32", 0, g), g).duration_us;
  };
  const double bw_ratio = dur(fast, "rms_warp", 32768, 4096) / dur(h200(), "rms_warp", 32768, 4096);
  EXPECT_LT(bw_ratio, 0.85);
  const double lat_ratio = dur(fast, "welford_warp_reg", 32768, 4096) / dur(h200(), "welford_warp_reg", 32768, 4096);
  EXPECT_GT(lat_ratio, 0.9);
  // A larger effective L2 turns re-reads into hits.
  GpuArch big_l2 = h200();
  big_l2.l2.reuse.steady.half_bytes *= 4;
  EXPECT_LT(predict(plan_launch("v4", 32768, 4096, "fp32", 256, big_l2), big_l2).dram_bytes_read,
            0.8 * run("v4", 32768, 4096, "fp32", 256).dram_bytes_read);
  // bf16 halves the compulsory bytes of a one-pass kernel.
  EXPECT_NEAR(run("welford_block_smem", 4096, 4096, "bf16").dram_bytes_read,
              0.5 * run("welford_block_smem", 4096, 4096, "fp32").dram_bytes_read, 4096 * 8.0);
}

// A what-if L2 size scales the measured reuse curves with it: half the
// GPU (half the SMs, half the L2) running half the rows sees the same rows
// per SM and the same reuse distances relative to its L2, so the re-read
// hit fractions are unchanged; with the curves taken as absolute bytes
// (reuse_measured_bytes 0) they are not.
TEST(Simt, ReuseCurvesScaleWithAWhatIfL2Size) {
  const GpuArch h = default_gpu_arch();
  ASSERT_EQ(h.l2.reuse_measured_bytes, h.l2.bytes);
  GpuArch half = h;
  half.l2.bytes = h.l2.bytes / 2;
  half.sms = h.sms / 2;
  const core::L2Reuse r = half.l2.scaled_reuse();
  EXPECT_DOUBLE_EQ(r.sweep.half_bytes, h.l2.reuse.sweep.half_bytes / 2);
  EXPECT_DOUBLE_EQ(r.steady.half_bytes, h.l2.reuse.steady.half_bytes / 2);
  EXPECT_DOUBLE_EQ(r.evict_first_pool_bytes, h.l2.reuse.evict_first_pool_bytes / 2);
  EXPECT_EQ(r.sweep.steepness, h.l2.reuse.sweep.steepness);
  EXPECT_EQ(h.l2.scaled_reuse().sweep.half_bytes, h.l2.reuse.sweep.half_bytes);
  // One wave of block_reread, every row in flight (lock step): 1024 rows of
  // 10240 fp32 = 42 MB on the H200, on its cliff, against 21 MB on half of it.
  const auto launch = [](const GpuArch& g, int64_t rows) {
    return predict(plan_launch("block_reread", rows, 10240, "fp32", 256, g), g).launches[0];
  };
  const auto full_gpu = launch(h, 1024), half_gpu = launch(half, 512);
  ASSERT_EQ(full_gpu.occ.rows_in_flight, 1024);
  EXPECT_NEAR(half_gpu.l1_hit, full_gpu.l1_hit, 1e-12);
  EXPECT_NEAR(half_gpu.l2_hit, full_gpu.l2_hit, 1e-12);
  EXPECT_GT(full_gpu.l2_hit, 0.05);
  EXPECT_LT(full_gpu.l2_hit, 0.95);
  GpuArch absolute = half;
  absolute.l2.reuse_measured_bytes = core::Bytes(0);
  EXPECT_GT(launch(absolute, 512).l2_hit, half_gpu.l2_hit + 0.04);
}

// The calibrated envelope is the golden cases' extremes, and a prediction
// outside it is extrapolated (never firm), whatever its mechanisms say.
TEST(Simt, TheEnvelopeIsTheGoldenSetsAndBeyondItIsExtrapolated) {
  std::ifstream in(test_paths::golden() + "/index.json");
  const nlohmann::json cases = nlohmann::json::parse(in);
  int64_t rmin = INT64_MAX, rmax = 0, hmin = INT64_MAX, hmax = 0;
  double bmin = 1e300, bmax = 0;
  for (const auto& c : cases) {
    const int64_t r = c["rows"], h = c["hidden"];
    const double b = static_cast<double>(r) * h * (c["dtype"] == "fp32" ? 4 : 2);
    rmin = std::min(rmin, r), rmax = std::max(rmax, r), hmin = std::min(hmin, h), hmax = std::max(hmax, h);
    bmin = std::min(bmin, b), bmax = std::max(bmax, b);
  }
  const simt::EnvelopeConfig& e = test_paths::h200().envelope;
  EXPECT_EQ(e.rows_min, rmin);
  EXPECT_EQ(e.rows_max, rmax);
  EXPECT_EQ(e.hidden_min, hmin);
  EXPECT_EQ(e.hidden_max, hmax);
  EXPECT_EQ(e.x_bytes_min, bmin);
  EXPECT_EQ(e.x_bytes_max, bmax);
  const auto& g = test_paths::h200();
  const auto inside = simt::predict(simt::plan_launch(simt::KernelId::fast_ln, 1024, 4096, simt::DType::bf16, 0, g), g, false);
  EXPECT_EQ(inside.extrapolated, "");
  EXPECT_TRUE(inside.firm());
  const auto far = simt::predict(simt::plan_launch(simt::KernelId::fast_ln, 4, 16777216, simt::DType::bf16, 0, g), g, false);
  EXPECT_EQ(far.extrapolated, "rows 4 < 256, hidden 16777216 > 65536");
  EXPECT_FALSE(far.firm());
  EXPECT_STREQ(far.firmness(), "extrapolated");
  const auto big = simt::predict(simt::plan_launch(simt::KernelId::fast_ln, 131072, 65536, simt::DType::fp32, 0, g), g, false);
  EXPECT_EQ(big.extrapolated, "x bytes 34359738368 > 536870912");
}
