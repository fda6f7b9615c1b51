// The fused Post-Norm backward with dropout (docs/ASIC.md, "Backward"):
// z = dropout(x) + r in the forward, so dz is the norm's backward of z and
// the branch's gradient is dz * mask / (1 - p), the mask regenerated from
// the seed. Its numerics against the mask and the adder lane's arithmetic,
// the workload's rules, and hand-computed DRAM and SRAM bytes for every
// input path x fuse mode x (z kept or re-made) at C = 64, L = 4 on 1 and 64
// rows. Every TEST runs in its own process.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "sim/asic/asic_run.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/backward_run.hpp"
#include "sim/core/branch_grad.hpp"
#include "sim/core/dropout_mask.hpp"
#include "sim/core/fixed_point.hpp"

using namespace normsim;

extern "C" int sc_main(int, char**) { return 0; }

namespace {
std::string src() { return std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR; }

// postnorm-7b-bwd on a few short rows, dx stored in fp32: the datapath's dz
// (a fixed-point value of s24.14) is then stored exactly.
config::Workload small(int64_t rows, int64_t hidden) {
  auto w = config::load_workload(src() + "/workloads/postnorm-7b-bwd.yaml");
  w.rows = rows;
  w.hidden = hidden;
  w.output.dtype = core::ElemType::fp32;
  return w;
}
config::Arch fused_arch() {
  auto a = config::load_arch(src() + "/workloads/arch/asic-default.yaml");
  a.fuse.mode = config::FuseMode::residual_dropout;
  return a;
}
core::BackwardOutputs run(const config::Workload& w, const config::Arch& a, core::BackwardNumerics* n = nullptr) {
  core::BackwardOutputs out;
  const auto num = core::run_backward_functional(w, config::datapath_config(w, a), config::backward_config(w, a), &out);
  if (n) *n = num;
  return out;
}
}  // namespace

// fp32 adder lane: every kept element is fp32(dz x fp32(1/(1-p))), every
// dropped one 0, and the dropped ones are exactly the forward's mask.
TEST(PostNormBackward, BranchGradIsDzThroughTheForwardsMaskFp32) {
  const auto w = small(8, 256);
  core::BackwardNumerics n;
  const auto out = run(w, fused_arch(), &n);
  ASSERT_EQ(out.dbranch.size(), out.dx.size());
  const float scale = static_cast<float>(1.0 / (1.0 - 0.1));
  uint64_t dropped = 0;
  for (int64_t r = 0; r < w.rows; ++r)
    for (int64_t c = 0; c < w.hidden; ++c) {
      const size_t i = static_cast<size_t>(r * w.hidden + c);
      const bool keep = core::branch_kept(*w.residual, w.seed, r, w.hidden, c);
      dropped += !keep;
      const double want = keep ? static_cast<double>(static_cast<float>(out.dx[i]) * scale) : 0.0;
      ASSERT_EQ(out.dbranch[i], want) << "row " << r << " column " << c;
    }
  EXPECT_EQ(n.branch_counters.dropped, dropped);
  EXPECT_EQ(n.branch_counters.elements, static_cast<uint64_t>(w.elements()));
  EXPECT_GT(dropped, 0u);
  EXPECT_LT(dropped, static_cast<uint64_t>(w.elements()) / 5);  // p = 0.1 over 2048 elements
  // Against the fp64 reference (dz_ref x mask x scale): as close as dz is.
  EXPECT_EQ(n.dbranch_error.elements(), static_cast<uint64_t>(w.elements()));
  EXPECT_LT(n.dbranch_error.rel_l2(), 2 * n.dx_error.rel_l2() + 1e-7);
  EXPECT_GT(n.dbranch_error.rel_l2(), 0.0);
}

// A fixed-point adder lane (fuse.add_format): the forward's adder with r at
// zero, q(dz s) in its format, one rounding.
TEST(PostNormBackward, BranchGradIsTheAdderLaneWithRAtZeroFixed) {
  const auto w = small(4, 128);
  auto a = fused_arch();
  a.fuse.add.fixed = true;
  a.fuse.add.format = core::FixedFormat{20, 12, true, core::Rounding::half_even, core::Overflow::saturate};
  core::BackwardNumerics n;
  const auto out = run(w, a, &n);
  const core::FixedFormat& f = a.fuse.add.format;
  const core::Fx s = core::quantize(static_cast<double>(rng::dropout_scale(0.1)), f), zero = core::quantize(0.0, f);
  for (int64_t r = 0; r < w.rows; ++r)
    for (int64_t c = 0; c < w.hidden; ++c) {
      const size_t i = static_cast<size_t>(r * w.hidden + c);
      const bool keep = core::branch_kept(*w.residual, w.seed, r, w.hidden, c);
      const core::Fx g = core::residual_add_fixed(core::quantize(out.dx[i], f), zero, &s, keep, f, nullptr);
      ASSERT_EQ(out.dbranch[i], static_cast<double>(static_cast<float>(core::to_double(g)))) << "row " << r << " column " << c;
    }
  // The scale once a row; dz and the product an element.
  EXPECT_EQ(n.branch_counters.quantizations, static_cast<uint64_t>(w.rows + 2 * w.elements()));
}

// z, not x, is what the backward differentiates: the same x and dy without
// the residual stream give another dz; without dropout there is no branch
// tensor (it is dz itself).
TEST(PostNormBackward, TheBackwardTakesTheSumAndWritesNoBranchWithoutDropout) {
  const auto w = small(4, 128);
  auto plain = w;
  plain.residual.reset();
  const auto a = fused_arch();
  auto none = config::load_arch(src() + "/workloads/arch/asic-default.yaml");
  const auto with = run(w, a), without = run(plain, none);
  size_t differ = 0;
  for (size_t i = 0; i < with.dx.size(); ++i) differ += with.dx[i] != without.dx[i];
  EXPECT_GT(differ, with.dx.size() / 2);
  auto p0 = w;
  p0.residual->dropout_p = 0;
  EXPECT_FALSE(p0.writes_branch_grad());
  EXPECT_TRUE(run(p0, a).dbranch.empty());
}

TEST(PostNormBackward, PreNormBackwardAndResidualModeWithDropoutAreRefused) {
  auto w = small(4, 128);
  w.residual->dataflow = core::Dataflow::pre_norm;
  const auto e = config::workload_params().check(w);
  ASSERT_TRUE(e.has_value()) << "a Pre-Norm backward passed the checks";
  EXPECT_EQ(e->key_path, "residual.dataflow");
  auto a = fused_arch();
  a.fuse.mode = config::FuseMode::residual;  // no mask generator
  EXPECT_THROW(config::check_fusion(small(4, 128), a), config::ConfigError);
}

namespace {
// C = 64 in fp32 (z or x, r, dy, dz, the branch: 4 B each), asic-default at 4
// lanes: gamma s16.13 (2 B), the accumulators s48.18 (6 B), on chip.
using PnCombo = std::tuple<config::InputPath, config::FuseMode, bool, int64_t>;
class PostNormBackwardHandComputed : public ::testing::TestWithParam<PnCombo> {};
}  // namespace

TEST_P(PostNormBackwardHandComputed, DramAndSramBytesAreExact) {
  const auto [path, fuse, keep_z, rows] = GetParam();
  auto w = small(rows, 64);
  w.input.dtype = w.residual->tensor.dtype = w.backward.dy.dtype = core::ElemType::fp32;
  w.residual->write_sum = keep_z;
  auto a = config::load_arch(src() + "/workloads/arch/asic-default.yaml");
  a.lanes = 4;
  a.fuse.mode = fuse;
  a.asic->path = path;
  a.asic->param_grad_accumulator.path = config::ParamGradPath::onchip;
  a.asic->dram.peak_bytes_per_s = core::per_second(core::BytesPerCycle(64), core::ghz(a.asic->clock_ghz));
  asic::AsicOptions o;
  o.numerics = false;
  const auto r = asic::run_asic(w, a, o);
  const uint64_t N = static_cast<uint64_t>(rows), C = 64;
  const uint64_t kept = path == config::InputPath::sram_replay ? 64 : path == config::InputPath::dram_reread ? 0 : 32;
  const uint64_t reread = C - kept, gamma = C * 2, acc_row = 2 * C * 6, fp32_grads = 2 * C * 4;
  // The plain backward of z: z and dy, their re-read part, gamma, mean and rstd; dz; the gradients once.
  uint64_t read = N * C * 8 + N * reread * 8 + gamma + N * 8;
  uint64_t written = N * C * 4 + fp32_grads;
  written += N * C * 4;  // the branch's gradient, fused or not
  const bool fused = fuse == config::FuseMode::residual_dropout;
  if (!fused) read += N * C * 4;  // the separate pass reads dz back
  if (!keep_z) {
    if (fused) read += N * C * 4, written += N * reread * 4;  // r beside x; z written where it is re-read
    else read += N * C * 8, written += N * C * 4;              // the separate adder: x and r in, z out
  }
  const uint64_t sram_w = N * kept * 8 + gamma + N * reread * 8 + N * acc_row;
  const uint64_t sram_r = N * kept * 8 + N * gamma + N * reread * 8 + N * acc_row + acc_row;
  EXPECT_EQ(r.dram_bytes_read, read);
  EXPECT_EQ(r.dram_bytes_written, written);
  EXPECT_EQ(r.sram_bytes_written, sram_w);
  EXPECT_EQ(r.sram_bytes_read, sram_r);
  EXPECT_EQ(r.expected.dram_bytes_read, read);
  EXPECT_EQ(r.expected.dram_bytes_written, written);
  EXPECT_EQ(r.dram_bytes[static_cast<int>(asic::Traffic::branch_grad)], N * C * 4);
  EXPECT_EQ(r.dram_bytes[static_cast<int>(asic::Traffic::branch_pass_read)], fused ? 0 : N * C * 4);
  EXPECT_EQ(r.expected.lower_bound_cycles, std::max(static_cast<double>(read + written) / 64, N * 16.0));
  EXPECT_GE(r.cycles, r.expected.lower_bound_cycles);
  // Unfused, the pass streams after the unit's last output: it ends at least its bytes' cycles later.
  if (!fused) {
    EXPECT_GE(r.cycles, r.last_lanes_cycle + static_cast<double>(2 * N * C * 4) / 64);
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllCombinations, PostNormBackwardHandComputed,
    ::testing::Combine(::testing::Values(config::InputPath::sram_replay, config::InputPath::dram_reread, config::InputPath::partial_replay),
                       ::testing::Values(config::FuseMode::none, config::FuseMode::residual_dropout), ::testing::Bool(),
                       ::testing::Values(1, 64)),
    [](const auto& info) {
      std::string n = std::string(config::kInputPaths.name(std::get<0>(info.param))) + "_" +
                      std::string(config::to_string(std::get<1>(info.param))) + "_" +
                      (std::get<2>(info.param) ? "z_kept" : "z_remade") + "_" + std::to_string(std::get<3>(info.param)) + "rows";
      std::replace(n.begin(), n.end(), '-', '_');
      return n;
    });
