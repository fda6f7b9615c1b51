// Rows from a .npy tensor (every dtype it reads, memory-mapped) and from the
// LLM-activation model; the workload keys that choose them, with every bad
// file refused in one line naming the key; and the threaded numerics giving
// the same bits for any thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "sim/config/arch.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/config/workload.hpp"
#include "sim/core/functional_run.hpp"
#include "sim/core/llm_activation.hpp"
#include "sim/core/npy.hpp"
#include "sim/core/npy_input.hpp"
#include "sim/core/rng_batch.hpp"
#include "sim/core/row_inputs.hpp"

using namespace normsim;

namespace {
std::string src() { return std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR; }

std::filesystem::path tmp_dir() {
  static const std::filesystem::path d = [] {
    auto p = std::filesystem::temp_directory_path() / ("normsim_input_source_" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    return p;
  }();
  return d;
}

// A 3 x 5 tensor whose values are exact in every dtype: v(r, c) = (r - 1) * 2 + c / 4.
double value(int r, int c) { return (r - 1) * 2.0 + c / 4.0; }

std::string write_tensor(const std::string& name, core::ElemType t, std::vector<int64_t> shape = {3, 5}) {
  const std::string p = (tmp_dir() / name).string();
  std::vector<double> v;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 5; ++c) v.push_back(value(r, c));
  switch (t) {
    case core::ElemType::fp32: {
      std::vector<float> f(v.begin(), v.end());
      core::write_npy(p, f, shape);
      break;
    }
    case core::ElemType::bf16: {
      std::vector<uint16_t> b;
      for (double d : v) b.push_back(core::fp32_to_bf16_bits(static_cast<float>(d)));
      core::write_npy(p, "<u2", shape, b.data(), b.size() * 2);
      break;
    }
    case core::ElemType::fp16: {
      std::vector<uint16_t> b;
      for (double d : v) b.push_back(core::fp32_to_fp16_bits(static_cast<float>(d)));
      core::write_npy(p, "<f2", shape, b.data(), b.size() * 2);
      break;
    }
    case core::ElemType::int8: {
      std::vector<int8_t> b;
      for (double d : v) b.push_back(static_cast<int8_t>(d * 4));  // scale 0.25
      core::write_npy(p, "|i1", shape, b.data(), b.size());
      break;
    }
  }
  return p;
}

std::string workload_error(const std::string& text) {
  try {
    config::parse_workload_text(text, (tmp_dir() / "w.yaml").string());
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}
void expect_one_line_with(const std::string& msg, std::initializer_list<const char*> parts) {
  ASSERT_FALSE(msg.empty()) << "no error raised";
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' missing in: " << msg;
}
}  // namespace

TEST(NpyRowInput, ReadsEveryDtypeExactly) {
  for (auto [t, scale] : {std::pair{core::ElemType::fp32, 1.0}, {core::ElemType::bf16, 1.0}, {core::ElemType::fp16, 1.0},
                          {core::ElemType::int8, 0.25}}) {
    const std::string p = write_tensor("t_" + std::string(core::to_string(t)) + ".npy", t);
    core::NpyRowInput in(p, core::Int8Scale{scale});
    EXPECT_EQ(in.dtype(), t);
    EXPECT_EQ(in.shape(), (std::vector<int64_t>{3, 5}));
    std::vector<double> x(5);
    for (int r = 0; r < 3; ++r) {
      in.fill_row(r, 5, x.data());
      for (int c = 0; c < 5; ++c) EXPECT_EQ(x[c], value(r, c)) << core::to_string(t) << " " << r << "," << c;
    }
  }
}

TEST(NpyRowInput, RefusesWhatItCannotRead) {
  auto error = [](const std::string& p) {
    try {
      core::NpyRowInput in(p);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // Truncated: the header promises more than the file holds.
  const std::string good = write_tensor("trunc.npy", core::ElemType::fp32);
  std::filesystem::resize_file(good, std::filesystem::file_size(good) - 4);
  EXPECT_NE(error(good).find("the header promises"), std::string::npos) << error(good);
  // A dtype it does not read.
  const std::string f8 = (tmp_dir() / "f8.npy").string();
  core::write_npy(f8, std::vector<double>{1, 2}, {2});
  EXPECT_NE(error(f8).find("'<f8'"), std::string::npos) << error(f8);
  // Not a regular file, not .npy, missing.
  EXPECT_NE(error(tmp_dir().string()).find("not a regular file"), std::string::npos);
  EXPECT_NE(error("/dev/zero").find("not a regular file"), std::string::npos);
  const std::string junk = (tmp_dir() / "junk.npy").string();
  std::ofstream(junk) << "this is not numpy at all";
  EXPECT_NE(error(junk).find("not a .npy file"), std::string::npos) << error(junk);
  EXPECT_NE(error((tmp_dir() / "none.npy").string()).find("cannot open"), std::string::npos);
}

TEST(InputFileKey, InfersRowsAndDtype) {
  write_tensor("w_fp16.npy", core::ElemType::fp16, {15});
  const auto w = config::parse_workload_text("norm: rmsnorm\nhidden: 5\ninput: {file: w_fp16.npy}\n", (tmp_dir() / "w.yaml").string());
  EXPECT_EQ(w.rows, 3);
  EXPECT_EQ(w.input.dtype, core::ElemType::fp16);
  std::vector<double> x;
  core::generate_input_row(w, 2, x, nullptr);
  for (int c = 0; c < 5; ++c) EXPECT_EQ(x[c], value(2, c));
  EXPECT_EQ(config::workload_echo(w)["input_distribution"]["kind"], "file");
}

TEST(InputFileKey, MismatchesAreOneLineNamingTheKey) {
  write_tensor("m_fp32.npy", core::ElemType::fp32);
  write_tensor("m_int8.npy", core::ElemType::int8);
  expect_one_line_with(workload_error("norm: rmsnorm\nhidden: 5\ninput: {dtype: bf16, file: m_fp32.npy}\n"),
                       {"w.yaml:3", "input.file", "<f4 (fp32) but input.dtype is bf16", "allowed"});
  expect_one_line_with(workload_error("norm: rmsnorm\nhidden: 4\ninput: {file: m_fp32.npy}\n"),
                       {"input.file", "shape (3, 5)", "rows of 5 but hidden is 4"});
  expect_one_line_with(workload_error("norm: rmsnorm\nhidden: 5\nrows: 4\ninput: {file: m_fp32.npy}\n"),
                       {"input.file", "holds 3 rows but the workload has 4"});
  expect_one_line_with(workload_error("norm: rmsnorm\nhidden: 5\ninput: {file: m_int8.npy}\n"), {"input.scale", "missing"});
  expect_one_line_with(workload_error("norm: rmsnorm\nhidden: 5\ninput: {file: nope.npy}\n"), {"input.file", "nope.npy", "cannot open"});
  expect_one_line_with(workload_error("norm: rmsnorm\nhidden: 5\ninput: {file: m_fp32.npy, distribution: {kind: normal}}\n"),
                       {"input.file", "not both"});
  expect_one_line_with(workload_error("norm: rmsnorm\nhidden: 5\n"), {"rows", "missing"});
  // A flat file whose length is no whole number of rows.
  write_tensor("m_flat.npy", core::ElemType::fp32, {15});
  expect_one_line_with(workload_error("norm: rmsnorm\nhidden: 4\ninput: {file: m_flat.npy}\n"),
                       {"input.file", "15 values, not a whole number of rows of 4"});
}

TEST(LlmActivation, OutlierAndMassiveChannelsAreWhereTheModelPutsThem) {
  core::LlmActivation p;
  p.massive_every = 8;
  const int64_t C = 4096;
  const core::LlmActivationInput in(p, 7, C);
  ASSERT_EQ(in.outlier_channels().size(), 6u);
  ASSERT_EQ(in.massive_channels().size(), 2u);
  std::vector<double> x(C);
  // A massive row: exactly +-ratio x sigma on its channels, the largest values by far.
  in.fill_row(16, C, x.data());
  for (int64_t m : in.massive_channels()) EXPECT_EQ(std::fabs(x[m]), 1e4);
  // Over ordinary rows, each outlier channel's RMS is outlier_scale times its scale's typical size.
  std::vector<double> ss(C, 0.0);
  for (int64_t r = 1; r < 8; ++r) {
    in.fill_row(r, C, x.data());
    for (int64_t m : in.massive_channels()) EXPECT_LT(std::fabs(x[m]), 1e3);
    for (int64_t c = 0; c < C; ++c) ss[c] += x[c] * x[c];
  }
  std::vector<double> rms(C);
  for (int64_t c = 0; c < C; ++c) rms[c] = std::sqrt(ss[c] / 7);
  std::vector<double> sorted = rms;
  std::nth_element(sorted.begin(), sorted.begin() + C / 2, sorted.end());
  const double median = sorted[C / 2];
  for (int64_t o : in.outlier_channels()) EXPECT_GT(rms[o], 4 * median) << o;
  // The same seed, the same channels; another, others.
  const core::LlmActivationInput again(p, 7, C), other(p, 8, C);
  EXPECT_EQ(again.outlier_channels(), in.outlier_channels());
  EXPECT_NE(other.outlier_channels(), in.outlier_channels());
}

TEST(LlmActivation, WorkloadKeysAndTheirRanges) {
  const auto w = config::parse_workload_text(
      "norm: rmsnorm\nhidden: 64\nrows: 4\ninput: {dtype: bf16, distribution: {kind: llm, outlier_channels: 3, massive_every: 2}}\n",
      "w.yaml");
  const auto e = config::workload_echo(w)["input_distribution"];
  EXPECT_EQ(e["kind"], "llm");
  EXPECT_EQ(e["outlier_channels"], 3);
  EXPECT_EQ(e["outlier_channel_indices"].size(), 3u);
  expect_one_line_with(workload_error("norm: rmsnorm\nhidden: 64\nrows: 4\ninput: {distribution: {kind: llm, sigma: 0}}\n"),
                       {"input.distribution.sigma", "> 0"});
  expect_one_line_with(workload_error("norm: rmsnorm\nhidden: 64\nrows: 4\ninput: {distribution: {kind: llm, outlier_scale: 0.5}}\n"),
                       {"input.distribution.outlier_scale", "[1, 1e6]"});
  expect_one_line_with(workload_error("norm: rmsnorm\nhidden: 64\nrows: 4\ninput: {distribution: {kind: llm, massive: 2}}\n"),
                       {"input.distribution", "massive"});
}

TEST(WorkloadOverrides, RowsReplacesBatchAndSeq) {
  const std::string text = "norm: rmsnorm\nhidden: 64\nbatch: 2\nseq: 8\n";
  EXPECT_EQ(config::parse_workload_text(text, "w.yaml").rows, 16);
  EXPECT_EQ(config::parse_workload_text(text, "w.yaml", {config::parse_override("workload.rows=5")}).rows, 5);
  EXPECT_EQ(config::parse_workload_text("norm: rmsnorm\nhidden: 64\nrows: 3\n", "w.yaml",
                                        {config::parse_override("workload.batch=3"), config::parse_override("workload.seq=4")})
                .rows,
            12);
}

TEST(ThreadedNumerics, EveryThreadCountGivesTheSameBits) {
  auto w = config::load_workload(src() + "/workloads/gpt2-small.yaml");
  w.rows = 150;  // not a multiple of the block
  for (const char* a : {"fixed16", "fp32"}) {
    const auto arch = config::load_arch(src() + "/workloads/arch/" + a + ".yaml");
    const auto cfg = config::datapath_config(w, arch);
    const auto one = core::run_functional(w, cfg, core::FunctionalOptions{true, true, 1});
    for (int t : {2, 3, 7}) {
      const auto many = core::run_functional(w, cfg, core::FunctionalOptions{true, true, t});
      const auto& e1 = one.numerics.output_error;
      const auto& en = many.numerics.output_error;
      EXPECT_EQ(e1.rel_l2(), en.rel_l2()) << a << " " << t;
      EXPECT_EQ(e1.rms(), en.rms());
      EXPECT_EQ(e1.max_ulp(), en.max_ulp());
      EXPECT_EQ(e1.max_abs(), en.max_abs());
      EXPECT_EQ(e1.frac_within_1ulp(), en.frac_within_1ulp());
      EXPECT_EQ(one.numerics.mean_max_abs_error, many.numerics.mean_max_abs_error);
      EXPECT_EQ(one.numerics.rstd_max_rel_error, many.numerics.rstd_max_rel_error);
      EXPECT_EQ(one.numerics.counters.overflows, many.numerics.counters.overflows);
      EXPECT_EQ(one.numerics.counters.quantizations, many.numerics.counters.quantizations);
      EXPECT_EQ(one.outputs.y, many.outputs.y);
      EXPECT_EQ(one.outputs.rstd, many.outputs.rstd);
      EXPECT_EQ(one.outputs.x, many.outputs.x);
      EXPECT_EQ(one.outputs.y_ref, many.outputs.y_ref);
    }
    // The kept rows are the rows: row 149's input is generated row 149.
    std::vector<double> x;
    core::generate_input_row(w, 149, x, nullptr);
    EXPECT_TRUE(std::equal(x.begin(), x.end(), one.outputs.x.begin() + 149 * w.hidden));
  }
}

TEST(RowInputs, RowRoundingIsRoundToElementForEveryValue) {
  // The vectorised bf16 row loop against round_to_elem, over values that
  // overflow to Inf, underflow to subnormals and zero, and ties.
  core::NormProblem p;
  p.hidden = 4096;
  p.rows = 3;
  p.seed = 11;
  p.input.dtype = core::ElemType::bf16;
  for (const auto& d : {rng::Distribution::uniform(-4e38, 4e38), rng::Distribution::normal(0.0, 1e-39),
                        rng::Distribution::normal(0.0, 1.0)}) {
    p.input_dist = d;
    for (int64_t r = 0; r < p.rows; ++r) {
      std::vector<double> got, raw(static_cast<size_t>(p.hidden));
      core::generate_input_row(p, r, got, nullptr);
      rng::sample_batch(d, p.seed, rng::kInput, static_cast<uint64_t>(r * p.hidden), raw.size(), raw.data());
      for (size_t i = 0; i < raw.size(); ++i) {
        const double want = core::round_to_elem(raw[i], core::ElemType::bf16);
        ASSERT_TRUE(want == got[i] || (std::isnan(want) && std::isnan(got[i]))) << raw[i] << " -> " << got[i] << " vs " << want;
      }
    }
  }
}
