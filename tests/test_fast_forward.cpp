// The steady-state fast-forward is exact (sim/asic/steady_state.hpp): every
// shipped workload on every shipped timing arch, each input path and each
// fuse mode, and random designs, give the same report -- every counter, bit
// for bit -- with and without it. Each run is a forked child (SystemC
// elaborates once a process).
#include <gtest/gtest.h>
#include <systemc.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/asic/asic_run.hpp"
#include "sim/asic/isolated_run.hpp"
#include "sim/config/arch.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/shipped_configs.hpp"
#include "sim/config/workload.hpp"
#include "sim/report/asic_report.hpp"

using namespace normsim;
using nlohmann::json;

int sc_main(int, char**) { return 0; }  // libsystemc wants one; gtest's main runs the tests

namespace {

struct Design {
  std::string workload, arch;
  std::vector<std::string> sets;  ///< --set overrides, "workload.K=V" / "arch.K=V"
  std::string label() const {
    std::string s = workload + " on " + arch;
    for (const auto& o : sets) s += " " + o;
    return s;
  }
};

struct Outcome {
  bool feasible = false;
  json report;  ///< without its fast_forward section
  json fast_forward;
};

// One run in a child: the report, or infeasible (a ConfigError: the design cannot be built).
Outcome run(const Design& d, bool fast_forward) {
  std::string text;
  const int rc = asic::run_isolated(
      [&] {
        std::vector<config::Override> wo, ao;
        for (const auto& s : d.sets) {
          const config::Override o = config::parse_override(s);
          (o.target == "workload" ? wo : ao).push_back(o);
        }
        try {
          const config::Workload w = config::load_workload(d.workload, wo);
          const config::Arch a = config::load_arch(d.arch, ao);
          asic::AsicOptions o;
          o.numerics = false;
          o.fast_forward = fast_forward;
          return report::asic_report_json(asic::run_asic(w, a, o)).dump();
        } catch (const config::ConfigError&) {
          return std::string("infeasible");
        }
      },
      d.label(), text);
  EXPECT_EQ(rc, 0) << d.label();
  Outcome out;
  if (rc != 0 || text == "infeasible") return out;
  out.feasible = true;
  out.report = json::parse(text);
  out.fast_forward = out.report["fast_forward"];
  out.report.erase("fast_forward");
  return out;
}

// Both ways; returns whether the fast-forward skipped rows.
bool expect_exact(const Design& d, int* feasible = nullptr) {
  const Outcome ff = run(d, true), full = run(d, false);
  EXPECT_EQ(ff.feasible, full.feasible) << d.label();
  if (!ff.feasible || !full.feasible) return false;
  if (feasible) ++*feasible;
  EXPECT_EQ(full.fast_forward["applied"], false) << d.label();
  EXPECT_EQ(full.fast_forward["reason"], "--no-fast-forward") << d.label();
  if (ff.report != full.report) {
    const json diff = json::diff(full.report, ff.report);
    ADD_FAILURE() << d.label() << ": the fast-forward changed the report: " << diff.dump().substr(0, 2000);
  }
  const bool applied = ff.fast_forward["applied"].get<bool>();
  if (applied) {
    EXPECT_LT(ff.fast_forward["rows_simulated"].get<int64_t>(), ff.report["workload"]["rows"].get<int64_t>()) << d.label();
    EXPECT_EQ(ff.fast_forward["rows_simulated"].get<int64_t>() + ff.fast_forward["rows_skipped"].get<int64_t>(),
              ff.report["workload"]["rows"].get<int64_t>())
        << d.label();
  } else {
    EXPECT_FALSE(ff.fast_forward["reason"].get<std::string>().empty()) << d.label() << ": no period, and no reason said";
  }
  return applied;
}

std::vector<std::string> shipped(config::ShippedKind k) {
  std::vector<std::string> v;
  for (const auto& c : config::shipped_configs())
    if (c.kind == k) v.push_back(c.name);
  return v;
}

// The shipped archs with a timing model (an asic section).
std::vector<std::string> timing_archs() {
  std::vector<std::string> v;
  for (const auto& name : shipped(config::ShippedKind::arch))
    if (config::load_arch(name, {}).asic) v.push_back(name);
  return v;
}

// Every timing arch x path x fuse mode (the residual workloads' three) of one shipped workload.
void check_shipped_workload(const std::string& workload) {
  const bool residual = config::load_workload(workload, {}).residual.has_value();
  const std::vector<std::string> fuses = residual ? std::vector<std::string>{"none", "residual", "residual_dropout"}
                                                  : std::vector<std::string>{""};
  int feasible = 0, applied = 0;
  for (const auto& arch : timing_archs())
    for (const char* path : {"sram-replay", "dram-reread", "partial-replay"})
      for (const auto& fuse : fuses) {
        Design d{workload, arch, {std::string("arch.asic.input_path=") + path}};
        if (!fuse.empty()) d.sets.push_back("arch.fuse.mode=" + fuse);
        applied += expect_exact(d, &feasible);
      }
  EXPECT_GT(feasible, 0) << workload << ": no design could be built";
  std::printf("%s: %d of %d designs fast-forwarded\n", workload.c_str(), applied, feasible);
}

}  // namespace

TEST(FastForward, ShippedTimingArchsAreTheOnesWithAnAsicSection) {
  const auto archs = timing_archs();
  EXPECT_GE(archs.size(), 3u);
  for (const char* a : {"asic-default", "asic-fp32", "edge-small-sram"})
    EXPECT_NE(std::find(archs.begin(), archs.end(), a), archs.end()) << a;
}

// One test per shipped workload, so ctest runs them side by side.
#define SHIPPED_WORKLOAD_IS_EXACT(name, file) \
  TEST(FastForward, name) { check_shipped_workload(file); }
SHIPPED_WORKLOAD_IS_EXACT(BertLarge, "bert-large")
SHIPPED_WORKLOAD_IS_EXACT(BertLargeBackward, "bert-large-bwd")
SHIPPED_WORKLOAD_IS_EXACT(Cancellation, "cancellation")
SHIPPED_WORKLOAD_IS_EXACT(Gpt2Small, "gpt2-small")
SHIPPED_WORKLOAD_IS_EXACT(Int8, "int8")
SHIPPED_WORKLOAD_IS_EXACT(Llama2_7bActs, "llama2-7b-acts")
SHIPPED_WORKLOAD_IS_EXACT(Llama2_7bBackward, "llama2-7b-bwd")
SHIPPED_WORKLOAD_IS_EXACT(Llama2_7bPrenorm, "llama2-7b-prenorm")
SHIPPED_WORKLOAD_IS_EXACT(Llama2_7b, "llama2-7b")
SHIPPED_WORKLOAD_IS_EXACT(Llama3_70bActs, "llama3-70b-acts")
SHIPPED_WORKLOAD_IS_EXACT(Llama3_70b, "llama3-70b")
SHIPPED_WORKLOAD_IS_EXACT(LongRow, "long-row")
SHIPPED_WORKLOAD_IS_EXACT(Postnorm7bBackward, "postnorm-7b-bwd")
SHIPPED_WORKLOAD_IS_EXACT(Postnorm7b, "postnorm-7b")

// Every shipped workload has its test above.
TEST(FastForward, EveryShippedWorkloadIsChecked) {
  std::vector<std::string> names = shipped(config::ShippedKind::workload);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{"bert-large", "bert-large-bwd", "cancellation", "gpt2-small", "int8", "llama2-7b",
                                      "llama2-7b-acts", "llama2-7b-bwd", "llama2-7b-prenorm", "llama3-70b", "llama3-70b-acts",
                                      "long-row", "postnorm-7b", "postnorm-7b-bwd"}));
}

// Random designs: rows, hidden, lanes, rows in flight, DRAM bandwidth and
// latency, SRAM latency, transaction size, path (fixed seed: the same draws
// every run).
TEST(FastForward, RandomDesignsAreExact) {
  std::mt19937_64 rng(20261205);
  auto pick = [&](std::initializer_list<const char*> v) { return std::string(*(v.begin() + rng() % v.size())); };
  int feasible = 0, applied = 0;
  for (int i = 0; i < 40; ++i) {
    const int64_t hidden = 64 * static_cast<int64_t>(1 + rng() % 96);
    Design d{pick({"gpt2-small", "llama2-7b", "bert-large-bwd", "postnorm-7b", "llama2-7b-prenorm"}),
             pick({"asic-default", "asic-fp32", "edge-small-sram"}),
             {"workload.rows=" + std::to_string(1 + rng() % 600), "workload.hidden=" + std::to_string(hidden),
              "arch.lanes=" + pick({"1", "2", "4", "8", "16", "32", "64"}),
              "arch.asic.rows_in_flight=" + std::to_string(1 + rng() % 8),
              "arch.asic.input_path=" + pick({"sram-replay", "dram-reread", "partial-replay"}),
              "arch.asic.dram.peak_bytes_per_s=" + pick({"16e9", "32e9", "51.2e9", "64e9", "100e9", "256e9"}),
              "arch.asic.dram.latency_ns=" + std::to_string(1 + rng() % 400),
              "arch.asic.sram.latency_cycles=" + std::to_string(1 + rng() % 4),
              "arch.asic.transaction_elems=" + pick({"256", "1024", "4096"}),
              "arch.asic.sram.capacity_bytes=4194304"}};
    applied += expect_exact(d, &feasible);
  }
  EXPECT_GE(feasible, 20);
  EXPECT_GE(applied, feasible / 3) << "the fast-forward skipped rows in few random designs";
  std::printf("random: %d of %d designs fast-forwarded\n", applied, feasible);
}

// Whole cycles (arch.asic.timing: cycle): the units act only at edges, so
// every run ends on one; the fast-forward stays exact; and the schedule is
// the fluid one's to within the fractions of a cycle it rounds up (a unit
// waits at most one cycle more per hand-over). Shipped workloads (cut to
// 512 rows) on every timing arch and path, and random designs.
TEST(FastForward, WholeCycleDesignsAreExactAndEndOnAnEdge) {
  std::mt19937_64 rng(20261207);
  std::vector<Design> designs;
  for (const char* workload : {"llama3-70b", "bert-large-bwd", "postnorm-7b", "gpt2-small"})
    for (const auto& arch : timing_archs())
      for (const char* path : {"sram-replay", "dram-reread", "partial-replay"})
        designs.push_back({workload, arch, {"workload.rows=512", std::string("arch.asic.input_path=") + path}});
  // The backward's other accumulators: partials read out as rows end (the
  // clocked readout process), and DRAM read-modify-writes.
  for (const char* acc : {"partials", "dram_rmw"})
    for (const char* path : {"sram-replay", "dram-reread", "partial-replay"})
      designs.push_back({"llama2-7b-bwd", "asic-default",
                         {"workload.rows=600", std::string("arch.asic.input_path=") + path,
                          std::string("arch.asic.param_grad_accumulator.path=") + acc,
                          "arch.asic.param_grad_accumulator.partial_rows=64"}});
  for (int i = 0; i < 12; ++i)
    designs.push_back({"llama2-7b", "asic-default",
                       {"workload.rows=" + std::to_string(1 + rng() % 400), "workload.hidden=" + std::to_string(64 * (1 + rng() % 96)),
                        "arch.asic.rows_in_flight=" + std::to_string(1 + rng() % 8),
                        "arch.asic.dram.peak_bytes_per_s=" + std::to_string(16 + rng() % 240) + "e9",
                        "arch.asic.dram.latency_ns=" + std::to_string(1 + rng() % 400),
                        std::string("arch.asic.input_path=") + (rng() % 2 ? "dram-reread" : "partial-replay"),
                        "arch.asic.sram.capacity_bytes=4194304"}});
  int feasible = 0, fractional_fluid = 0;
  double worst = 0;
  for (Design d : designs) {
    const Outcome fluid = run(d, true);
    d.sets.push_back("arch.asic.timing=cycle");
    expect_exact(d, &feasible);
    const Outcome whole = run(d, true);
    if (!whole.feasible || !fluid.feasible) continue;
    const double c = whole.report["timing"]["cycles"].get<double>(), f = fluid.report["timing"]["cycles"].get<double>();
    EXPECT_EQ(c, std::floor(c)) << d.label() << ": a whole-cycle run ended between edges";
    fractional_fluid += f != std::floor(f);
    worst = std::max(worst, std::abs(c - f) / f);
    EXPECT_LT(std::abs(c - f) / f, 0.01) << d.label() << ": whole cycles " << c << " against fluid " << f;
    json bytes_whole = whole.report["traffic"], bytes_fluid = fluid.report["traffic"];
    bytes_whole.erase("dram_gbps");  // bytes over cycles: the cycles differ
    bytes_fluid.erase("dram_gbps");
    EXPECT_EQ(bytes_whole, bytes_fluid) << d.label() << ": the bytes do not depend on when units act";
  }
  EXPECT_GE(feasible, 40);
  EXPECT_GT(fractional_fluid, 0) << "no fluid design ended between edges: the test shows nothing";
  std::printf("whole cycles: %d designs, %d of them end between edges when fluid; largest difference %.4f%%\n", feasible,
              fractional_fluid, 100 * worst);
}
