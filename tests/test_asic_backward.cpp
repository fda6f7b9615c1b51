// The backward on the ASIC model (docs/ASIC.md, "Backward"): hand-computed
// DRAM and SRAM bytes for every input path x param_grad x xhat at C = 64,
// L = 4 on 1 and 64 rows, written out here independently of
// traffic_identity; the bandwidth bound exactly; and the SRAM's share of the
// accumulator's read-modify-write. Every TEST runs in its own process.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include <nlohmann/json.hpp>

#include "sim/asic/asic_run.hpp"
#include "sim/config/config_error.hpp"

using namespace normsim;

extern "C" int sc_main(int, char**) { return 0; }

namespace {
std::string src() { return std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR; }

// bert-large-bwd at C = 64 in fp32 (x, dy, dx: 4 B each); asic-default at
// 4 lanes: gamma s16.13 (2 B), dgamma/dbeta accumulators s48.18 (6 B).
config::Workload c64(int64_t rows) {
  auto w = config::load_workload(src() + "/workloads/bert-large-bwd.yaml");
  w.rows = rows;
  w.hidden = 64;
  w.input.dtype = w.output.dtype = w.backward.dy.dtype = core::ElemType::fp32;
  return w;
}
config::Arch c64_arch(config::InputPath path, config::ParamGradPath pg, config::XhatSource xhat, double bytes_per_cycle = 64) {
  auto a = config::load_arch(src() + "/workloads/arch/asic-default.yaml");
  a.lanes = 4;
  a.asic->path = path;
  a.asic->param_grad_accumulator.path = pg;
  a.asic->backward.xhat = xhat;
  a.asic->param_grad_accumulator.partial_rows = 16;
  a.asic->dram.peak_bytes_per_s = core::per_second(core::BytesPerCycle(bytes_per_cycle), core::ghz(a.asic->clock_ghz));
  return a;
}
asic::AsicResult run_timing(const config::Workload& w, const config::Arch& a) {
  asic::AsicOptions o;
  o.numerics = false;
  return asic::run_asic(w, a, o);
}
double stat(const asic::AsicResult& r, const std::string& unit, const std::string& name) {
  for (const auto& u : r.unit_stats)
    if (u.unit == unit)
      for (const auto& s : u.stats)
        if (s.name == name) return s.value;
  return -1;
}
}  // namespace

using Combo = std::tuple<config::InputPath, config::ParamGradPath, config::XhatSource, int64_t>;
class BackwardHandComputed : public ::testing::TestWithParam<Combo> {};

TEST_P(BackwardHandComputed, DramAndSramBytesAreExact) {
  const auto [path, pg, xhat, rows] = GetParam();
  const auto r = run_timing(c64(rows), c64_arch(path, pg, xhat));
  const uint64_t N = static_cast<uint64_t>(rows), C = 64;
  const uint64_t kept = path == config::InputPath::sram_replay ? 64 : path == config::InputPath::dram_reread ? 0 : 32;
  const uint64_t reread = C - kept;
  const uint64_t stats = xhat == config::XhatSource::stored ? 4 : 8;  // rstd, or mean and rstd
  const uint64_t gamma = C * 2, acc_row = 2 * C * 6, fp32_grads = 2 * C * 4;
  const uint64_t partials = (N + 15) / 16;
  // DRAM: x (or x_hat) and dy once, their re-read part again, gamma, the saved statistics; dx written.
  uint64_t read = N * C * 4 * 2 + N * reread * 4 * 2 + gamma + N * stats;
  uint64_t written = N * C * 4;
  // SRAM: the row buffer keeps x and dy (8 B an element), the re-read passes its FIFO, gamma is read every row.
  uint64_t sram_w = N * kept * 8 + gamma + N * reread * 8, sram_r = N * kept * 8 + N * gamma + N * reread * 8;
  switch (pg) {
    case config::ParamGradPath::onchip:  // RMW every element in SRAM; read out once, written once in fp32
      sram_w += N * acc_row, sram_r += N * acc_row + acc_row, written += fp32_grads;
      break;
    case config::ParamGradPath::partials:  // ... read out every 16 rows to DRAM, read back by the second pass
      sram_w += N * acc_row, sram_r += N * acc_row + partials * acc_row;
      written += partials * acc_row + fp32_grads, read += partials * acc_row;
      break;
    case config::ParamGradPath::dram_rmw:  // every row after the first reads them; every row writes them
      read += (N - 1) * acc_row, written += N * acc_row;
      break;
  }
  EXPECT_EQ(r.dram_bytes_read, read);
  EXPECT_EQ(r.dram_bytes_written, written);
  EXPECT_EQ(r.sram_bytes_written, sram_w);
  EXPECT_EQ(r.sram_bytes_read, sram_r);
  // The closed forms agree, and so does the bound they define.
  EXPECT_EQ(r.expected.dram_bytes_read, read);
  EXPECT_EQ(r.expected.dram_bytes_written, written);
  EXPECT_EQ(r.expected.sram_bytes_read, sram_r);
  EXPECT_EQ(r.expected.sram_bytes_written, sram_w);
  EXPECT_EQ(r.expected.lower_bound_cycles, std::max(static_cast<double>(read + written) / 64, N * 16.0));
  EXPECT_EQ(r.expected.accumulator_bytes, pg == config::ParamGradPath::dram_rmw ? 0 : acc_row);
  EXPECT_GE(r.cycles, r.expected.lower_bound_cycles);
  EXPECT_EQ(r.dram_bytes[static_cast<int>(asic::Traffic::stats)], 0u);  // the backward writes no statistics
}

INSTANTIATE_TEST_SUITE_P(
    AllCombinations, BackwardHandComputed,
    ::testing::Combine(::testing::Values(config::InputPath::sram_replay, config::InputPath::dram_reread, config::InputPath::partial_replay),
                       ::testing::Values(config::ParamGradPath::onchip, config::ParamGradPath::partials, config::ParamGradPath::dram_rmw),
                       ::testing::Values(config::XhatSource::recompute, config::XhatSource::stored), ::testing::Values(1, 64)),
    [](const auto& info) {
      std::string n = std::string(config::kInputPaths.name(std::get<0>(info.param))) + "_" +
                      std::string(config::kParamGradPaths.name(std::get<1>(info.param))) + "_" +
                      std::string(config::kXhatSources.name(std::get<2>(info.param))) + "_" + std::to_string(std::get<3>(info.param)) + "rows";
      std::replace(n.begin(), n.end(), '-', '_');
      return n;
    });

// At 4 B a cycle the DRAM decides: dram_rmw moves 24 B of gradients an element
// beside x, dy and dx's 12; the port's busy cycles are the bound, exactly, and
// the run ends within a request's and a write's latency and a row's pipeline of it.
TEST(BackwardHandComputed, SixtyFourRowsBandwidthBound) {
  const auto r = run_timing(c64(64), c64_arch(config::InputPath::dram_reread, config::ParamGradPath::dram_rmw,
                                              config::XhatSource::recompute, 4));
  const double port = static_cast<double>(r.dram_bytes_read + r.dram_bytes_written) / 4;
  EXPECT_EQ(r.expected.lower_bound_cycles, port);
  EXPECT_EQ(stat(r, "dram", "busy_cycles"), port);
  EXPECT_GE(r.cycles, port);
  EXPECT_LE(r.cycles, port + 2 * 200 + (4 + 2 + 4 + 16 + 4));
}

// On chip, the accumulator's read-modify-write shares the SRAM's single port
// with the row buffer: 4 lanes x (4 B of bf16 x and dy kept + 2 x 12 B of
// accumulator) = 112 B a cycle against the port's 8 x 16 B; at 4 banks (64 B)
// the lanes stall on it and the run slows, its bytes unchanged. (Two
// simulations: two processes, through the CLI.)
TEST(BackwardHandComputed, AccumulatorReadModifyWriteOccupiesTheSram) {
  auto run = [](int banks) {
    const std::string cmd = std::string(std::getenv("NORMSIM_BINARY_DIR") ? std::getenv("NORMSIM_BINARY_DIR") : NORMSIM_TEST_BINARY_DIR) +
                            "/normsim run bert-large-bwd --no-numerics --json -q --set workload.batch=1 --set workload.seq=64 "
                            "--set workload.hidden=64 --set arch.lanes=4 --set arch.asic.sram.banks=" + std::to_string(banks);
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    EXPECT_EQ(pclose(p), 0) << cmd;
    return nlohmann::json::parse(out);
  };
  const auto fast = run(8), slow = run(4);
  EXPECT_EQ(fast["timing"]["stall_cycles_by_unit"]["row_sum_lanes"]["sram_port"], 0.0);
  EXPECT_GT(slow["timing"]["stall_cycles_by_unit"]["row_sum_lanes"]["sram_port"].get<double>(), 0);
  EXPECT_GT(slow["timing"]["cycles"].get<double>(), fast["timing"]["cycles"].get<double>());
  EXPECT_EQ(slow["traffic"]["dram_bytes_read"], fast["traffic"]["dram_bytes_read"]);
  EXPECT_EQ(slow["traffic"]["sram_bytes_read"], fast["traffic"]["sram_bytes_read"]);
}

TEST(BackwardConfig, AFixedArchWithoutBackwardFormatsIsRefused) {
  auto a = c64_arch(config::InputPath::sram_replay, config::ParamGradPath::onchip, config::XhatSource::recompute);
  a.backward_formats.reset();
  try {
    run_timing(c64(1), a);
    FAIL() << "no error";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("backward_formats"), std::string::npos) << e.what();
  }
}
