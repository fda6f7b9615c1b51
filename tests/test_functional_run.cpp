// The functional pipeline on the shipped workloads: the numerical claims of docs/NUMERICS.md.
#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"
#include "sim/config/arch.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/config/workload.hpp"
#include "sim/core/functional_run.hpp"

using namespace normsim;

namespace {
std::string src() { return std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR; }
config::Workload workload(const std::string& n, int64_t rows = 0) {
  auto w = config::load_workload(src() + "/workloads/" + n + ".yaml");
  if (rows) w.rows = rows;
  return w;
}
config::Arch arch(const std::string& n) { return config::load_arch(src() + "/workloads/arch/" + n + ".yaml"); }
core::FunctionalResult run_with(const config::Workload& w, const config::Arch& a, std::optional<core::VarianceAlgorithm> alg,
                                bool keep_outputs = false) {
  return core::run_functional(w, config::datapath_config(w, a, alg), keep_outputs);
}
}  // namespace

TEST(FunctionalRun, CancellationSinglePassFailsWelfordHolds) {
  const auto w = workload("cancellation", 128);
  const auto a = arch("fp32");
  const auto sp = run_with(w, a, core::VarianceAlgorithm::single_pass);
  const auto wf = run_with(w, a, core::VarianceAlgorithm::welford);
  const auto tp = run_with(w, a, core::VarianceAlgorithm::two_pass);
  const double e_sp = sp.numerics.output_error.rel_l2();
  const double e_wf = wf.numerics.output_error.rel_l2();
  const double e_tp = tp.numerics.output_error.rel_l2();
  EXPECT_GE(e_sp, 1000 * e_wf) << e_sp << " vs " << e_wf;
  EXPECT_LE(e_wf, 2 * e_tp) << e_wf << " vs two-pass " << e_tp;
  // Both bounded by the conditioning: ULP(1e4)/sigma = 2^-10.
  EXPECT_LT(e_wf, std::ldexp(1.0, -10));
  EXPECT_GT(sp.numerics.counters.negative_variance_clamps, 0u);
}

TEST(FunctionalRun, Fixed16OnGpt2IsWithinOneUlp) {
  const auto r = run_with(workload("gpt2-small", 256), arch("fixed16"), std::nullopt);
  EXPECT_GE(r.numerics.output_error.frac_within_1ulp(), 0.999);
  for (int s = 0; s < core::kStageCount; ++s) EXPECT_EQ(r.numerics.counters.overflows[s], 0u) << s;
}

TEST(FunctionalRun, Int8SquareSumNeeds26Bits) {
  // Seed 001 section 38: 4096 squares of int8 codes need ~26 bits.
  auto w = workload("int8", 32);
  auto a = arch("int8-fixed");
  const int sumsq = static_cast<int>(core::Stage::sumsq);
  const auto ok = run_with(w, a, std::nullopt);
  EXPECT_EQ(ok.numerics.counters.overflows[sumsq], 0u);
  a.formats[sumsq].total_bits = 24;
  const auto narrow = run_with(w, a, std::nullopt);
  EXPECT_GT(narrow.numerics.counters.overflows[sumsq], 0u);
  EXPECT_GT(narrow.numerics.output_error.rel_l2(), 10 * ok.numerics.output_error.rel_l2());
}

TEST(FunctionalRun, RmsNormFp32MatchesReferenceToBf16Rounding) {
  const auto r = run_with(workload("llama2-7b", 64), arch("fp32"), std::nullopt);
  EXPECT_EQ(r.numerics.algorithm_name, "sum-of-squares");
  EXPECT_LE(r.numerics.output_error.max_ulp(), 0.5 + 1e-3);  // bf16 RNE of a near-exact fp32 value
}

TEST(FunctionalRun, EpsBelowRsqrtInResolutionIsReported) {
  auto w = workload("gpt2-small", 1);
  auto a = arch("fixed16");
  a.formats[static_cast<int>(core::Stage::rsqrt_in)].frac_bits = 8;
  const auto r = run_with(w, a, std::nullopt);
  ASSERT_EQ(r.numerics.warnings.size(), 1u);
  EXPECT_NE(r.numerics.warnings[0].find("eps 1e-05 rounds to 0"), std::string::npos) << r.numerics.warnings[0];
  // A constant row has zero variance: rsqrt(0) saturates, and is counted.
  w.input_dist = rng::Distribution::constant(2.0);
  const auto c = run_with(w, a, std::nullopt);
  EXPECT_EQ(c.numerics.counters.overflows[static_cast<int>(core::Stage::rsqrt_out)], 1u);
}

TEST(FunctionalRun, KeptOutputsAreTheStreamedOnes) {
  const auto r = run_with(workload("bert-large", 3), arch("fixed16"), std::nullopt, true).outputs;
  EXPECT_EQ(r.y.size(), 3u * 1024u);
  EXPECT_EQ(r.mean.size(), 3u);
  EXPECT_GT(r.rstd[0], 0.5);
}
