// The sweep engine (sim/explore/sweep_engine.hpp) on points that are plain
// functions: the triage's three outcomes, every point run exactly once in a
// child whatever the batching, and a failed child's exit code returned with
// the other batches' records still delivered.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "sim/config/config_error.hpp"
#include "sim/explore/sweep_engine.hpp"

// libsystemc (linked through sim/explore's sweep engine) calls sc_main, declared extern "C"; gtest's main runs the tests.
extern "C" int sc_main(int, char**) { return 0; }

namespace normsim::explore {
namespace {

nlohmann::json row(size_t p) { return {{"index", p}, {"point", {{"x", p}}}}; }

TEST(SweepEngine, TriageSortsAShardsPointsAndStopsOnBadInput) {
  // Shard 1/3 of 10: points 1, 4, 7; multiples of 4 cannot be built.
  const PointTriage t = triage_points(
      10, 1, 3, [](size_t p) { return p % 4 == 0 ? std::optional<std::string>("too big") : std::nullopt; }, row);
  EXPECT_EQ(t.feasible, (std::vector<size_t>{1, 7}));
  ASSERT_EQ(t.infeasible.size(), 1u);
  EXPECT_EQ(t.infeasible[0]["index"], 4);
  EXPECT_EQ(t.infeasible[0]["status"], "infeasible");
  EXPECT_EQ(t.infeasible[0]["reason"], "too big");
  EXPECT_THROW(triage_points(
                   10, 0, 1,
                   [](size_t p) -> std::optional<std::string> {
                     if (p == 5) throw config::ConfigError("bad");
                     return std::nullopt;
                   },
                   row),
               config::ConfigError);
}

TEST(SweepEngine, PointsPerChildBalancesTheWorkersWithinItsBounds) {
  EXPECT_EQ(points_per_child(0, 4), 1u);
  EXPECT_EQ(points_per_child(10, 4), 1u);
  EXPECT_EQ(points_per_child(64, 2), 4u);  // eight batches a worker
  EXPECT_EQ(points_per_child(size_t(1) << 30, 1), kMaxPointsPerChild);
  EXPECT_EQ(points_per_child(100, 0), 12u);  // no workers count as one
}

TEST(SweepEngine, EveryPointRunsOnceInAChildAndComesBack) {
  for (const size_t n : {size_t(1), size_t(7), size_t(100)}) {
    std::vector<size_t> todo;
    for (size_t p = 0; p < n; ++p) todo.push_back(3 * p + 1);
    const pid_t parent = getpid();
    std::vector<size_t> seen;
    size_t last_done = 0;
    SweepRun run;
    run.jobs = 3;
    run.run_point = [&](size_t p) {
      return nlohmann::json{{"index", p}, {"square", p * p}, {"in_child", getpid() != parent}};
    };
    run.on_record = [&](nlohmann::json&& r) {
      EXPECT_TRUE(r["in_child"].get<bool>());
      EXPECT_EQ(r["square"].get<size_t>(), r["index"].get<size_t>() * r["index"].get<size_t>());
      seen.push_back(r["index"].get<size_t>());
    };
    run.on_progress = [&](size_t done) {
      EXPECT_GT(done, last_done);
      last_done = done;
    };
    ASSERT_EQ(run_points(todo, run), 0);
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, todo) << n << " points";
    EXPECT_EQ(last_done, n);
  }
}

TEST(SweepEngine, AFailedChildsCodeIsReturnedAndTheOtherBatchesDelivered) {
  std::vector<size_t> todo;
  for (size_t p = 0; p < 64; ++p) todo.push_back(p);
  const size_t batch = points_per_child(todo.size(), 2);
  ASSERT_GT(batch, 1u);
  std::vector<size_t> seen;
  SweepRun run;
  run.jobs = 2;
  run.run_point = [](size_t p) -> nlohmann::json {
    if (p == 9) throw std::runtime_error("point 9 broke");
    return {{"index", p}};
  };
  run.on_record = [&](nlohmann::json&& r) { seen.push_back(r["index"].get<size_t>()); };
  EXPECT_EQ(run_points(todo, run), 2);
  // Every batch but point 9's came back.
  EXPECT_EQ(seen.size(), todo.size() - batch);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 9), 0);
}

}  // namespace
}  // namespace normsim::explore
