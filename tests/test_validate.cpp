// The models against the golden H200 data (sim/validate): the regression's
// summaries and thresholds, the ASIC datapath configured as each GPU kernel
// bit for bit, its input paths' DRAM bytes behind the GPU's L1 and L2, a
// 16-bit datapath's error on the same inputs, and the fit's held-out split.
#include <gtest/gtest.h>

#include "tests/golden_paths.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <map>
#include <string>

#include "sim/asic/l2_model.hpp"
#include "sim/config/arch.hpp"
#include "sim/config/config_error.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/core/npy.hpp"
#include "sim/simt/emulate.hpp"
#include "sim/simt/limiter.hpp"
#include "sim/simt/simt_model.hpp"
#include "sim/validate/asic_outputs.hpp"
#include "sim/validate/asic_traffic.hpp"
#include "sim/validate/calibrate.hpp"
#include "sim/validate/fit.hpp"
#include "sim/validate/fixed_point.hpp"
#include "sim/validate/golden.hpp"
#include "sim/validate/ncu_profile.hpp"
#include "sim/validate/regress.hpp"

// libsystemc calls sc_main, declared extern "C"; gtest's main runs the tests.
extern "C" int sc_main(int, char**) { return 0; }

using namespace normsim;
using namespace normsim::simt;
using namespace normsim::validate;

using normsim::test_paths::golden;
using normsim::test_paths::h200;
using normsim::test_paths::src;

namespace {
// The regression's warp-state summary counts what its cases say.
void expect_warp_summary_agrees_with_the_cases(const RegressResult& r) {
  const NcuProfiles ncu = load_ncu_profile(golden());
  size_t compared = 0, dominant = 0, limiter_same = 0;
  std::array<double, kWarpStates> mad{};
  for (const auto& c : r.cases) {
    EXPECT_EQ(c.warps_compared, ncu.count(c.golden.id) > 0) << c.golden.id;
    if (!c.warps_compared) continue;
    ++compared;
    dominant += c.pred.warps.dominant() == c.ncu_warps.dominant();
    limiter_same += limiter(c.pred.warps) == limiter(c.ncu_warps);
    for (size_t i = 0; i < kWarpStates; ++i) mad[i] += std::fabs(c.pred.warps.share[i] - c.ncu_warps.share[i]);
  }
  ASSERT_EQ(r.all.warps.n, compared);
  EXPECT_GT(compared, 0u);
  EXPECT_EQ(r.all.warps.dominant_agree, dominant);
  EXPECT_EQ(r.all.warps.limiter_agree, limiter_same);
  for (size_t i = 0; i < kWarpStates; ++i) EXPECT_NEAR(r.all.warps.share_mad[i], mad[i] / compared, 1e-12);
  EXPECT_EQ(r.training.warps.n + r.held_out.warps.n, compared);
  // Every miss is listed; the dominant state and the limiter gate regress, the shares are a target.
  const bool dominant_missed = r.all.warps.dominant_rate() < r.thresholds.warp_dominant_agreement;
  const bool limiter_missed = r.all.warps.limiter_rate() < r.thresholds.limiter_agreement;
  const bool shares_missed = r.all.warps.worst_share_mad() > r.thresholds.warp_share_mad;
  EXPECT_EQ(r.warp_state_misses.size(), size_t{dominant_missed} + limiter_missed + shares_missed);
  auto failed = [&](const char* what) {
    return std::any_of(r.failures.begin(), r.failures.end(), [&](const std::string& f) { return f.find(what) != std::string::npos; });
  };
  EXPECT_EQ(failed("dominant warp state"), dominant_missed);
  EXPECT_EQ(failed("limiter agrees"), limiter_missed);
  EXPECT_FALSE(failed("share off by"));
  // On the shipped model and data both gating thresholds hold.
  EXPECT_FALSE(dominant_missed);
  EXPECT_FALSE(limiter_missed);
}
}  // namespace

// One regress run over the golden cases, every check that reads it (a run takes ~25 s).
TEST(Simt, RegressionAgainstTheGoldenH200) {
  const auto cases = load_golden(golden());
  const RegressResult r = regress(cases, h200(), golden());
  // Held out: at least 30% of the cases, never fitted on.
  EXPECT_GE(r.held_out.cases * 10, cases.size() * 3);
  EXPECT_EQ(r.training.cases + r.held_out.cases, cases.size());
  // Every recorded output reproduced bit for bit by the fp32 emulation.
  EXPECT_EQ(r.all.outputs_compared, 73u);
  EXPECT_EQ(r.all.bit_exact, r.all.outputs_compared);
  for (const auto& c : r.cases)
    if (c.outputs_compared) {
      EXPECT_TRUE(c.bit_exact) << c.golden.id << ": " << c.elements_differing << " differ, " << c.output_error;
    }
  // DRAM reads: mean error within 5% overall and held out (the per-case
  // target is in docs/FIDELITY.md with the cases that miss it).
  EXPECT_LT(r.all.dram_read.mae, 0.05);
  EXPECT_LT(r.held_out.dram_read.mae, 0.05);
  EXPECT_GT(r.all.duration.corr, kThresholds.duration_corr);
  EXPECT_GT(r.held_out.duration.corr, kThresholds.duration_corr);
  // Where the model stands (docs/FIDELITY.md): a change that loses ground fails here.
  EXPECT_LT(r.all.duration.mae, kThresholds.duration_mae);
  EXPECT_LT(r.held_out.duration.mae, kThresholds.duration_mae);
  EXPECT_LT(r.all.dram_read.max_err, 0.12);  // 10.6%: block_reread at 16384 x 8192
  // Every case in exactly one elasticity band; every firm prediction (off
  // the cliff, no scattered stores) within the per-case target.
  ASSERT_EQ(r.by_elasticity.size(), 3u);
  size_t banded = 0;
  for (const auto& b : r.by_elasticity) {
    banded += b.summary.cases;
    EXPECT_LE(b.dram_read_within_target, b.summary.cases);
  }
  EXPECT_EQ(banded, cases.size());
  size_t firm = 0;
  for (const auto& c : r.cases) {
    EXPECT_EQ(c.pred.firm(), c.pred.dram_read_elasticity < kCliffElasticity && c.golden.kernel != KernelId::v1) << c.golden.id;
    if (c.pred.firm()) {
      ++firm;
      EXPECT_LE(std::fabs(c.dram_read_err), r.thresholds.dram_read_firm_max_rel_error) << c.golden.id;
    }
    // Every range holds its point prediction.
    for (auto [range, value] : {std::pair{c.pred.ranges.dram_bytes_read, c.pred.dram_bytes_read},
                                std::pair{c.pred.ranges.dram_bytes_written, c.pred.dram_bytes_written},
                                std::pair{c.pred.ranges.l2_bytes, c.pred.l2_bytes},
                                std::pair{c.pred.ranges.duration_us, c.pred.duration_us}}) {
      EXPECT_LE(range.lo, value) << c.golden.id;
      EXPECT_GE(range.hi, value) << c.golden.id;
      EXPECT_GE(range.lo, 0) << c.golden.id;
    }
    if (!c.held_out) {
      EXPECT_TRUE(c.dram_read_in_range) << c.golden.id;  // the ranges are fitted to hold them
    }
  }
  EXPECT_GE(firm, 170u);
  // The ranges' targets (docs/FIDELITY.md): held-out coverage, firm widths.
  EXPECT_GE(r.held_out.dram_read_range.coverage(), r.thresholds.range_coverage_target);
  EXPECT_LT(r.by_elasticity[0].summary.dram_read_range.median_width, r.thresholds.firm_read_width_target);
  EXPECT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures[0]);
  expect_warp_summary_agrees_with_the_cases(r);
  const auto j = to_json(r);
  for (const char* k : {"cases", "summary", "held_out", "training", "per_kernel", "pass"}) EXPECT_TRUE(j.contains(k)) << k;
  for (const char* k : {"cases", "dram_read_max_rel_error", "duration_mae", "duration_corr", "bit_exact_cases", "ranges"})
    EXPECT_TRUE(j["summary"].contains(k)) << k;
}

TEST(Simt, AsicDatapathAsTheGpuKernelsMatchesTheirOutputsBitForBit) {
  const auto cases = load_golden(golden());
  const HardwareRsqrt hw(golden() + "/rsqrt_delta.npy.gz");
  const auto asic = asic_output_cases(cases, golden(), hw);
  // Every forward kernel's recorded outputs (the ladder, the Welford and
  // RMSNorm kernels, fast_ln/fast_rms -- the streamed two-block cluster at
  // C = 65536 too, its first 4 rows --, fused_residual(_dropout); fp32 and bf16,
  // normal and cancellation inputs, the single-pass kernels' NaN rows
  // included; fast_* at every recorded width, each with its own threads and
  // vectors a thread).
  // And the backward kernels' (bwd_atomic, bwd_twolevel, fp32 and bf16, at
  // 256 x 768, 1024 x 4096 and 4096 x 8192): dx, and (two-level)
  // dgamma/dbeta, through core::NormBackward.
  ASSERT_EQ(asic.size(), 73u);
  std::map<std::string, const GoldenCase*> by_id;
  for (const auto& c : cases) by_id[c.id] = &c;
  int backward = 0;
  for (const auto& a : asic) {
    EXPECT_TRUE(a.bit_exact) << a.id << ": " << a.elements_differing << " differ, " << a.error;
    if (a.backward) {
      ++backward;
      const GoldenCase& g = *by_id.at(a.id);
      const auto kept = static_cast<uint64_t>(g.output_rows), hidden = static_cast<uint64_t>(g.hidden);
      // dx's kept rows, and dgamma/dbeta unless the atomics leave their order open.
      EXPECT_EQ(a.elements_compared, kept * hidden + (a.parameter_order_free ? 0 : 2 * hidden)) << a.id;
      EXPECT_EQ(a.parameter_order_free, a.kernel == "bwd_atomic") << a.id;
      continue;
    }
    const bool rms = a.kernel.find("rms") != std::string::npos;
    // Every kept row: y, the rstd and (LayerNorm) the mean -- all rows, or
    // a long-row case's first ones (4 at C = 65536, 65536 values' worth else).
    const GoldenCase& g = *by_id.at(a.id);
    const auto rows = static_cast<uint64_t>(g.output_rows), hidden = static_cast<uint64_t>(g.hidden);
    EXPECT_TRUE(rows == static_cast<uint64_t>(g.rows) || rows == std::max<uint64_t>(1, (hidden == 65536 ? 262144 : 65536) / hidden))
        << a.id;
    // ... and a residual kernel's z, against the ASIC model's residual adder with the kernel's mask.
    const bool residual = a.kernel.find("fused_residual") != std::string::npos;
    EXPECT_EQ(a.elements_compared, (residual ? 2 : 1) * rows * hidden + (rms ? 1 : 2) * rows) << a.id;
  }
  EXPECT_EQ(backward, 12);
  // The mapping is what makes it exact: the RTL's adjacent tree without the
  // fused multiply-adds misses the GPU's bits on the same inputs.
  const GoldenCase* g = nullptr;
  for (const auto& c : cases)
    if (c.id == "welford_warp_reg_fp32_256x768_b256") g = &c;
  ASSERT_NE(g, nullptr);
  const KernelInputs in = gpu_ref_inputs(g->rows, g->hidden, g->dtype, g->dist, g->dist_mean, g->dist_sigma, g->seed);
  const auto want = normsim::core::read_npy(golden() + "/" + g->outputs.at("y")).as<float>();
  auto differing = [&](core::MergeOrder order, bool fma) {
    core::DatapathConfig cfg;
    cfg.lanes = 32;
    cfg.hidden = g->hidden;
    cfg.merge_order = order;
    cfg.fma_contraction = fma;
    core::NormDatapath dp(cfg, in.gamma, in.beta);
    std::vector<double> x(static_cast<size_t>(g->hidden)), y(x.size());
    core::StageCounters cnt;
    size_t n = 0;
    for (int64_t r = 0; r < g->rows; ++r) {
      for (int64_t c = 0; c < g->hidden; ++c) x[static_cast<size_t>(c)] = in.x[static_cast<size_t>(r * g->hidden + c)];
      dp.process_row(x, y, cnt);
      for (int64_t c = 0; c < g->hidden; ++c)
        n += static_cast<float>(y[static_cast<size_t>(c)]) != want[static_cast<size_t>(r * g->hidden + c)];
    }
    return n;
  };
  EXPECT_EQ(differing(core::MergeOrder::butterfly, true), 0u);
  EXPECT_GT(differing(core::MergeOrder::adjacent, true), 1000u);
  EXPECT_GT(differing(core::MergeOrder::butterfly, false), 1000u);
}

TEST(Simt, Fixed16OnTheGoldenInputsReportsItsErrorAgainstTheGpu) {
  const auto cases = load_golden(golden());
  const auto fx = fixed_point_cases(cases, golden());
  ASSERT_GE(fx.size(), 19u);  // every fp32 forward case with recorded outputs
  for (const auto& f : fx) {
    EXPECT_TRUE(f.error.empty()) << f.id << ": " << f.error;
    if (f.id.find("cancellation") != std::string::npos) {
      // mean 1e4 does not fit the s24.14 input format (+-512): every input saturates, and the report says so.
      EXPECT_EQ(f.input_overflows, 256u * 768) << f.id;
      EXPECT_GT(f.rel_l2_error, 0.5) << f.id;
    } else {
      // Normal inputs: within one output lsb (2^-11) of the GPU's fp32 result
      // up to C = 1024; at C = 4096 the 16-bit statistics take a few
      // elements to 1.06 lsb. The relative L2 error stays at the output
      // format's rounding (1.5e-4).
      EXPECT_EQ(f.input_overflows + f.other_overflows, 0u) << f.id;
      EXPECT_LT(f.max_abs_error, (f.id.find("x4096") == std::string::npos ? 1.0 : 1.1) * f.output_lsb) << f.id;
      EXPECT_LT(f.rel_l2_error, 2e-4) << f.id;
      EXPECT_GT(f.max_abs_error, 0.0) << f.id;  // 16 bits are not fp32
    }
  }
}

TEST(Simt, AsicPathTrafficAgainstNcuNamesEveryGap) {
  const auto t = asic_traffic_cases(load_golden(golden()), h200());
  // Every golden case whose kernel's passes are an ASIC input path: SRAM replay
  // (welford_warp_reg, welford_block_smem, v6, fast_ln/fast_rms in registers)
  // or DRAM re-read (block_reread, v4, v5, v6's fallback, rms_warp, rms_block,
  // fast_* two sweeps); and the backward kernels as the backward datapath on
  // SRAM replay (x and dy once, the two-level kernel's partials read back).
  ASSERT_EQ(t.size(), 189u);
  size_t backward = 0;
  for (const auto& c : t)
    if (c.kernel.rfind("bwd_", 0) == 0) {
      ++backward;
      EXPECT_LT(std::fabs(c.read_gap), 0.021) << c.id;  // every backward read within 2.1% of its identity
    }
  EXPECT_EQ(backward, 20u);
  size_t l2_within = 0;
  for (const auto& c : t) {
    EXPECT_FALSE(c.read_cause.empty()) << c.id;
    EXPECT_FALSE(c.write_cause.empty()) << c.id;
    if (c.path == "sram-replay") {
      EXPECT_LT(std::fabs(c.read_gap), 0.07) << c.id;  // x once (+ a few KB of code on the small cases)
    } else if (c.read_gap < -0.02) {
      EXPECT_NE(c.read_cause.find("L2"), std::string::npos) << c.id;  // the re-read the L2 served
    }
    EXPECT_LE(c.write_gap, 0.01) << c.id;  // never more than y and the statistics
    if (c.write_gap < -0.02) {
      EXPECT_NE(c.write_cause.find("dirty"), std::string::npos) << c.id;
    }
    l2_within += std::fabs(c.l2_read_error) <= kThresholds.asic_traffic_read_rel_error;
  }
  // Behind the arch's L1 and L2 (each SM's L1 as a near cache, the H200's
  // measured reuse curves, the kernel's cache hints as priorities) with the
  // GPU's rows in flight: 161 of the 169 read within 5% of ncu (FIDELITY.md
  // names the 8 others: the SIMT model's hardest transition cases). With
  // the L2 alone 159, LRU 138. A change that loses ground fails here. The
  // 20 backward cases' reads are compulsory: all 20 within 5%.
  EXPECT_GE(l2_within, 181u);
}

TEST(AsicL2, GpuMappingsCarryTheH200sMeasuredCurves) {
  // gpu-warp.yaml and gpu-block.yaml restate h200.yaml's L2 curves (the ASIC
  // arch cannot include the GPU's): they must not drift apart.
  const GpuArch& g = h200();
  for (const char* f : {"gpu-warp", "gpu-block"}) {
    const config::Arch a = config::load_arch(std::string(NORMSIM_TEST_SOURCE_DIR) + "/workloads/arch/" + f + ".yaml");
    ASSERT_TRUE(a.asic) << f;
    const asic::L2Config& l2 = a.asic->l2;
    EXPECT_EQ(l2.replacement, asic::L2Replacement::measured) << f;
    EXPECT_EQ(l2.capacity_bytes, g.l2.bytes) << f;
    const core::L2Reuse& a2 = l2.reuse;
    const core::L2Reuse& g2 = g.l2.reuse;
    EXPECT_EQ(a2.sweep.half_bytes, g2.sweep.half_bytes) << f;
    EXPECT_EQ(a2.sweep.steepness, g2.sweep.steepness) << f;
    EXPECT_EQ(a2.steady.half_bytes, g2.steady.half_bytes) << f;
    EXPECT_EQ(a2.steady.steepness, g2.steady.steepness) << f;
    EXPECT_EQ(a2.steady_steepness_per_doubling, g2.steady_steepness_per_doubling) << f;
    EXPECT_EQ(a2.steady_steepness_rows, g2.steady_steepness_rows) << f;
    EXPECT_EQ(a2.evict_first_pool_bytes, g2.evict_first_pool_bytes) << f;
    EXPECT_EQ(a2.store_weight, g2.store_weight) << f;
    // ... and its L1: one a SM, the carve-out taken off, the same curve.
    const asic::L1Config& l1 = a.asic->l1;
    EXPECT_EQ(l1.capacity_bytes, g.l1.bytes - g.l1.smem_carveout_bytes) << f;
    EXPECT_EQ(a.asic->datapaths / l1.datapaths_per_cache, g.sms) << f;
    EXPECT_EQ(l1.reuse_steepness, g.l1.reuse_steepness) << f;
  }
}

TEST(AsicL2, NearCachesServeTheRereadTheSimtModelsL1Serves) {
  // The ASIC's near caches with a kernel's L1 give the SIMT model's L1 hit:
  // rms_warp at 8192 x 1000 (8192 rows in flight over 132 SMs).
  const LaunchPlan plan = plan_launch("rms_warp", 8192, 1000, "fp32", 256, h200());
  const LaunchPrediction p = predict(plan, h200()).launches.front();
  asic::L1Config l1{l1_free_bytes(plan.launches.front(), p.occ, h200()), 4, h200().l1.reuse_steepness};
  const double hit = asic::l1_reread_hit(l1, static_cast<double>(p.occ.rows_in_flight), 528, 4000);
  EXPECT_GT(hit, 0.2);
  EXPECT_NEAR(hit, p.l1_hit, 1e-12);
  // Its hits never reach the L2: the DRAM re-reads the rest of what the L2 misses.
  asic::L2Config l2;
  l2.capacity_bytes = core::Bytes(62914560);
  l2.replacement = asic::L2Replacement::measured;
  const auto without = asic::l2_traffic(l2, true, 8192, 1000, 4, 4, 8192, 0, 0);
  const auto with = asic::l2_traffic(l2, true, 8192, 1000, 4, 4, 8192, 0, 0, hit);
  EXPECT_EQ(with.l1_hit, hit);
  EXPECT_GE(with.reread_hit, without.reread_hit);  // fewer insertions between the passes
  EXPECT_NEAR(with.dram_bytes_read - 8192 * 4000.0, 8192 * 4000.0 * (1 - hit) * (1 - with.reread_hit), 1.0);
  EXPECT_EQ(asic::l1_reread_hit({}, 8192, 528, 4000), 0.0);  // capacity 0: no near cache
}

TEST(Simt, FitNeverSeesTheHeldOutCases) {
  auto cases = load_golden(golden());
  const std::vector<bool> held = held_out_mask(cases);
  // The held-out set depends on the ids alone.
  auto shuffled = cases;
  std::reverse(shuffled.begin(), shuffled.end());
  const std::vector<bool> held2 = held_out_mask(shuffled);
  for (size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(held[i], held2[cases.size() - 1 - i]) << cases[i].id;
  // Corrupting every held-out measurement leaves the fitted arch unchanged.
  GpuArch start = h200();
  start.kernel_tail_cycles *= 1.7;  // start away from the optimum so the fit moves
  const GpuArch a = fit_arch(cases, start);
  for (size_t i = 0; i < cases.size(); ++i)
    if (held[i]) {
      cases[i].duration_us *= 3;
      cases[i].dram_bytes_read *= 0.5;
    }
  const GpuArch b = fit_arch(cases, start);
  EXPECT_EQ(a.barrier_latency_cycles, b.barrier_latency_cycles);
  EXPECT_EQ(a.l2.reuse.steady.half_bytes, b.l2.reuse.steady.half_bytes);
  EXPECT_EQ(a.kernel_tail_cycles, b.kernel_tail_cycles);
  EXPECT_EQ(a.memory_overlap_exponent, b.memory_overlap_exponent);
  EXPECT_NE(a.kernel_tail_cycles, start.kernel_tail_cycles) << "the fit did not move";
}

// `normsim calibrate` on the committed H200 records re-derives the shipped
// arch file: measured values exactly, probe-fitted and fitted ones within
// their tolerance, and a regression within half a point of the shipped one.
TEST(Calibrate, ReDerivesTheShippedH200FromItsRecords) {
  const Calibration c = calibrate(golden(), h200(), "h200");
  const nlohmann::json mine = gpu_arch_params().echo(c.arch), shipped = gpu_arch_params().echo(h200());
  auto at = [](const nlohmann::json& j, const std::string& key) {
    const size_t dot = key.find('.');
    return dot == std::string::npos ? j.at(key) : j.at(key.substr(0, dot)).at(key.substr(dot + 1));
  };
  size_t measured = 0, probe = 0, fitted = 0;
  for (const auto& [key, source] : c.sources) {
    if (key == "name") continue;
    const double a = at(mine, key).get<double>(), b = at(shipped, key).get<double>();
    switch (source.first) {
      case ValueSource::measured:
        ++measured;
        EXPECT_EQ(a, b) << key << ": " << source.second;
        break;
      case ValueSource::probe_fit:
        ++probe;
        EXPECT_NEAR(a, b, kProbeFitTolerance * std::fabs(b)) << key;
        break;
      case ValueSource::fit:
        ++fitted;
        EXPECT_NEAR(a, b, kFitTolerance * std::fabs(b) + 1e-9) << key;
        break;
      case ValueSource::start: break;
    }
  }
  EXPECT_GE(measured, 11u);  // clock, SMs, L2 size, three latencies, DRAM latency and bandwidth, launch, dispatch, rows
  EXPECT_EQ(probe, 7u);
  EXPECT_GE(fitted, 20u);
  // The written file reads back as the same arch.
  const GpuArch back = parse_gpu_arch_text(calibration_yaml(c, golden()), "h200-calibrated.yaml");
  EXPECT_EQ(gpu_arch_params().echo(back), mine);
  const auto cases = load_golden(golden());
  const RegressResult shipped_r = regress(cases, h200(), golden()), mine_r = regress(cases, back, golden());
  for (auto [a, b] : {std::pair{&shipped_r.all, &mine_r.all}, std::pair{&shipped_r.training, &mine_r.training},
                      std::pair{&shipped_r.held_out, &mine_r.held_out}})
    for (auto counter : {&Summary::dram_read, &Summary::dram_write, &Summary::l2, &Summary::duration})
      EXPECT_NEAR((a->*counter).mae, (b->*counter).mae, 0.005);
  EXPECT_TRUE(mine_r.pass_models);
}

// A record that is not what calibrate_gpu.sh writes is refused naming the file and line.
TEST(Calibrate, RefusesAMalformedRecord) {
  const std::string dir = ::testing::TempDir() + "/calibrate_bad";
  std::filesystem::create_directories(dir);
  for (const char* f : {"env.json", "mlp_probe.jsonl", "empty_kernel.csv", "copy.jsonl", "l2_sweep_probe.jsonl",
                        "l2_steady_probe.jsonl", "index.json"})
    std::filesystem::copy_file(golden() + "/" + f, dir + "/" + f, std::filesystem::copy_options::overwrite_existing);
  {
    std::ofstream bad(dir + "/latency.jsonl");
    bad << "{\"footprint_kib\": 16, \"cycles_per_load\": 43.4}\n{\"footprint_kib\": 1024, \"cycles_per_load\": -3}\n";
  }
  try {
    (void)calibrate(dir, h200(), "bad");
    FAIL() << "accepted a negative latency";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("latency.jsonl:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cycles_per_load"), std::string::npos) << e.what();
  }
  std::filesystem::remove(dir + "/copy.jsonl");
  {
    std::ofstream ok(dir + "/latency.jsonl");
    for (const auto& line : {"{\"footprint_kib\": 16, \"cycles_per_load\": 43.4}", "{\"footprint_kib\": 1024, \"cycles_per_load\": 283.4}",
                             "{\"footprint_kib\": 40960, \"cycles_per_load\": 515.5}"})
      ok << line << "\n";
  }
  try {
    (void)calibrate(dir, h200(), "bad");
    FAIL() << "accepted a folder without copy.jsonl";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("copy.jsonl: missing"), std::string::npos) << e.what();
  }
}
