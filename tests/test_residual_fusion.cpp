// A residual workload fused into the norm unit or made by a separate adder
// (docs/ASIC.md, "Fusion"): the dropout mask, the adder's arithmetic, the
// same numerics in every dataflow, the DRAM bytes of every (fuse x path)
// pair against closed forms written out here, and the configs refused.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "sim/area/area_energy.hpp"
#include <nlohmann/json.hpp>

#include "sim/asic/asic_run.hpp"
#include "sim/asic/isolated_run.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/dropout_mask.hpp"
#include "sim/core/functional_run.hpp"
#include "sim/core/npy.hpp"
#include "sim/core/residual_add.hpp"
#include "sim/core/row_inputs.hpp"
#include "sim/core/row_sample.hpp"

using namespace normsim;

extern "C" int sc_main(int, char**) { return 0; }

namespace {
std::string src() { return std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR; }

// A small Post-Norm LayerNorm with dropout: bf16 x, fp32 r (their widths differ, so a formula mixing them fails).
const char* kPostNorm = R"(name: post
norm: layernorm
rows: 24
hidden: 512
seed: 9
input: {dtype: bf16}
output: {dtype: bf16}
residual:
  dtype: fp32
  distribution: {kind: normal, mean: 0.0, sigma: 2.0}
  dropout: 0.25
)";

config::Workload post_norm(const std::vector<config::Override>& ov = {}) { return config::parse_workload_text(kPostNorm, "post.yaml", ov); }
config::Arch arch_with(config::FuseMode m, asic::InputPath path) {
  config::Arch a = config::load_arch(src() + "/workloads/arch/asic-default.yaml");
  a.fuse.mode = m;
  a.asic->path = path;
  return a;
}
config::Override set(const std::string& s) { return config::parse_override(s); }

// A timing-only run in a forked child (SystemC elaborates once a process).
struct SimRun {
  std::vector<uint64_t> dram_bytes, expected_bytes;
  uint64_t read = 0, written = 0, expected_read = 0, expected_written = 0, param_bytes = 0;
  double cycles = 0, lower_bound = 0, pass_cycles = -1, adder_pass_stall = -1;
};
SimRun simulate(const config::Workload& w, const config::Arch& a) {
  std::string text;
  const int rc = asic::run_isolated(
      [&] {
        asic::AsicOptions o;
        o.numerics = false;
        const asic::AsicResult r = asic::run_asic(w, a, o);
        nlohmann::json j = {{"bytes", r.dram_bytes},
                            {"expected", r.expected.dram_bytes},
                            {"read", r.dram_bytes_read},
                            {"written", r.dram_bytes_written},
                            {"expected_read", r.expected.dram_bytes_read},
                            {"expected_written", r.expected.dram_bytes_written},
                            {"params", r.expected.param_bytes},
                            {"cycles", r.cycles},
                            {"lower_bound", r.expected.lower_bound_cycles}};
        for (const auto& u : r.unit_stats)
          for (const auto& st : u.stats) {
            if (u.unit == "residual_adder_pass" && st.name == "pass_cycles") j["pass"] = st.value;
            if (u.unit == "welford_lanes" && st.name == "stall_cycles.adder_pass") j["held"] = st.value;
          }
        return j.dump();
      },
      "test", text);
  EXPECT_EQ(rc, 0);
  const nlohmann::json j = nlohmann::json::parse(text);
  SimRun r;
  r.dram_bytes = j["bytes"].get<std::vector<uint64_t>>();
  r.expected_bytes = j["expected"].get<std::vector<uint64_t>>();
  r.read = j["read"], r.written = j["written"], r.expected_read = j["expected_read"], r.expected_written = j["expected_written"];
  r.param_bytes = j["params"], r.cycles = j["cycles"], r.lower_bound = j["lower_bound"];
  r.pass_cycles = j.value("pass", -1.0), r.adder_pass_stall = j.value("held", -1.0);
  return r;
}
}  // namespace

TEST(DropoutMask, ThresholdScaleAndWordLayout) {
  EXPECT_EQ(rng::dropout_threshold(0.0), 0u);
  EXPECT_EQ(rng::dropout_threshold(0.25), 0x40000000u);
  EXPECT_EQ(rng::dropout_threshold(0.5), 0x80000000u);
  EXPECT_EQ(rng::dropout_scale(0.5), 2.0f);
  EXPECT_EQ(rng::dropout_scale(0.1), static_cast<float>(1.0 / 0.9));
  // Element i is word i mod 4 of the Philox block at counter i / 4.
  for (uint64_t i : {0ull, 1ull, 2ull, 3ull, 4ull, 1023ull, (1ull << 34) + 5}) {
    const rng::Philox4x32 w = rng::dropout_words(7, i / 4);
    EXPECT_EQ(rng::dropout_keep(7, i, 0x80000000u), w.v[i % 4] >= 0x80000000u) << i;
  }
  // p = 0 keeps everything; the keep rate is 1 - p within 5 binomial sigmas.
  const uint32_t t = rng::dropout_threshold(0.1);
  uint64_t kept = 0, n = 1 << 20;
  for (uint64_t i = 0; i < n; ++i) {
    EXPECT_TRUE(rng::dropout_keep(3, i, 0));
    kept += rng::dropout_keep(3, i, t);
  }
  const double sigma = std::sqrt(n * 0.1 * 0.9);
  EXPECT_NEAR(static_cast<double>(kept), 0.9 * n, 5 * sigma);
  // Another seed, another mask.
  uint64_t same = 0;
  for (uint64_t i = 0; i < 4096; ++i) same += rng::dropout_keep(3, i, t) == rng::dropout_keep(4, i, t);
  EXPECT_LT(same, 4096u);
}

TEST(ResidualAdder, Fp32IsMultiplyThenAddEachRoundedThenTheStoredType) {
  core::ResidualSpec spec;
  spec.dropout_p = 0.5;
  const core::ResidualAddConfig fp32;
  const uint32_t t = rng::dropout_threshold(0.5);
  std::vector<double> x = {1.0, 3.0, -0.5, 1e-3, 7.25, 100.0, 0.1, 2.5}, r = {0.5, -1.0, 0.25, 1e4, 0.0, -3.0, 0.2, 1.0};
  const std::vector<double> x0 = x;
  core::ResidualAddCounters c;
  core::residual_add_row(spec, fp32, 11, 3, x, r, core::ElemType::bf16, c);
  uint64_t dropped = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const bool keep = rng::dropout_keep(11, 3 * x.size() + i, t);
    dropped += !keep;
    const float branch = keep ? static_cast<float>(x0[i]) * 2.0f : 0.0f;
    EXPECT_EQ(x[i], core::round_to_elem(branch + static_cast<float>(r[i]), core::ElemType::bf16)) << i;
  }
  EXPECT_EQ(c.elements, x.size());
  EXPECT_EQ(c.dropped, dropped);
  EXPECT_EQ(c.quantizations, 0u);
}

TEST(ResidualAdder, FixedPointRoundsOnceAndCountsOverflow) {
  core::ResidualSpec spec;  // no dropout: z = q(x) + q(r), rounded once
  core::ResidualAddConfig fx;
  fx.fixed = true;
  fx.format.total_bits = 8;
  fx.format.frac_bits = 4;  // s3.4: [-8, 7.9375], lsb 1/16
  std::vector<double> x = {1.03125, 7.5, -8.0, 0.5}, r = {0.0, 1.0, -1.0, 0.25};
  core::ResidualAddCounters c;
  core::residual_add_row(spec, fx, 1, 0, x, r, core::ElemType::fp32, c);
  EXPECT_EQ(x[0], 1.0);     // 1.03125 is half an lsb above 1: half-even gives 1.0
  EXPECT_EQ(x[1], 7.9375);  // 8.5 saturates
  EXPECT_EQ(x[2], -8.0);    // -9 saturates
  EXPECT_EQ(x[3], 0.75);
  EXPECT_EQ(c.quantizations, 12u);  // x, r and the sum of each element
  EXPECT_EQ(c.overflows, 2u);
}

TEST(ResidualFusion, EveryDataflowNormalisesTheSameSum) {
  const config::Workload w = post_norm();
  // The functional pipeline (fused or not: one adder arithmetic) ...
  const auto none = arch_with(config::FuseMode::none, asic::InputPath::sram_replay);
  const auto fused = arch_with(config::FuseMode::residual_dropout, asic::InputPath::sram_replay);
  const core::FunctionalResult a = core::run_functional(w, config::datapath_config(w, none), core::FunctionalOptions{true, true, 1});
  const core::FunctionalResult b = core::run_functional(w, config::datapath_config(w, fused), core::FunctionalOptions{true, true, 3});
  ASSERT_EQ(a.outputs.y.size(), b.outputs.y.size());
  for (size_t i = 0; i < a.outputs.y.size(); ++i) ASSERT_EQ(a.outputs.y[i], b.outputs.y[i]) << i;
  // ... whose kept input is z, recomputed here from x, r and the mask.
  std::vector<double> x, r;
  for (int64_t row : {0, 7, 23}) {
    core::generate_input_row(w, row, x, nullptr);
    core::generate_residual_row(w, row, r);
    for (size_t c = 0; c < x.size(); ++c) {
      const uint64_t i = static_cast<uint64_t>(row) * 512 + c;
      const float branch = rng::dropout_keep(9, i, rng::dropout_threshold(0.25)) ? static_cast<float>(x[c]) * rng::dropout_scale(0.25) : 0.0f;
      ASSERT_EQ(a.outputs.x[i], core::round_to_elem(branch + static_cast<float>(r[c]), core::ElemType::bf16)) << i;
    }
  }
  EXPECT_NEAR(static_cast<double>(a.numerics.residual_add.dropped) / a.numerics.residual_add.elements, 0.25, 0.02);
  EXPECT_EQ(a.numerics.residual_add.elements, static_cast<uint64_t>(w.elements()));
}

TEST(ResidualFusion, AResidualFromANpyFileIsTakenAsStored) {
  // r as a (rows, hidden) fp32 tensor; its values exactly, z = x + r rounded to x's bf16.
  const std::string dir = ::testing::TempDir();
  std::vector<float> r(4 * 8);
  for (size_t i = 0; i < r.size(); ++i) r[i] = 0.125f * static_cast<float>(i) - 1.0f;
  core::write_npy(dir + "/r.npy", r, {4, 8});
  const config::Workload w = config::parse_workload_text(
      "norm: rmsnorm\nrows: 4\nhidden: 8\ninput: {dtype: bf16}\nresidual: {file: r.npy}\n", dir + "/w.yaml");
  ASSERT_TRUE(w.residual);
  EXPECT_EQ(w.residual->tensor.dtype, core::ElemType::fp32);  // the file's
  std::vector<double> x, got, z;
  for (int64_t row = 0; row < 4; ++row) {
    core::generate_residual_row(w, row, got);
    core::generate_input_row(w, row, x, nullptr);
    core::datapath_input_row(w, core::ResidualAddConfig{}, row, z, nullptr, nullptr);
    for (size_t c = 0; c < 8; ++c) {
      EXPECT_EQ(got[c], r[static_cast<size_t>(row) * 8 + c]);
      EXPECT_EQ(z[c], core::round_to_elem(static_cast<float>(x[c]) + static_cast<float>(got[c]), core::ElemType::bf16));
    }
  }
  // A file of another shape is refused with the numbers.
  core::write_npy(dir + "/r3.npy", std::vector<float>(3 * 8), {3, 8});
  try {
    config::parse_workload_text("norm: rmsnorm\nrows: 4\nhidden: 8\nresidual: {file: r3.npy}\n", dir + "/w.yaml");
    ADD_FAILURE() << "no error";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("holds 24 values, the input 32"), std::string::npos) << e.what();
  }
}

TEST(ResidualFusion, ARowSampleTakesTheWholeTensorsRowsMaskAndResidual) {
  const config::Workload w = post_norm();
  const core::NormProblem s = core::sample_rows(w, 5);
  const std::vector<int64_t> rows = core::sampled_rows(w.rows, 5);
  const core::ResidualAddConfig fp32;
  std::vector<double> whole, part;
  for (int64_t k = 0; k < 5; ++k) {
    core::datapath_input_row(w, fp32, rows[static_cast<size_t>(k)], whole, nullptr, nullptr);
    core::datapath_input_row(s, fp32, k, part, nullptr, nullptr);
    ASSERT_EQ(whole, part) << "sample row " << k;
  }
}

// The closed forms, written out per (fuse x path): N rows of C, x and z in
// bf16 (2 B), r in fp32 (4 B), y bf16, f the kept fraction.
TEST(ResidualFusion, DramBytesOfEveryFuseAndPathMeetTheClosedForms) {
  const uint64_t N = 24, C = 512, x = 2, r = 4, z = 2, y = 2, stats = 8 * N;
  for (const bool pre_norm : {false, true}) {
    const config::Workload w = post_norm(pre_norm ? std::vector<config::Override>{set("workload.residual.dataflow=pre_norm"),
                                                                                   set("workload.residual.dropout=0")}
                                                  : std::vector<config::Override>{});
    for (const auto mode : {config::FuseMode::none, config::FuseMode::residual_dropout}) {
      for (const auto path : {asic::InputPath::sram_replay, asic::InputPath::dram_reread, asic::InputPath::partial_replay}) {
        const SimRun res = simulate(w, arch_with(mode, path));
        const uint64_t kept = path == asic::InputPath::sram_replay ? C : path == asic::InputPath::dram_reread ? 0 : C / 2;
        const uint64_t params = res.param_bytes, reread = N * (C - kept) * z;
        EXPECT_EQ(params, C * (2 + 2));  // gamma and beta at asic-default's 16-bit formats
        std::map<asic::Traffic, uint64_t> want;
        want[asic::Traffic::params] = params;
        want[asic::Traffic::output] = N * C * y;
        want[asic::Traffic::stats] = stats;
        want[asic::Traffic::input_reread] = reread;
        if (mode == config::FuseMode::none) {  // the adder's pass, then the unit on z
          want[asic::Traffic::adder_read] = N * C * (x + r);
          want[asic::Traffic::adder_write] = N * C * z;
          want[asic::Traffic::input] = N * C * z;
        } else {  // x and r in; z out when kept (Pre-Norm) or re-read
          want[asic::Traffic::input] = N * C * x;
          want[asic::Traffic::residual] = N * C * r;
          want[asic::Traffic::sum] = pre_norm ? N * C * z : reread;
        }
        uint64_t read = 0, written = 0;
        for (int k = 0; k < asic::kTrafficKinds; ++k) {
          const auto kind = static_cast<asic::Traffic>(k);
          const uint64_t expect = want.count(kind) ? want[kind] : 0;
          EXPECT_EQ(res.dram_bytes[k], expect) << asic::to_string(kind) << " pre_norm " << pre_norm << " mode "
                                               << config::to_string(mode) << " path " << asic::to_string(path);
          EXPECT_EQ(res.expected_bytes[k], expect) << asic::to_string(kind);
          const bool is_write = kind == asic::Traffic::output || kind == asic::Traffic::stats || kind == asic::Traffic::sum ||
                                kind == asic::Traffic::adder_write;
          (is_write ? written : read) += expect;
        }
        EXPECT_EQ(res.read, read);
        EXPECT_EQ(res.written, written);
        EXPECT_EQ(res.expected_read, read);
        EXPECT_EQ(res.expected_written, written);
        EXPECT_GE(res.cycles, res.lower_bound);
      }
    }
  }
}

TEST(ResidualFusion, FusingSavesTwoTensorsPostNormAndOnePreNorm) {
  const uint64_t NC = 24 * 512, z = 2;
  auto total = [](const config::Workload& w, config::FuseMode m) {
    const SimRun r = simulate(w, arch_with(m, asic::InputPath::sram_replay));
    return r.read + r.written;
  };
  const config::Workload post = post_norm();
  EXPECT_EQ(total(post, config::FuseMode::none) - total(post, config::FuseMode::residual_dropout), 2 * NC * z);
  const config::Workload pre = post_norm({set("workload.residual.dataflow=pre_norm")});
  EXPECT_EQ(total(pre, config::FuseMode::none) - total(pre, config::FuseMode::residual_dropout), NC * z);
}

TEST(ResidualFusion, EveryDataflowRunsNearItsDramBound) {
  // 1024 rows, and rows in flight enough to cover the DRAM's latency x
  // bandwidth (12.8 KB) with 1 KB rows: bandwidth-bound on asic-default's
  // 64 B a cycle; the fill and drain (a few latencies) are small against the stream.
  const config::Workload w = post_norm({set("workload.rows=1024")});
  for (const auto mode : {config::FuseMode::none, config::FuseMode::residual_dropout})
    for (const auto path : {asic::InputPath::sram_replay, asic::InputPath::dram_reread}) {
      config::Arch a = arch_with(mode, path);
      a.asic->rows_in_flight = 16;
      const SimRun r = simulate(w, a);
      EXPECT_LE(r.cycles, 1.03 * r.lower_bound) << config::to_string(mode) << " " << asic::to_string(path);
    }
}

TEST(ResidualFusion, TheSeparateAddersPassHoldsTheUnitBack) {
  const SimRun r = simulate(post_norm(), arch_with(config::FuseMode::none, asic::InputPath::sram_replay));
  const double pass = r.pass_cycles, held = r.adder_pass_stall;
  // The pass moves 24 x 512 x (2 + 4 + 2) bytes at 64 B a cycle, at least.
  EXPECT_GE(pass, 24.0 * 512 * 8 / 64);
  EXPECT_DOUBLE_EQ(held, pass);  // the first transaction waits for the pass's last write
}

TEST(ResidualFusion, TheFusedUnitsAreaHoldsTheAdderAndTheMaskGenerator) {
  const config::Workload w = post_norm();
  auto units = [&](config::FuseMode m) {
    const core::DatapathConfig dp = config::datapath_config(w, arch_with(m, asic::InputPath::sram_replay));
    std::map<std::string, area::UnitArea> u;
    for (const auto& x : area::estimate_area(dp, {}, "7nm", 1).units) u[x.unit] = x;
    return u;
  };
  const auto none = units(config::FuseMode::none), fused = units(config::FuseMode::residual_dropout);
  EXPECT_FALSE(none.count("residual_adder"));
  EXPECT_FALSE(none.count("dropout_mask_generator"));
  ASSERT_TRUE(fused.count("residual_adder"));
  ASSERT_TRUE(fused.count("dropout_mask_generator"));
  EXPECT_EQ(fused.at("residual_adder").instances, 16);         // a lane each
  EXPECT_EQ(fused.at("dropout_mask_generator").instances, 4);  // four words a Philox pipeline a cycle
  EXPECT_GT(fused.at("dropout_mask_generator").um2, fused.at("residual_adder").um2);
  // Energy: the same sums and mask words fused or not.
  area::ActivityCounts act;
  act.elements = act.residual_sums = act.masked_elements = 1000;
  act.node = "45nm";
  const auto e = area::estimate_energy(config::datapath_config(w, arch_with(config::FuseMode::none, asic::InputPath::sram_replay)), act);
  EXPECT_DOUBLE_EQ(e.dropout_mask_pj, 1000 * (20 * 3.1 / 4 + 0.1));
}

TEST(ResidualFusion, ConfigsThatCannotWorkAreRefused) {
  const config::Workload w = post_norm();
  const config::Workload plain = config::parse_workload_text("norm: rmsnorm\nrows: 4\nhidden: 64\n", "plain.yaml");
  auto msg = [](auto f) {
    try {
      f();
    } catch (const config::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg([&] { config::datapath_config(plain, arch_with(config::FuseMode::residual, asic::InputPath::sram_replay)); })
                .find("fuse.mode"),
            std::string::npos);
  EXPECT_NE(msg([&] { config::datapath_config(w, arch_with(config::FuseMode::residual, asic::InputPath::sram_replay)); })
                .find("residual_dropout"),
            std::string::npos);
  const std::string base = "norm: layernorm\nrows: 4\nhidden: 64\n";
  EXPECT_NE(msg([&] { config::parse_workload_text(base + "input: {dtype: int8, scale: 0.1}\nresidual: {}\n", "w.yaml"); }).find("int8"),
            std::string::npos);
  EXPECT_NE(msg([&] { config::parse_workload_text(base + "residual: {dropout: 1.0}\n", "w.yaml"); }).find("0 <= p < 1"),
            std::string::npos);
  EXPECT_NE(msg([&] { config::parse_workload_text(base + "residual: {dataflow: pre_norm, write_sum: false}\n", "w.yaml"); })
                .find("always written"),
            std::string::npos);
  EXPECT_NE(msg([&] { config::parse_workload_text(base + "residual: {dtype: int8}\n", "w.yaml"); }).find("fp16"), std::string::npos);
  EXPECT_NE(msg([&] { config::parse_arch_text("lanes: 4\nfuse: {add_format: fp16}\n", "a.yaml"); }).find("fp32"), std::string::npos);
}
