// Warp states: ncu's stall reasons and their classes, the limiter rule, the
// SIMT model's predicted warp profile (its invariants and the mechanisms
// behind each state), ncu's golden profile reader, and the regression's
// comparison of the two.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "sim/config/config_error.hpp"
#include "sim/simt/kernels/kernel_registry.hpp"
#include "sim/simt/limiter.hpp"
#include "sim/simt/warp_states_model.hpp"
#include "sim/validate/golden.hpp"
#include "sim/validate/ncu_profile.hpp"
#include "sim/validate/regress.hpp"
#include "tests/golden_paths.hpp"

// libsystemc (linked through sim/validate) calls sc_main, declared extern "C"; gtest's main runs the tests.
extern "C" int sc_main(int, char**) { return 0; }

using namespace normsim;
using namespace normsim::simt;
using normsim::test_paths::golden;
using normsim::test_paths::h200;

namespace {

WarpProfile with(std::initializer_list<std::pair<WarpState, double>> shares, double dram = 0, double issue = 0) {
  WarpProfile p;
  for (auto [s, v] : shares) p.share[static_cast<size_t>(s)] = v;
  p.dram_throughput = dram;
  p.issue_active = issue;
  return p;
}

double sum(const WarpProfile& p) { return std::accumulate(p.share.begin(), p.share.end(), 0.0); }

}  // namespace

TEST(WarpStates, EveryNcuReasonHasOneClassAndNamesAreNcus) {
  EXPECT_EQ(warp_state_of_ncu_reason("long_scoreboard"), WarpState::long_scoreboard);
  EXPECT_EQ(warp_state_of_ncu_reason("selected"), WarpState::selected);
  EXPECT_EQ(warp_state_of_ncu_reason("imc_miss"), WarpState::other);
  EXPECT_EQ(warp_state_of_ncu_reason("math_pipe_throttle"), WarpState::other);
  EXPECT_FALSE(warp_state_of_ncu_reason("other").has_value());  // ours, not one of ncu's reasons
  EXPECT_FALSE(warp_state_of_ncu_reason("long_scorebord").has_value());
  for (size_t i = 0; i < kWarpStates; ++i) EXPECT_EQ(static_cast<size_t>(kWarpStateInfo[i].state), i);
}

TEST(Limiter, FollowsTheSpeedOfLightRuleThenTheStalls) {
  // A throughput at 60% of its peak or more decides; the larger of two.
  EXPECT_EQ(limiter(with({{WarpState::long_scoreboard, 1}}, 0.6, 0.1)), Limiter::dram_bandwidth);
  EXPECT_EQ(limiter(with({{WarpState::long_scoreboard, 1}}, 0.59, 0.1)), Limiter::latency);
  EXPECT_EQ(limiter(with({{WarpState::not_selected, 1}}, 0.2, 0.7)), Limiter::issue);
  EXPECT_EQ(limiter(with({{WarpState::not_selected, 1}}, 0.75, 0.7)), Limiter::dram_bandwidth);
  // Below both: the reductions' stalls against the loads'.
  EXPECT_EQ(limiter(with({{WarpState::long_scoreboard, 0.4}, {WarpState::barrier, 0.2}, {WarpState::short_scoreboard, 0.15},
                          {WarpState::mio_throttle, 0.1}})),
            Limiter::synchronisation);
  EXPECT_EQ(limiter(with({{WarpState::long_scoreboard, 0.5}, {WarpState::barrier, 0.2}, {WarpState::short_scoreboard, 0.3}})),
            Limiter::latency);  // equal: not outweighed
  // Spills whenever local memory moves bytes; unmeasured (NaN) is not a spill.
  WarpProfile spill = with({{WarpState::long_scoreboard, 1}}, 0.9);
  spill.local_memory_bytes = 32;
  EXPECT_EQ(limiter(spill), Limiter::spills);
  spill.local_memory_bytes = NAN;
  EXPECT_EQ(limiter(spill), Limiter::dram_bandwidth);
  std::set<std::string_view> names;
  for (const LimiterInfo& i : kLimiterInfo) {
    names.insert(i.name);
    EXPECT_FALSE(i.direction.empty());
  }
  EXPECT_EQ(names.size(), kLimiterInfo.size());
}

// Every golden launch: shares are a distribution, the other figures in their ranges.
TEST(WarpStatesModel, ProfilesAreDistributionsOnEveryGoldenCase) {
  const GpuArch& g = h200();
  for (const auto& c : validate::load_golden(golden())) {
    const Prediction p = predict(plan_launch(c.kernel, c.rows, c.hidden, c.dtype, c.block, g), g, false);
    std::vector<const WarpProfile*> profiles = {&p.warps};
    for (const LaunchPrediction& l : p.launches) profiles.push_back(&l.warps);
    for (size_t i = 0; i < profiles.size(); ++i) {
      const WarpProfile* w = profiles[i];
      SCOPED_TRACE(c.id + (i ? " launch " + std::to_string(i) : std::string(" (plan)")));
      EXPECT_NEAR(sum(*w), 1.0, 1e-9);
      for (double s : w->share) EXPECT_GE(s, 0.0);
      EXPECT_GT(w->achieved_occupancy, 0.0);
      EXPECT_LE(w->achieved_occupancy, 1.0);
      EXPECT_GT(w->issue_active, 0.0);
      EXPECT_LE(w->issue_active, g.issue_per_scheduler);
      EXPECT_GE(w->warp_cycles_per_issue, 1.0);
      EXPECT_GT(w->dram_throughput, 0.0);
      EXPECT_LT(w->dram_throughput, 1.0);
      EXPECT_EQ(w->local_memory_bytes, 0.0);
      // selected is one cycle per issued instruction: within a launch its
      // share is the inverse of the cycles per issue (a plan averages launches).
      if (i > 0 || p.launches.size() == 1) {
        EXPECT_NEAR((*w)[WarpState::selected], 1.0 / w->warp_cycles_per_issue, 1e-9);
      }
    }
  }
}

// Each state comes from the mechanism the model names for it.
TEST(WarpStatesModel, StatesFollowTheirMechanisms) {
  const GpuArch& g = h200();
  auto warps = [&](const char* kernel, int64_t rows, int64_t hidden, int block = 0, const char* dtype = "fp32") {
    return predict(plan_launch(kernel, rows, hidden, dtype, block, g), g, false).warps;
  };
  // A warp a row meets no barrier; a block a row with block reductions does.
  EXPECT_EQ(warps("v4", 32768, 4096)[WarpState::barrier], 0.0);
  EXPECT_GT(warps("v5", 32768, 4096)[WarpState::barrier], 0.0);
  // Long rows streamed from DRAM by many warps: long scoreboard leads, and the DRAM is the limiter.
  const WarpProfile streamed = warps("v4", 32768, 4096);
  EXPECT_EQ(streamed.dominant(), WarpState::long_scoreboard);
  // The backward's scalar atomics at the end (16 a thread): they queue at the
  // LSU (15 of 16) and the warp drains the last.
  const WarpProfile atomics = warps("bwd_atomic", 256, 768);
  EXPECT_GT(atomics[WarpState::drain], 0.0);
  EXPECT_NEAR(atomics[WarpState::lg_throttle] / atomics[WarpState::drain], 15.0, 1e-9);
  EXPECT_EQ(warps("v4", 32768, 4096)[WarpState::drain], 0.0);
  // v1's scattered loads wait as L1-miss requests: loads in flight, long scoreboard.
  EXPECT_EQ(warps("v1", 32768, 4096, 256).dominant(), WarpState::long_scoreboard);
  // wait: the cycles the control codes hold a warp beyond each issue.
  const WarpProfile v4 = warps("v4", 32768, 4096);
  const SubKernel& k = plan_launch("v4", 32768, 4096, "fp32", 0, g).launches.front();
  EXPECT_NEAR(v4[WarpState::wait] / v4[WarpState::selected], k.mean_stall_cycles - 1, 1e-9);
  // A kernel at its issue bound keeps eligible warps waiting.
  const WarpProfile busy = warps("welford_block_smem", 8192, 768);
  EXPECT_GT(busy[WarpState::not_selected], warps("v4", 256, 768)[WarpState::not_selected]);
  // Occupancy: one 256-thread block on each of 128 SMs is 8 of 64 warps.
  EXPECT_NEAR(warps("v4", 1024, 4096).achieved_occupancy, 8.0 / 64.0, 1e-6);
}

TEST(NcuProfile, ReadsTheShippedProfileIntoDistributions) {
  const validate::NcuProfiles p = validate::load_ncu_profile(golden());
  ASSERT_FALSE(p.empty());
  for (const auto& [id, c] : p) {
    SCOPED_TRACE(id);
    EXPECT_NEAR(sum(c.warps), 1.0, 1e-12);
    EXPECT_GT(c.warps.achieved_occupancy, 0.0);
    EXPECT_LE(c.warps.achieved_occupancy, 1.0);
    EXPECT_TRUE(std::isnan(c.warps.local_memory_bytes));  // not recorded
  }
  // ncu's numbers for one case, as recorded: v4 at 1024 x 4096 is 88.6% long scoreboard.
  const auto& v4 = p.at("v4_fp32_1024x4096_b256").warps;
  EXPECT_EQ(v4.dominant(), WarpState::long_scoreboard);
  EXPECT_NEAR(v4[WarpState::long_scoreboard], 0.886, 0.001);
  EXPECT_NEAR(v4.achieved_occupancy, 0.1243, 1e-6);
  EXPECT_TRUE(validate::load_ncu_profile(golden() + "/outputs").empty());  // no file: no profiles
}

TEST(NcuProfile, RefusesBadInputNamingTheCaseAndMetric) {
  const std::string ok_metrics = R"("sm__warps_active.avg.pct_of_peak_sustained_active": 50,
    "smsp__issue_active.avg.pct_of_peak_sustained_active": 20, "dram__throughput.avg.pct_of_peak_sustained_elapsed": 70)";
  auto parse = [](const std::string& text) { return validate::parse_ncu_profile(text, "p.json"); };
  auto expect_error = [&](const std::string& text, const std::string& needle) {
    try {
      parse(text);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("p.json"), std::string::npos) << e.what();
    }
  };
  const std::string stall = R"("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": 3)";
  const auto good = parse("{\"a\": {" + ok_metrics + ", " + stall +
                          R"(, "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio": 1,
                             "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum": 2}})");
  EXPECT_DOUBLE_EQ(good.at("a").warps[WarpState::long_scoreboard], 0.75);
  EXPECT_DOUBLE_EQ(good.at("a").warps.local_memory_bytes, 64.0);
  EXPECT_EQ(limiter(good.at("a").warps), Limiter::spills);
  expect_error("[]", "expected an object of cases");
  expect_error(R"({"a": 3})", "expected an object of metrics");
  expect_error("{\"a\": {" + ok_metrics + "}}", "no stall reason");
  expect_error("{\"a\": {" + stall + "}}", "sm__warps_active");
  expect_error("{\"a\": {" + ok_metrics + ", " + stall + R"(, "sm__cycles": 1}})", "unknown metric");
  expect_error("{\"a\": {" + ok_metrics + ", " + R"("smsp__average_warps_issue_stalled_napping_per_issue_active.ratio": 1}})",
               "unknown stall reason 'napping'");
  expect_error(R"({"a": {"dram__throughput.avg.pct_of_peak_sustained_elapsed": 101}})", "out of range");
  expect_error("{\"a\": {" + ok_metrics + ", " + R"("smsp__average_warps_issue_stalled_wait_per_issue_active.ratio": -1}})",
               "out of range");
  expect_error("{\"a\": {" + ok_metrics + ", " + stall + ", " + stall + "}}", "duplicate key");
  expect_error("{\"a\": {" + ok_metrics + ", " + R"("inst_executed": "many"}})", "expected a number");
}

// The regression's warp-state summary against its cases: test_validate.cpp
// (RegressionAgainstTheGoldenH200), on the one regress run it makes.
