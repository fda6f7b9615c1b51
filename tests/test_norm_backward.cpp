// The backward datapath (sim/core/norm_backward.hpp): the fp64 reference
// against a central difference of the forward, the fp32 datapath configured
// as gpu_ref's backward kernels against their emulation bit for bit, fixed
// point against the reference, and the parameter-gradient orders.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "sim/core/float_norm.hpp"
#include "sim/core/norm_backward.hpp"
#include "sim/simt/emulate.hpp"
#include "sim/simt/gpu_arch.hpp"
#include "sim/simt/kernel_desc.hpp"
#include "sim/simt/kernels/kernel_registry.hpp"
#include "tests/golden_paths.hpp"

namespace normsim::core {
namespace {

struct Row {
  std::vector<double> x, dy, gamma;
};

Row random_row(int64_t C, uint32_t seed, double mean = 0.3) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0, 1);
  Row r;
  for (int64_t i = 0; i < C; ++i) {
    r.x.push_back(mean + n(rng));
    r.dy.push_back(n(rng));
    r.gamma.push_back(1 + 0.1 * n(rng));
  }
  return r;
}

// y = gamma (x - mean) rstd (+ beta) in fp64, and the loss sum dy y.
double loss(NormKind kind, const Row& r, std::span<const double> x, double eps) {
  const double C = static_cast<double>(x.size());
  double mean = 0, var = 0;
  if (kind == NormKind::layernorm) {
    for (double v : x) mean += v;
    mean /= C;
  }
  for (double v : x) var += (v - mean) * (v - mean);
  var /= C;
  const double rstd = 1 / std::sqrt(var + eps);
  double l = 0;
  for (size_t i = 0; i < x.size(); ++i) l += r.dy[i] * r.gamma[i] * (x[i] - mean) * rstd;
  return l;
}

void stats(NormKind kind, std::span<const double> x, double eps, double& mean, double& rstd) {
  const double C = static_cast<double>(x.size());
  mean = 0;
  if (kind == NormKind::layernorm) {
    for (double v : x) mean += v;
    mean /= C;
  }
  double var = 0;
  for (double v : x) var += (v - mean) * (v - mean);
  rstd = 1 / std::sqrt(var / C + eps);
}

TEST(NormBackward, ReferenceIsTheForwardsGradient) {
  for (NormKind kind : {NormKind::layernorm, NormKind::rmsnorm}) {
    const int64_t C = 48;
    const double eps = 1e-5;
    const Row r = random_row(C, 7);
    double mean, rstd;
    stats(kind, r.x, eps, mean, rstd);
    std::vector<double> dx(C), dg(C, 0.0), db(C, 0.0);
    backward_reference_row(kind, r.x, r.dy, r.gamma, mean, rstd, dx, dg, db);
    for (int64_t i = 0; i < C; ++i) {
      std::vector<double> xp = r.x, xm = r.x;
      const double h = 1e-5;
      xp[static_cast<size_t>(i)] += h, xm[static_cast<size_t>(i)] -= h;
      const double fd = (loss(kind, r, xp, eps) - loss(kind, r, xm, eps)) / (2 * h);
      EXPECT_NEAR(dx[static_cast<size_t>(i)], fd, 1e-7 * (1 + std::fabs(fd))) << to_string(kind) << " element " << i;
      const double xh = kind == NormKind::rmsnorm ? r.x[static_cast<size_t>(i)] * rstd : (r.x[static_cast<size_t>(i)] - mean) * rstd;
      EXPECT_EQ(dg[static_cast<size_t>(i)], r.dy[static_cast<size_t>(i)] * xh);
      EXPECT_EQ(db[static_cast<size_t>(i)], kind == NormKind::rmsnorm ? 0.0 : r.dy[static_cast<size_t>(i)]);
    }
  }
}

// The datapath configured as the kernel (the registry's mapping) against the
// kernel's emulation: dx, dgamma and dbeta bit for bit, both dtypes, both
// parameter-gradient kernels, one and several warps a row, one and several
// rows a block.
TEST(NormBackward, Fp32DatapathIsTheBackwardKernelsBitForBit) {
  const simt::GpuArch& gpu = test_paths::h200();
  const simt::HardwareRsqrt rsqrt(test_paths::golden() + "/rsqrt_delta.npy.gz");  // unused by the backward
  for (simt::KernelId k : {simt::KernelId::bwd_atomic, simt::KernelId::bwd_twolevel})
    for (simt::DType d : {simt::DType::fp32, simt::DType::bf16})
      for (auto [rows, C] : {std::pair<int64_t, int64_t>{300, 256}, {2200, 1024}}) {
        SCOPED_TRACE(std::string(simt::kernel_name(k)) + " " + std::string(normref::to_string(d)) + " " +
                     std::to_string(rows) + "x" + std::to_string(C));
        const simt::LaunchPlan plan = simt::plan_launch(k, rows, C, d, 0, gpu);
        simt::KernelInputs in = simt::gpu_ref_inputs(rows, C, d, "normal", 0, 1, 11);
        simt::add_grad_out(in, 11);
        const simt::KernelOutputs want = simt::emulate(plan, in, rsqrt);
        const simt::AsicDatapath m = simt::kernel_entry(k).asic(C, d, plan.launches.at(0).block);
        ASSERT_TRUE(m.backward);
        BackwardConfig cfg;
        cfg.hidden = C;
        cfg.lanes = m.lanes;
        cfg.lane_vector = m.lane_vector;
        cfg.merge_order = MergeOrder::butterfly;
        cfg.fma_contraction = true;
        cfg.param_grad = m.param_grad;
        cfg.param_grad.partials = plan.launches.at(0).grid;
        std::vector<float> mean, rstd;
        reference_stats_fp32(in.x, rows, C, 1e-5, mean, rstd);
        NormBackward bw(cfg, in.gamma, rows);
        std::vector<double> x(static_cast<size_t>(C)), dy(x.size()), dx(x.size());
        BackwardCounters cnt;
        int64_t differ = 0;
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t c = 0; c < C; ++c) {
            x[static_cast<size_t>(c)] = in.x[static_cast<size_t>(r * C + c)];
            dy[static_cast<size_t>(c)] = in.grad_out[static_cast<size_t>(r * C + c)];
          }
          bw.process_row(r, x, dy, mean[static_cast<size_t>(r)], rstd[static_cast<size_t>(r)], dx, cnt);
          for (int64_t c = 0; c < C; ++c) {
            float v = static_cast<float>(dx[static_cast<size_t>(c)]);
            if (in.bf16) v = bf16_bits_to_fp32(fp32_to_bf16_bits(v));
            differ += std::bit_cast<uint32_t>(v) != std::bit_cast<uint32_t>(want.y[static_cast<size_t>(r * C + c)]);
          }
        }
        EXPECT_EQ(differ, 0) << "dx";
        std::vector<double> dg(static_cast<size_t>(C)), db(dg.size());
        bw.finish(dg, db, cnt);
        for (int64_t c = 0; c < C; ++c) {
          ASSERT_EQ(std::bit_cast<uint32_t>(static_cast<float>(dg[static_cast<size_t>(c)])),
                    std::bit_cast<uint32_t>(want.dgamma[static_cast<size_t>(c)])) << "dgamma " << c;
          ASSERT_EQ(std::bit_cast<uint32_t>(static_cast<float>(db[static_cast<size_t>(c)])),
                    std::bit_cast<uint32_t>(want.dbeta[static_cast<size_t>(c)])) << "dbeta " << c;
        }
      }
}

BackwardConfig wide_fixed(NormKind kind, int64_t C, int lanes) {
  BackwardConfig b;
  b.kind = kind;
  b.hidden = C;
  b.lanes = lanes;
  b.arithmetic = Arithmetic::fixed;
  auto f = [](int bits, int frac) { return FixedFormat{bits, frac, true, Rounding::half_even, Overflow::saturate}; };
  b.forward[static_cast<int>(Stage::input)] = f(40, 30);
  b.forward[static_cast<int>(Stage::gamma)] = f(32, 28);
  b.forward[static_cast<int>(Stage::mean)] = f(40, 30);
  b.forward[static_cast<int>(Stage::rsqrt_out)] = FixedFormat{40, 34, false};
  b.forward[static_cast<int>(Stage::recip)] = FixedFormat{48, 47, false};
  for (BackwardStage s : {BackwardStage::dy, BackwardStage::g, BackwardStage::xhat}) b.formats[static_cast<int>(s)] = f(40, 30);
  for (BackwardStage s : {BackwardStage::sum_g, BackwardStage::sum_gxhat, BackwardStage::row_mean, BackwardStage::dx,
                          BackwardStage::dgamma, BackwardStage::dbeta})
    b.formats[static_cast<int>(s)] = f(56, 40);
  return b;
}

TEST(NormBackward, WideFixedPointFollowsTheReference) {
  for (NormKind kind : {NormKind::layernorm, NormKind::rmsnorm}) {
    const int64_t C = 96, rows = 5;
    BackwardConfig cfg = wide_fixed(kind, C, 8);
    const Row r0 = random_row(C, 3);
    std::vector<float> gamma(r0.gamma.begin(), r0.gamma.end());
    NormBackward bw(cfg, gamma, rows);
    std::vector<double> dx(C), ref(C), dg_ref(C, 0.0), db_ref(C, 0.0), gd(gamma.begin(), gamma.end());
    BackwardCounters cnt;
    double worst = 0;
    for (int64_t row = 0; row < rows; ++row) {
      const Row r = random_row(C, 100 + static_cast<uint32_t>(row));
      double mean, rstd;
      stats(kind, r.x, 1e-5, mean, rstd);
      bw.process_row(row, r.x, r.dy, mean, rstd, dx, cnt);
      backward_reference_row(kind, r.x, r.dy, gd, mean, rstd, ref, dg_ref, db_ref);
      for (int64_t i = 0; i < C; ++i) worst = std::max(worst, std::fabs(dx[static_cast<size_t>(i)] - ref[static_cast<size_t>(i)]));
    }
    EXPECT_LT(worst, 1e-7) << to_string(kind);
    std::vector<double> dg(C), db(C);
    bw.finish(dg, db, cnt);
    for (int64_t i = 0; i < C; ++i) {
      EXPECT_NEAR(dg[static_cast<size_t>(i)], dg_ref[static_cast<size_t>(i)], 1e-7);
      if (kind == NormKind::layernorm) {
        EXPECT_NEAR(db[static_cast<size_t>(i)], db_ref[static_cast<size_t>(i)], 1e-8);
      }
    }
    for (int s = 0; s < kBackwardStageCount; ++s) EXPECT_EQ(cnt.overflows[static_cast<size_t>(s)], 0u) << kBackwardStages.names[static_cast<size_t>(s)];
    // Every element quantises dy, g, x_hat and dx once.
    EXPECT_EQ(cnt.quantizations[static_cast<int>(BackwardStage::dx)], static_cast<uint64_t>(rows * C));
    EXPECT_EQ(cnt.quantizations[static_cast<int>(BackwardStage::g)], static_cast<uint64_t>(rows * C));
  }
}

TEST(NormBackward, NarrowDxOverflowsAreCounted) {
  BackwardConfig cfg = wide_fixed(NormKind::layernorm, 64, 4);
  cfg.formats[static_cast<int>(BackwardStage::dx)] = FixedFormat{8, 7, true};  // |dx| < 1
  const Row r = random_row(64, 5);
  std::vector<float> gamma(r.gamma.begin(), r.gamma.end());
  NormBackward bw(cfg, gamma, 1);
  double mean, rstd;
  stats(NormKind::layernorm, r.x, 1e-5, mean, rstd);
  std::vector<double> dx(64), ref(64), dg(64, 0.0), db(64, 0.0), gd(gamma.begin(), gamma.end());
  BackwardCounters cnt;
  bw.process_row(0, r.x, r.dy, mean, rstd, dx, cnt);
  backward_reference_row(NormKind::layernorm, r.x, r.dy, gd, mean, rstd, ref, dg, db);
  uint64_t beyond = 0;
  for (double v : ref) beyond += v >= 1 - 1.0 / 256 || v < -1;  // beyond s8.7's range, give or take its rounding
  EXPECT_GT(beyond, 0u);
  EXPECT_GE(cnt.overflows[static_cast<int>(BackwardStage::dx)], beyond - 2);
  EXPECT_LE(cnt.overflows[static_cast<int>(BackwardStage::dx)], beyond + 2);
}

// Exact sums (integers in a wide format) make every order agree: the
// orders change only which partial a row lands in, never what is summed.
TEST(NormBackward, ParameterGradientOrdersSumTheSameRows) {
  const int64_t C = 16, rows = 37;
  std::vector<std::vector<double>> dgs;
  for (ParamGradOrder o : {ParamGradOrder{}, ParamGradOrder{.strided = false, .rows_per_partial = 8},
                           ParamGradOrder{.strided = true, .partials = 5, .column_lanes = 3},
                           ParamGradOrder{.strided = true, .partials = 64, .column_lanes = 32}}) {
    BackwardConfig cfg = wide_fixed(NormKind::layernorm, C, 4);
    cfg.param_grad = o;
    std::vector<float> gamma(C, 1.0f);
    NormBackward bw(cfg, gamma, rows);
    std::vector<double> x(C), dy(C), dx(C);
    BackwardCounters cnt;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < C; ++i) x[static_cast<size_t>(i)] = static_cast<double>((i * 7 + r) % 5) - 2, dy[static_cast<size_t>(i)] = static_cast<double>((r + i) % 3) - 1;
      bw.process_row(r, x, dy, 0.0, 1.0, dx, cnt);  // x_hat = x: integers
    }
    std::vector<double> dg(C), db(C);
    bw.finish(dg, db, cnt);
    dgs.push_back(dg);
    dgs.push_back(db);
  }
  for (size_t k = 2; k < dgs.size(); ++k) EXPECT_EQ(dgs[k], dgs[k % 2]) << k;
  // And the sums are the rows' sums.
  double want = 0;
  for (int64_t r = 0; r < rows; ++r) want += static_cast<double>((r + 3) % 3) - 1;  // dbeta of column 3
  EXPECT_EQ(dgs[1][3], want);
}

TEST(NormBackward, PartialOfDealsRowsAsConfigured) {
  EXPECT_EQ((ParamGradOrder{}.partial_of(1000)), 0);
  EXPECT_EQ((ParamGradOrder{.strided = false, .rows_per_partial = 64}.partial_of(130)), 2);
  EXPECT_EQ((ParamGradOrder{.strided = true, .partials = 264}.partial_of(530)), 2);
}

TEST(NormBackward, BadConfigsAreRefused) {
  BackwardConfig b = wide_fixed(NormKind::layernorm, 64, 3);
  EXPECT_NE(b.validate().find("lanes 3"), std::string::npos);
  b.lanes = 4;
  b.formats[static_cast<int>(BackwardStage::dx)].total_bits = 0;
  EXPECT_NE(b.validate().find("backward.formats.dx"), std::string::npos);
  std::vector<float> gamma(63, 1.0f);
  b = wide_fixed(NormKind::layernorm, 64, 4);
  EXPECT_THROW(NormBackward(b, gamma, 1), std::invalid_argument);
}

}  // namespace
}  // namespace normsim::core
