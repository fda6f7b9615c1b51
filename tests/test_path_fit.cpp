// compare's design search (sim/asic/path_fit.hpp) against a synthetic cycles
// model whose optimum is known: the bytes it picks fit, the rows it picks are
// the most (budget) or the fewest (target), and what cannot be built says why.
#include <gtest/gtest.h>

#include <systemc.h>

#include <cmath>

#include "sim/asic/path_fit.hpp"
#include "sim/asic/traffic_identity.hpp"
#include "sim/config/workload.hpp"

int sc_main(int, char**) { return 0; }  // libsystemc wants one; gtest's main runs the tests

using namespace normsim;
using asic::InputPath;

namespace {
const config::Workload& wl() {
  static const config::Workload w = config::load_workload(NORMSIM_TEST_SOURCE_DIR "/workloads/llama2-7b.yaml");
  return w;
}
const config::Arch& ar() {
  static const config::Arch a = config::load_arch(NORMSIM_TEST_SOURCE_DIR "/workloads/arch/asic-default.yaml");
  return a;
}
// Fewer rows in flight: more latency exposed; less SRAM replay: more DRAM bytes.
double model_cycles(const config::Arch& c) {
  const auto& a = *c.asic;
  const double replay = a.path == InputPath::sram_replay ? 1 : a.path == InputPath::dram_reread ? 0 : a.replay_fraction;
  return 1e6 * (2 - replay) + 4e5 / a.rows_in_flight;
}
}  // namespace

TEST(PathFit, BudgetTakesTheMostRowsThatFit) {
  const uint64_t one = asic::path_onchip_bytes(wl(), ar(), InputPath::sram_replay, 1, 1);
  const uint64_t per_row = asic::path_onchip_bytes(wl(), ar(), InputPath::sram_replay, 2, 1) - one;
  EXPECT_EQ(per_row, 4096u * 2);  // one bf16 row of 4096
  const uint64_t budget = one + 6 * per_row + per_row / 2;
  int runs = 0;
  const auto fit = asic::fit_sram_budget(wl(), ar(), InputPath::sram_replay, budget, [&](const config::Arch& c) {
    ++runs;
    EXPECT_EQ(c.asic->sram.capacity_bytes, budget);
    return model_cycles(c);
  });
  ASSERT_TRUE(fit.feasible) << fit.reason;
  EXPECT_EQ(fit.rows_in_flight, 7);
  EXPECT_EQ(fit.sram_bytes, one + 6 * per_row);
  EXPECT_LE(fit.sram_bytes, budget);
  EXPECT_EQ(fit.cycles, model_cycles(fit.arch));
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(fit.candidates_run, 1);
}

TEST(PathFit, BudgetPicksThePartialReplayFractionWithTheFewestCycles) {
  const uint64_t budget = 64 * 1024;
  const auto fit = asic::fit_sram_budget(wl(), ar(), InputPath::partial_replay, budget, model_cycles);
  ASSERT_TRUE(fit.feasible) << fit.reason;
  EXPECT_EQ(fit.candidates_run, 15);
  // The best of every fraction at its most rows, by the same model.
  double best = 1e30;
  for (double f : asic::partial_replay_fractions()) {
    int rows = 0;
    while (asic::path_onchip_bytes(wl(), ar(), InputPath::partial_replay, rows + 1, f) <= budget) ++rows;
    if (rows == 0) continue;
    config::Arch c = ar();
    c.asic->path = InputPath::partial_replay;
    c.asic->replay_fraction = f;
    c.asic->rows_in_flight = rows;
    best = std::min(best, model_cycles(c));
  }
  EXPECT_EQ(fit.cycles, best);
  EXPECT_LE(fit.sram_bytes, budget);
}

TEST(PathFit, TooSmallABudgetIsInfeasibleWithTheBytesNeeded) {
  const uint64_t one = asic::path_onchip_bytes(wl(), ar(), InputPath::sram_replay, 1, 1);
  const auto fit = asic::fit_sram_budget(wl(), ar(), InputPath::sram_replay, one - 1, model_cycles);
  EXPECT_FALSE(fit.feasible);
  EXPECT_NE(fit.reason.find(std::to_string(one) + " B"), std::string::npos) << fit.reason;
  const auto rr = asic::fit_sram_budget(wl(), ar(), InputPath::dram_reread, 1024, model_cycles);
  EXPECT_FALSE(rr.feasible);
  EXPECT_NE(rr.reason.find("re-read FIFO"), std::string::npos) << rr.reason;
}

TEST(PathFit, TargetTakesTheFewestRowsThatMeetIt) {
  // sram-replay: 1e6 + 4e5 / r <= 1.05e6 first at r = 8.
  const auto fit = asic::fit_target_cycles(wl(), ar(), InputPath::sram_replay, 1.05e6, model_cycles);
  ASSERT_TRUE(fit.feasible) << fit.reason;
  EXPECT_EQ(fit.rows_in_flight, 8);
  EXPECT_EQ(fit.cycles, 1.05e6);
  EXPECT_EQ(fit.arch.asic->sram.capacity_bytes, fit.sram_bytes);
  EXPECT_EQ(fit.sram_bytes, asic::path_onchip_bytes(wl(), ar(), InputPath::sram_replay, 8, 1));
  EXPECT_LE(fit.candidates_run, 1 + 13);  // the most rows, then a binary search over 1..4096
  // Unreachable: even the most rows leave 1e6 + 4e5/4096 > 1.00001e6.
  const auto no = asic::fit_target_cycles(wl(), ar(), InputPath::sram_replay, 1e6, model_cycles);
  EXPECT_FALSE(no.feasible);
  EXPECT_NE(no.reason.find("fastest design takes 1000098 cycles (4096 rows in flight)"), std::string::npos) << no.reason;
  // DRAM re-read: 2e6 + 1e5 at the arch's 4 rows, met or not.
  EXPECT_TRUE(asic::fit_target_cycles(wl(), ar(), InputPath::dram_reread, 2.2e6, model_cycles).feasible);
  EXPECT_FALSE(asic::fit_target_cycles(wl(), ar(), InputPath::dram_reread, 2.0e6, model_cycles).feasible);
}

TEST(PathFit, TargetPicksTheSmallestSramOverTheFractions) {
  const double target = 1.3e6;
  const auto fit = asic::fit_target_cycles(wl(), ar(), InputPath::partial_replay, target, model_cycles);
  ASSERT_TRUE(fit.feasible) << fit.reason;
  EXPECT_LE(fit.cycles, target);
  // No fraction and row count with fewer bytes meets the target.
  for (double f : asic::partial_replay_fractions())
    for (int r = 1; r <= 64; ++r) {
      const uint64_t b = asic::path_onchip_bytes(wl(), ar(), InputPath::partial_replay, r, f);
      if (b >= fit.sram_bytes) break;
      config::Arch c = ar();
      c.asic->path = InputPath::partial_replay;
      c.asic->replay_fraction = f;
      c.asic->rows_in_flight = r;
      EXPECT_GT(model_cycles(c), target) << "f " << f << " rows " << r << " (" << b << " B) meets it with less SRAM";
    }
}
