#include "sim/simt/asic_crosscheck.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <map>

#include "gpu_ref/host/fast_shape.hpp"
#include "sim/asic/l2_model.hpp"
#include "sim/asic/traffic_identity.hpp"
#include "sim/config/arch.hpp"
#include "sim/config/embedded_configs.hpp"
#include "sim/core/element_format.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/core/npy.hpp"
#include "sim/run/functional_run.hpp"
#include "sim/simt/emulate.hpp"
#include "sim/simt/regress.hpp"
#include "sim/simt/simt_model.hpp"

namespace normsim::simt {

namespace {

// How each gpu_ref kernel is the ASIC datapath: the base arch (the warp or
// block datapath: fp32, butterfly merge order, fused multiply-adds) and what
// the kernel changes in it -- its algorithm, lanes, the elements a lane takes
// at a time, its RSQRT (IEEE 1/sqrtf, or the hardware rsqrtf) and whether the
// single pass clamps.
struct Mapping {
  bool block = false;             ///< gpu-block.yaml (else gpu-warp.yaml)
  core::VarianceAlgorithm algorithm = core::VarianceAlgorithm::welford;
  bool rms = false;
  bool hw_rsqrt = false;          ///< rsqrtf (MUFU.RSQ), replayed from the measured table
  bool vector = false;            ///< a thread takes 16-byte vectors (4 fp32 / 8 bf16 values)
  bool one_lane = false;          ///< v1: a thread walks its row alone
  bool whole_block_group = false; ///< v2: one shared-memory tree over the block (no warp level)
  bool clamp = true;
};

const Mapping* mapping_of(const std::string& kernel) {
  using VA = core::VarianceAlgorithm;
  static const std::map<std::string, Mapping> table = {
      {"v1", {false, VA::two_pass, false, false, false, true, false, true}},
      {"v2", {true, VA::two_pass, false, false, false, false, true, true}},
      {"v3", {false, VA::two_pass, false, true, false, false, false, true}},
      {"v4", {false, VA::single_pass, false, true, false, false, false, false}},
      {"v5", {true, VA::single_pass, false, true, false, false, false, false}},
      {"v6", {false, VA::two_pass, false, true, true, false, false, true}},
      {"welford_warp_reg", {false, VA::welford, false, false, false, false, false, true}},
      {"welford_block_smem", {true, VA::welford, false, false, false, false, false, true}},
      {"block_reread", {true, VA::welford, false, false, false, false, false, true}},
      {"rms_warp", {false, VA::welford, true, true, false, false, false, true}},
      {"rms_block", {true, VA::welford, true, true, false, false, false, true}},
      {"fast_ln", {false, VA::two_pass, false, true, true, false, false, true}},
      {"fast_rms", {false, VA::welford, true, true, true, false, false, true}},
      {"fused_residual", {false, VA::two_pass, false, true, true, false, false, true}},
  };
  const auto it = table.find(kernel);
  return it == table.end() ? nullptr : &it->second;
}

// Lanes of a kernel's datapath: the block's threads, or the frontier
// kernels' threads per row (host/fast_shape.hpp).
int lanes_of(const std::string& kernel, const GoldenCase& g, const Mapping& m, int arch_lanes) {
  const int eb = g.dtype == "bf16" ? 2 : 4;
  if (m.one_lane) return 1;
  if (kernel == "fast_ln" || kernel == "fast_rms") return normref::fast_norm_shape(g.hidden, eb).threads_per_row;
  if (kernel == "fused_residual") return normref::fused_residual_threads(g.hidden, eb);
  return m.block ? g.block : arch_lanes;
}

// What the kernel's datapath normalises: x -- for fused_residual the stored
// z = x + r, rounded to the dtype -- and gamma/beta as the kernel reads them;
// for the first `rows` rows (those whose outputs the case kept).
KernelInputs datapath_inputs(const GoldenCase& g, int64_t rows) {
  KernelInputs in = gpu_ref_inputs(rows, g.hidden, g.dtype, g.dist, g.dist_mean, g.dist_sigma, g.seed);
  if (g.kernel == "fused_residual") {
    add_residual(in, g.seed);
    for (size_t i = 0; i < in.x.size(); ++i) in.x[i] = in.x[i] + in.residual[i];
    if (in.bf16) in.x = as_bf16(std::move(in.x));
  }
  if ((g.kernel == "fast_ln" || g.kernel == "fast_rms") && in.bf16) {
    in.gamma = as_bf16(std::move(in.gamma));
    in.beta = as_bf16(std::move(in.beta));
  }
  return in;
}

// The arch's datapath for a golden case's row length and norm (the run's own
// make_datapath_config), before a mapping's changes.
core::DatapathConfig case_datapath(const GoldenCase& g, const config::Arch& arch, bool rms,
                                   std::optional<core::VarianceAlgorithm> algorithm) {
  config::Workload w;
  w.name = g.id;
  w.norm = rms ? core::NormKind::rmsnorm : core::NormKind::layernorm;
  w.rows = g.rows;
  w.hidden = g.hidden;
  w.eps = 1e-5;  // gpu_ref/kernels/common.cuh kEps (the fp32 datapath adds it as a float)
  run::RunOptions o;
  o.algorithm = algorithm;
  return run::make_datapath_config(w, arch, o);
}

AsicCase run_case(const GoldenCase& g, const Mapping& m, const std::string& dir, const HardwareRsqrt& hw) {
  AsicCase a;
  a.id = g.id;
  a.kernel = g.kernel;
  const char* path = m.block ? config::embedded::kGpuBlockArchPath : config::embedded::kGpuWarpArchPath;
  const char* yaml = m.block ? config::embedded::kGpuBlockArchYaml : config::embedded::kGpuWarpArchYaml;
  a.arch = path;
  try {
    const config::Arch arch = config::parse_arch_text(yaml, path);
    const bool bf16 = g.dtype == "bf16";
    core::DatapathConfig cfg = case_datapath(g, arch, m.rms, m.algorithm);
    cfg.variance_clamp = m.clamp;
    cfg.lanes = lanes_of(g.kernel, g, m, arch.lanes);
    if (m.whole_block_group) cfg.merge_group = cfg.lanes;
    cfg.lane_vector = m.vector ? (bf16 ? 8 : 4) : 1;
    if (g.kernel == "fast_ln" || g.kernel == "fast_rms")  // the cluster scheme: each block a share of the row
      cfg.lane_blocks = normref::fast_norm_shape(g.hidden, bf16 ? 2 : 4).cluster;
    if (m.hw_rsqrt) cfg.fp32_rsqrt = [&hw](float v) { return hw(v); };
    a.lanes = cfg.lanes;
    a.merge_order = cfg.merge_order == core::MergeOrder::butterfly ? "butterfly" : "adjacent";
    auto file = [&](const std::string& key) { return (std::filesystem::path(dir) / g.outputs.at(key)).string(); };
    const core::NpyArray y = core::read_npy(file("y"));
    const std::vector<float> mean = m.rms ? std::vector<float>{} : core::read_npy(file("mean")).as<float>();
    const auto rstd = core::read_npy(file("rstd")).as<float>();
    const int64_t rows = g.output_rows;  // a long-row case: its first rows
    if (y.elements() != rows * g.hidden) throw std::runtime_error("y does not hold the rows rstd keeps");
    const KernelInputs in = datapath_inputs(g, rows);
    const std::vector<float> no_beta;
    core::NormDatapath dp(cfg, in.gamma, m.rms ? std::span<const float>(no_beta) : std::span<const float>(in.beta));
    const std::vector<uint16_t> ybits = bf16 ? y.as<uint16_t>() : std::vector<uint16_t>{};
    const std::vector<float> yf = bf16 ? std::vector<float>{} : y.as<float>();
    std::vector<double> x(static_cast<size_t>(g.hidden)), out(static_cast<size_t>(g.hidden));
    core::StageCounters counters;
    auto cmp = [&](float want, float got, double scale) {
      ++a.elements_compared;
      const double u = ulp_distance(want, got) / scale;
      if (u != 0) ++a.elements_differing;
      a.max_ulp = std::max(a.max_ulp, u);
    };
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < g.hidden; ++c) x[static_cast<size_t>(c)] = in.x[static_cast<size_t>(r * g.hidden + c)];
      const core::RowStats st = dp.process_row(x, out, counters);
      for (int64_t c = 0; c < g.hidden; ++c) {
        const size_t i = static_cast<size_t>(r * g.hidden + c);
        const float v = static_cast<float>(out[static_cast<size_t>(c)]);
        if (bf16)  // the output register rounded to the tensor's bf16 (RNE), as the kernel stores it
          cmp(std::bit_cast<float>(static_cast<uint32_t>(ybits[i]) << 16),
              core::bf16_bits_to_fp32(core::fp32_to_bf16_bits(v)), 65536.0);
        else
          cmp(yf[i], v, 1.0);
      }
      if (!m.rms) cmp(mean[static_cast<size_t>(r)], static_cast<float>(st.mean), 1.0);
      cmp(rstd[static_cast<size_t>(r)], static_cast<float>(st.rstd), 1.0);
    }
    a.bit_exact = a.elements_differing == 0;
  } catch (const std::exception& e) {
    a.error = e.what();
  }
  return a;
}

}  // namespace

std::vector<AsicTrafficCase> asic_traffic_cases(const std::vector<GoldenCase>& cases, const GpuArch& gpu) {
  std::vector<AsicTrafficCase> out;
  const config::Arch warp = config::parse_arch_text(config::embedded::kGpuWarpArchYaml, config::embedded::kGpuWarpArchPath);
  const config::Arch block = config::parse_arch_text(config::embedded::kGpuBlockArchYaml, config::embedded::kGpuBlockArchPath);
  // The kernels whose passes over x are an ASIC input path: the row kept in
  // registers or shared memory (SRAM replay), or x read again to normalise
  // (DRAM re-read). v1-v3 read x three times and v2 is three kernels: no
  // single path; fused_residual reads two inputs.
  const std::map<std::string, bool> reread_of = {
      {"welford_warp_reg", false}, {"welford_block_smem", false}, {"v6", false},  {"fast_ln", false},
      {"fast_rms", false},         {"block_reread", true},        {"v4", true},   {"v5", true},
      {"rms_warp", true},          {"rms_block", true}};
  for (const GoldenCase& g : cases) {
    const std::string& ran = g.ran.empty() ? g.kernel : g.ran;  // v6 falls back to v5 where its shared memory does not fit
    const auto it = reread_of.find(ran);
    if (it == reread_of.end()) continue;
    AsicTrafficCase t;
    t.id = g.id;
    t.kernel = g.kernel;
    const bool fast = g.kernel == "fast_ln" || g.kernel == "fast_rms";
    const int eb_i = g.dtype == "bf16" ? 2 : 4;
    // fast_* reads x twice when its rows are too long for the registers (two sweeps).
    const bool reread = it->second || (fast && normref::fast_norm_shape(g.hidden, eb_i).scheme == normref::FastScheme::two_sweep);
    const bool rms = g.kernel == "fast_rms" || g.kernel.rfind("rms_", 0) == 0;
    t.path = reread ? "dram-reread" : "sram-replay";
    const double eb = eb_i, x = static_cast<double>(g.rows) * static_cast<double>(g.hidden) * eb;
    // The path's closed forms (the ASIC model's own identity), with the
    // kernel's gamma/beta bytes: fast_* bf16 reads them in bf16, the ASIC
    // keeps fp32.
    config::Workload w;
    w.norm = rms ? core::NormKind::rmsnorm : core::NormKind::layernorm;
    w.rows = g.rows;
    w.hidden = g.hidden;
    w.input.dtype = w.output.dtype = eb_i == 2 ? core::ElemType::bf16 : core::ElemType::fp32;
    if (!rms) w.beta = rng::Distribution::constant(0.0);
    asic::AsicConfig path_cfg;
    path_cfg.path = reread ? asic::InputPath::dram_reread : asic::InputPath::sram_replay;
    path_cfg.write_stats = true;  // every kernel stores its mean (LayerNorm) and rstd
    const asic::TrafficIdentity id = asic::traffic_identity(w, path_cfg, 1);
    const double params = (rms ? 1.0 : 2.0) * static_cast<double>(g.hidden) * (fast ? eb : 4.0);
    const double stats = static_cast<double>(id.dram_bytes_written) - x;
    t.closed_form_read = static_cast<double>(id.dram_bytes_read - id.param_bytes) + params;
    t.closed_form_written = static_cast<double>(id.dram_bytes_written);
    t.measured_read = g.dram_bytes_read;
    t.measured_written = g.dram_bytes_written;
    t.read_gap = (t.measured_read - t.closed_form_read) / t.closed_form_read;
    t.write_gap = (t.measured_written - t.closed_form_written) / t.closed_form_written;
    char b[200];
    if (reread && t.read_gap < -0.02) {
      std::snprintf(b, sizeof b, "the GPU's L2 served %.0f%% of the re-read (the row stays in the 60 MiB L2 between its passes)",
                    100 * (t.closed_form_read - t.measured_read) / x);
      t.read_cause = b;
    } else if (t.read_gap > 0.02) {
      std::snprintf(b, sizeof b, "%.0f KB beyond the identity: the launch's code and constants, fetched cold",
                    (t.measured_read - t.closed_form_read) / 1e3);
      t.read_cause = b;
    } else {
      t.read_cause = "as the identity (x read once per pass the path makes; the code and constants are a few KB)";
    }
    if (t.write_gap < -0.02) {
      std::snprintf(b, sizeof b, "%.1f MB of written lines still dirty in the L2 when the kernel ended (ncu counts them unwritten)",
                    (t.closed_form_written - t.measured_written) / 1e6);
      t.write_cause = b;
    } else {
      t.write_cause = "as the identity";
    }
    // The same path behind the arch's L2, with as many rows in flight as the GPU kernel holds.
    const LaunchPlan plan = plan_launch(g.kernel, g.rows, g.hidden, g.dtype, g.block, gpu);
    const SubKernel& launch = plan.launches.front();
    const config::Arch& arch = launch.mapping == RowMapping::warp ? warp : block;
    const Occupancy occ = occupancy(launch, gpu);
    t.rows_in_flight = static_cast<double>(occ.rows_in_flight);
    // The kernel's cache hints are the path's request priorities: an
    // evict-first (__ldcs) last pass over x, evict-first (__stcs) stores of y.
    asic::L2Config l2 = arch.asic->l2;
    const auto last_global = std::find_if(launch.passes.rbegin(), launch.passes.rend(),
                                          [](const Pass& p) { return is_global(p.source); });
    l2.reread_priority = last_global != launch.passes.rend() && last_global->source == Source::global_streaming
                             ? asic::L2Priority::evict_first
                             : asic::L2Priority::normal;
    l2.store_priority = launch.streaming_store ? asic::L2Priority::evict_first : asic::L2Priority::normal;
    // The near caches (the SMs' L1) hold what the kernel's shared memory and
    // gamma/beta leave of them.
    asic::L1Config l1 = arch.asic->l1;
    if (l1.capacity_bytes > 0) l1.capacity_bytes = l1_free_bytes(launch, occ, gpu);
    const double l1_hit =
        reread && !launch.uncoalesced ? asic::l1_reread_hit(l1, t.rows_in_flight, arch.asic->datapaths, g.hidden * eb) : 0.0;
    const asic::L2Traffic lt = asic::l2_traffic(l2, reread, static_cast<double>(g.rows), static_cast<double>(g.hidden),
                                                eb, eb, t.rows_in_flight, params, stats, l1_hit);
    t.l1_reread_hit = lt.l1_hit;
    t.l2_reread_hit = lt.reread_hit;
    // The GPU's datapath also fetches its program: each launch's SASS and
    // constant bank come from DRAM once (cold caches under ncu; the SIMT
    // model's launch bytes). The ASIC has none; the comparison adds them.
    for (const SubKernel& k : plan.launches)
      t.code_bytes += static_cast<double>(k.code_bytes) + gpu.dram.launch_read_bytes;
    t.l2_read = lt.dram_bytes_read + t.code_bytes;
    t.l2_written = lt.dram_bytes_written;
    t.l2_read_error = (t.l2_read - t.measured_read) / t.measured_read;
    t.l2_write_error = t.measured_written > 0 ? (t.l2_written - t.measured_written) / t.measured_written : 0.0;
    out.push_back(t);
  }
  return out;
}

std::vector<FixedPointCase> fixed_point_cases(const std::vector<GoldenCase>& cases, const std::string& golden_dir) {
  std::vector<FixedPointCase> out;
  const config::Arch arch = config::parse_arch_text(config::embedded::kFixed16ArchYaml, config::embedded::kFixed16ArchPath);
  for (const GoldenCase& g : cases) {
    if (g.dtype != "fp32" || !g.outputs.count("y") || g.outputs.count("dx")) continue;
    FixedPointCase f;
    f.id = g.id;
    f.kernel = g.kernel;
    f.arch = config::embedded::kFixed16ArchPath;
    try {
      const bool rms = g.kernel.rfind("rms", 0) == 0 || g.kernel == "fast_rms";
      const core::DatapathConfig cfg = case_datapath(g, arch, rms, std::nullopt);
      const auto y = core::read_npy((std::filesystem::path(golden_dir) / g.outputs.at("y")).string()).as<float>();
      const int64_t rows = g.output_rows;  // a long-row case: its first rows
      const KernelInputs in = datapath_inputs(g, rows);
      const std::vector<float> no_beta;
      core::NormDatapath dp(cfg, in.gamma, rms ? std::span<const float>(no_beta) : std::span<const float>(in.beta));
      f.output_lsb = dp.output_lsb();
      std::vector<double> x(static_cast<size_t>(g.hidden)), yo(x.size());
      core::StageCounters cnt;
      long double se = 0, sr = 0;
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < g.hidden; ++c) x[static_cast<size_t>(c)] = in.x[static_cast<size_t>(r * g.hidden + c)];
        dp.process_row(x, yo, cnt);
        for (int64_t c = 0; c < g.hidden; ++c) {
          const double want = y[static_cast<size_t>(r * g.hidden + c)], d = yo[static_cast<size_t>(c)] - want;
          if (!std::isfinite(want)) continue;  // the GPU's NaN rows (single-pass kernels on cancellation inputs)
          ++f.elements;
          se += static_cast<long double>(d) * d;
          sr += static_cast<long double>(want) * want;
          f.max_abs_error = std::max(f.max_abs_error, std::fabs(d));
        }
      }
      f.rel_l2_error = sr > 0 ? static_cast<double>(std::sqrt(se / sr)) : 0.0;
      f.input_overflows = cnt.overflows[static_cast<int>(core::Stage::input)];
      for (int st = 0; st < core::kStageCount; ++st)
        if (st != static_cast<int>(core::Stage::input)) f.other_overflows += cnt.overflows[st];
    } catch (const std::exception& e) {
      f.error = e.what();
    }
    out.push_back(f);
  }
  return out;
}

std::vector<AsicCase> asic_output_cases(const std::vector<GoldenCase>& cases, const std::string& golden_dir,
                                        const HardwareRsqrt& hw) {
  std::vector<AsicCase> out;
  for (const GoldenCase& g : cases)
    if (const Mapping* m = mapping_of(g.kernel); m && g.outputs.count("y"))
      out.push_back(run_case(g, *m, golden_dir, hw));
  return out;
}

}  // namespace normsim::simt
