// Host-side logic of the gpu_ref harness: argument checks (exit-2 messages),
// kernel limits, validation tolerances, JSON. No GPU needed.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "host/fast_shape.hpp"
#include "host/normref_args.hpp"
#include "host/normref_validate.hpp"
#include "sim/core/counter_rng.hpp"
#include "sim/core/norm_datapath.hpp"

using namespace normref;

namespace {
std::optional<std::string> parse(std::vector<const char*> argv, Args& a) {
  argv.insert(argv.begin(), "normref");
  return parse_args(static_cast<int>(argv.size()), argv.data(), a);
}
}  // namespace

TEST(NormrefArgs, GoodArguments) {
  Args a;
  EXPECT_FALSE(parse({"--kernel", "v6", "--rows", "8", "--hidden", "1024", "--dtype", "bf16", "--block", "128"}, a));
  EXPECT_EQ(a.kernel, "v6");
  EXPECT_EQ(a.dtype, DType::bf16);
  EXPECT_EQ(effective_block(a, *find_kernel("v6")), 128);
  Args c;
  EXPECT_FALSE(parse({"--kernel", "v4", "--rows", "8", "--hidden", "768", "--dist", "cancellation"}, c));
  EXPECT_EQ(c.dist_mean, 1.0e4);
}

TEST(NormrefArgs, BadArgumentsGiveOneLine) {
  auto err = [](std::vector<const char*> v) {
    Args a;
    auto e = parse(v, a);
    EXPECT_TRUE(e.has_value());
    EXPECT_EQ(e->find('\n'), std::string::npos);
    return e.value_or("");
  };
  EXPECT_NE(err({"--kernel", "v9", "--rows", "1", "--hidden", "8"}).find("allowed: v1, v2"), std::string::npos);
  EXPECT_NE(err({"--kernel", "v1", "--rows", "0", "--hidden", "8"}).find("--rows"), std::string::npos);
  EXPECT_NE(err({"--kernel", "v1", "--rows", "x", "--hidden", "8"}).find("integer"), std::string::npos);
  EXPECT_NE(err({"--kernel", "welford_warp_reg", "--rows", "1", "--hidden", "8192"}).find("1..4096"), std::string::npos);
  EXPECT_NE(err({"--kernel", "welford_block_smem", "--rows", "1", "--hidden", "65536"}).find("on-chip"), std::string::npos);
  EXPECT_NE(err({"--kernel", "v6", "--rows", "1", "--hidden", "1001"}).find("multiple of 8"), std::string::npos);
  EXPECT_NE(err({"--kernel", "v1", "--rows", "1", "--hidden", "8", "--dtype", "bf16"}).find("no bf16"), std::string::npos);
  EXPECT_NE(err({"--kernel", "v5", "--rows", "1", "--hidden", "8", "--block", "100"}).find("--block"), std::string::npos);
  EXPECT_NE(err({"--kernel", "v5", "--rows", "1", "--hidden", "8", "--bogus", "1"}).find("unknown option"), std::string::npos);
  EXPECT_NE(err({"--kernel"}).find("missing value"), std::string::npos);
}

namespace {
// A layer norm through the fp32 datapath (32 lanes, like a warp), for validate().
void fp32_layernorm(const std::vector<float>& x, const std::vector<float>& g, const std::vector<float>& b, int rows,
                    int C, std::vector<float>& y, std::vector<float>& mean, std::vector<float>& rstd,
                    normsim::core::VarianceAlgorithm alg) {
  normsim::core::DatapathConfig c;
  c.algorithm = alg;
  c.lanes = 32;
  c.hidden = C;
  normsim::core::NormDatapath dp(c, g, b);
  normsim::core::StageCounters counters;
  std::vector<double> xd(static_cast<size_t>(C)), yd(static_cast<size_t>(C));
  y.resize(x.size());
  mean.resize(rows);
  rstd.resize(rows);
  for (int r = 0; r < rows; ++r) {
    for (int i = 0; i < C; ++i) xd[i] = x[static_cast<size_t>(r * C + i)];
    const auto s = dp.process_row(xd, yd, counters);
    for (int i = 0; i < C; ++i) y[static_cast<size_t>(r * C + i)] = static_cast<float>(yd[i]);
    mean[r] = static_cast<float>(s.mean);
    rstd[r] = static_cast<float>(s.rstd);
  }
}
}  // namespace

TEST(NormrefValidate, PassesCorrectKernelsFailsSinglePassOnCancellationAndUnwrittenOutputs) {
  const int rows = 16, C = 768;
  for (bool canc : {false, true}) {
    const auto d = canc ? normsim::rng::Distribution::cancellation() : normsim::rng::Distribution::normal(0, 1);
    std::vector<float> x(rows * C), g(C), b(C);
    for (int i = 0; i < rows * C; ++i) x[i] = static_cast<float>(normsim::rng::sample(d, 1, 0, i));
    for (int i = 0; i < C; ++i) {
      g[i] = static_cast<float>(normsim::rng::sample(normsim::rng::Distribution::normal(1, 0.1), 1, 1, i));
      b[i] = static_cast<float>(normsim::rng::sample(normsim::rng::Distribution::normal(0, 0.1), 1, 2, i));
    }
    std::vector<float> y, m, r;
    fp32_layernorm(x, g, b, rows, C, y, m, r, normsim::core::VarianceAlgorithm::welford);
    const auto ok = validate(*find_kernel("v3"), DType::fp32, rows, C, 1e-5, x, g, b, y, m, r, 2);
    EXPECT_TRUE(ok.valid) << canc << " " << ok.reason;
    fp32_layernorm(x, g, b, rows, C, y, m, r, normsim::core::VarianceAlgorithm::single_pass);
    const auto sp = validate(*find_kernel("v4"), DType::fp32, rows, C, 1e-5, x, g, b, y, m, r, 2);
    EXPECT_EQ(sp.valid, !canc) << sp.reason;
    if (!canc) {
      y[5 * C + 7] = NAN;  // a poisoned element left unwritten
      const auto un = validate(*find_kernel("v3"), DType::fp32, rows, C, 1e-5, x, g, b, y, m, r, 2);
      EXPECT_FALSE(un.valid);
      EXPECT_EQ(un.nonfinite, 1);
    }
  }
}

TEST(FastShape, RowsGoToWarpsBlocksClustersOrTwoSweeps) {
  // fp32: 8 vectors (32 values) a thread at most.
  const FastShape w = fast_norm_shape(768, 4, false);  // 192 vectors: a warp of 6 each, one row a block
  EXPECT_EQ(w.scheme, FastScheme::registers);
  EXPECT_EQ(w.threads_per_row, 32);
  EXPECT_EQ(w.vecs, 6);
  EXPECT_EQ(w.rows_per_block, 1);
  EXPECT_EQ(w.block(), 32);
  EXPECT_EQ(w.grid(8193, 0), 8193);
  const FastShape b = fast_norm_shape(4096, 4, false);  // 1024 vectors: 512 threads x 2 (fp32 C = 1024..16384)
  EXPECT_EQ(b.threads_per_row, 512);
  EXPECT_EQ(b.vecs, 2);
  EXPECT_EQ(b.rows_per_block, 1);
  EXPECT_EQ(b.block(), 512);
  EXPECT_EQ(fast_norm_shape(1024, 4, false).threads_per_row, 128);  // 256 vectors: 128 x 2, no longer a warp of 8
  EXPECT_EQ(fast_norm_shape(1000, 4, false).threads_per_row, 32);   // 250 vectors: a warp of 8
  EXPECT_EQ(fast_norm_shape(8192, 4, false).vecs, 4);               // 2048 vectors: 512 x 4
  EXPECT_EQ(fast_norm_shape(16384, 4, false).vecs, 8);              // 4096 vectors: 512 x 8
  EXPECT_EQ(fast_norm_shape(32768, 4, false).threads_per_row, 1024);  // 8192 vectors: 1024 x 8
  EXPECT_EQ(fast_norm_shape(4096, 2, false).threads_per_row, 128);  // bf16 keeps 4 vectors a thread: 512 / 4
  const FastShape c = fast_norm_shape(65536, 4, false);  // past 1024 x 8: two 1024-thread blocks a row
  EXPECT_EQ(c.scheme, FastScheme::cluster);
  EXPECT_EQ(c.block(), 1024);
  EXPECT_EQ(c.grid(1024, 132), 132);  // persistent: the clusters the GPU holds, walking the rows
  EXPECT_EQ(c.grid(10, 132), 20);
  EXPECT_EQ(fast_norm_shape(65536, 2, false).scheme, FastScheme::cluster);  // bf16: 2 x 1024 threads x 4 vectors
  EXPECT_EQ(fast_norm_shape(65536, 2, false).vecs, 4);
  EXPECT_EQ(fast_norm_shape(131072, 2, false).scheme, FastScheme::two_sweep);
  EXPECT_EQ(fast_norm_shape(131072, 4, false).scheme, FastScheme::two_sweep);
  EXPECT_EQ(fused_residual_threads(768, 4), 32);
  EXPECT_EQ(backward_threads(768, 4), 128);
}

TEST(FastShape, Bf16RowsThatLeaveA1024ThreadBlockThinStreamAsAClusterOfOne) {
  // bf16 past 512 x 4 vectors: the register scheme's 1024 threads, unless a
  // thread would hold at most 3.25 vectors (LayerNorm) or 2.4 (RMSNorm).
  for (const bool rms : {false, true}) {
    const FastShape first = fast_norm_shape(16384 + 1024, 2, rms);  // 2176 vectors
    EXPECT_EQ(first.scheme, FastScheme::cluster);
    EXPECT_EQ(first.cluster, 1);
    EXPECT_EQ(first.block(), 1024);
    EXPECT_EQ(first.vecs, 4);
    EXPECT_EQ(first.grid(4096, 132), 132);  // persistent, one block a row
    EXPECT_EQ(fast_norm_shape(16384, 2, rms).scheme, FastScheme::registers);  // 512 x 4 holds it
  }
  EXPECT_EQ(fast_norm_shape(26624, 2, false).cluster, 1);  // 3328 vectors: LayerNorm's last
  EXPECT_EQ(fast_norm_shape(27648, 2, false).scheme, FastScheme::registers);
  EXPECT_EQ(fast_norm_shape(19456, 2, true).cluster, 1);  // 2432 vectors: RMSNorm's last
  EXPECT_EQ(fast_norm_shape(20480, 2, true).scheme, FastScheme::registers);
  EXPECT_EQ(fast_norm_shape(17408, 4, false).scheme, FastScheme::registers);  // fp32 keeps its registers
  EXPECT_EQ(fast_norm_shape(65536, 2, true).cluster, 2);
  EXPECT_EQ(backward_threads(16384, 4), 0);  // does not fit 1024 threads
}

TEST(NormrefArgs, FrontierKernelsPickTheirBlockAndRefuseWhatTheyCannotHold) {
  Args a;
  EXPECT_FALSE(parse({"--kernel", "fast_ln", "--rows", "8", "--hidden", "768"}, a));
  EXPECT_EQ(effective_block(a, *find_kernel("fast_ln")), 32);  // a warp per row, one row a block
  EXPECT_FALSE(parse({"--kernel", "fast_ln", "--rows", "8", "--hidden", "768", "--block", "32"}, a));
  Args b;
  const auto wrong = parse({"--kernel", "fast_ln", "--rows", "8", "--hidden", "768", "--block", "256"}, b);
  ASSERT_TRUE(wrong);
  EXPECT_NE(wrong->find("allowed: 0 or 32"), std::string::npos) << *wrong;
  Args c;
  const auto big = parse({"--kernel", "bwd_twolevel", "--rows", "8", "--hidden", "16384"}, c);
  ASSERT_TRUE(big);
  EXPECT_NE(big->find("8..8192"), std::string::npos) << *big;
  Args d;
  const auto odd = parse({"--kernel", "fused_residual", "--rows", "8", "--hidden", "772", "--dtype", "bf16"}, d);
  ASSERT_TRUE(odd);
  EXPECT_NE(odd->find("multiple of 8"), std::string::npos) << *odd;
  // Dropout: the dropout kernel's default p, a given one, and no p for any other kernel.
  Args e;
  EXPECT_FALSE(parse({"--kernel", "fused_residual_dropout", "--rows", "8", "--hidden", "768"}, e));
  EXPECT_EQ(e.dropout(), kDefaultDropoutP);
  EXPECT_EQ(effective_block(e, *find_kernel("fused_residual_dropout")), fused_residual_threads(768, 4));
  Args f;
  EXPECT_FALSE(parse({"--kernel", "fused_residual_dropout", "--rows", "8", "--hidden", "768", "--dropout", "0"}, f));
  EXPECT_EQ(f.dropout(), 0.0);
  Args g;
  EXPECT_FALSE(parse({"--kernel", "fused_residual", "--rows", "8", "--hidden", "768"}, g));
  EXPECT_EQ(g.dropout(), 0.0);
  Args h;
  const auto p1 = parse({"--kernel", "fused_residual_dropout", "--rows", "8", "--hidden", "768", "--dropout", "1"}, h);
  ASSERT_TRUE(p1);
  EXPECT_NE(p1->find("[0, 1)"), std::string::npos) << *p1;
  Args i;
  const auto nodrop = parse({"--kernel", "fused_residual", "--rows", "8", "--hidden", "768", "--dropout", "0.1"}, i);
  ASSERT_TRUE(nodrop);
  EXPECT_NE(nodrop->find("has no dropout"), std::string::npos) << *nodrop;
}

TEST(NormrefValidate, BackwardPassesTheExactGradientAndCatchesAWrongOne) {
  const int rows = 64, C = 256;
  std::vector<float> x(rows * C), dy(rows * C), g(C);
  for (int i = 0; i < rows * C; ++i) {
    x[i] = static_cast<float>(normsim::rng::sample(normsim::rng::Distribution::normal(0, 1), 3, 0, i));
    dy[i] = static_cast<float>(normsim::rng::sample(normsim::rng::Distribution::normal(0, 1), 3, 4, i));
  }
  for (int i = 0; i < C; ++i) g[i] = 1.0f + 0.01f * static_cast<float>(i % 7);
  std::vector<float> mean, rstd;
  backward_statistics(x, rows, C, 1e-5, mean, rstd);
  // The gradient in fp64, rounded once: well inside the tolerance.
  std::vector<float> dx(rows * C), dg(C, 0.0f), db(C, 0.0f);
  std::vector<double> dgd(C, 0.0), dbd(C, 0.0);
  for (int r = 0; r < rows; ++r) {
    double s1 = 0, s2 = 0;
    std::vector<double> xh(C), gg(C);
    for (int c = 0; c < C; ++c) {
      xh[c] = (x[r * C + c] - static_cast<double>(mean[r])) * rstd[r];
      gg[c] = static_cast<double>(dy[r * C + c]) * g[c];
      s1 += gg[c], s2 += gg[c] * xh[c];
      dgd[c] += dy[r * C + c] * xh[c], dbd[c] += dy[r * C + c];
    }
    for (int c = 0; c < C; ++c) dx[r * C + c] = static_cast<float>(rstd[r] / C * (C * gg[c] - s1 - xh[c] * s2));
  }
  for (int c = 0; c < C; ++c) dg[c] = static_cast<float>(dgd[c]), db[c] = static_cast<float>(dbd[c]);
  const auto ok = validate_backward(DType::fp32, rows, C, x, dy, g, mean, rstd, dx, dg, db, 2);
  EXPECT_TRUE(ok.valid) << ok.reason;
  // Forgetting the x_hat S2 term (a classic backward bug) is caught.
  std::vector<float> bad = dx;
  for (int r = 0; r < rows; ++r) {
    double s1 = 0;
    for (int c = 0; c < C; ++c) s1 += static_cast<double>(dy[r * C + c]) * g[c];
    for (int c = 0; c < C; ++c) bad[r * C + c] = static_cast<float>(rstd[r] / C * (C * dy[r * C + c] * g[c] - s1));
  }
  const auto wrong = validate_backward(DType::fp32, rows, C, x, dy, g, mean, rstd, bad, dg, db, 2);
  EXPECT_FALSE(wrong.valid);
  EXPECT_NE(wrong.reason.find("dx"), std::string::npos) << wrong.reason;
  // So is a dbeta that lost one row.
  std::vector<float> db2 = db;
  for (int c = 0; c < C; ++c) db2[c] -= dy[c];
  const auto lost = validate_backward(DType::fp32, rows, C, x, dy, g, mean, rstd, dx, dg, db2, 2);
  EXPECT_FALSE(lost.valid);
  EXPECT_NE(lost.reason.find("dgamma/dbeta"), std::string::npos) << lost.reason;
}

TEST(NormrefJson, EscapesAndNulls) {
  JsonObject j;
  j.str("s", "a\"b\\c\n").num("inf", INFINITY).integer("i", -3).boolean("t", true);
  EXPECT_EQ(j.dump(), "{\"s\": \"a\\\"b\\\\c\\n\", \"inf\": null, \"i\": -3, \"t\": true}");
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 2, 3}), 2.5);
}
