#include "sim/validate/asic_outputs.hpp"

#include <bit>
#include <cmath>
#include <filesystem>

#include "sim/core/element_format.hpp"
#include "sim/core/float_norm.hpp"
#include "sim/core/norm_backward.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/core/npy.hpp"
#include "sim/validate/kernel_as_asic.hpp"
#include "sim/validate/simt_regress.hpp"

namespace normsim::validate {

namespace {

AsicCase run_case(const GoldenCase& g, const simt::AsicDatapath& m, const std::string& dir, const simt::HardwareRsqrt& hw) {
  AsicCase a;
  a.id = g.id;
  a.kernel = simt::kernel_name(g.kernel);
  a.arch = mapped_arch_path(m.block_arch);
  try {
    const config::Arch& arch = mapped_arch(m.block_arch);
    const bool bf16 = g.dtype == simt::DType::bf16;
    core::DatapathConfig cfg = case_datapath(g, arch, m.rms, m.algorithm);
    cfg.variance_clamp = m.clamp;
    cfg.lanes = m.lanes ? m.lanes : arch.lanes;
    if (m.whole_block_group) cfg.merge_group = cfg.lanes;
    cfg.lane_vector = m.lane_vector;
    cfg.lane_blocks = m.lane_blocks;  // the cluster scheme: each block a share of the row
    if (m.hw_rsqrt) cfg.fp32_rsqrt = [&hw](float v) { return hw(v); };
    a.lanes = cfg.lanes;
    a.merge_order = cfg.merge_order == core::MergeOrder::butterfly ? "butterfly" : "adjacent";
    auto file = [&](const std::string& key) { return (std::filesystem::path(dir) / g.outputs.at(key)).string(); };
    const core::NpyArray y = core::read_npy(file("y"));
    const std::vector<float> mean = m.rms ? std::vector<float>{} : core::read_npy(file("mean")).as<float>();
    const auto rstd = core::read_npy(file("rstd")).as<float>();
    const int64_t rows = g.output_rows;  // a long-row case: its first rows
    if (y.elements() != rows * g.hidden) throw std::runtime_error("y does not hold the rows rstd keeps");
    const simt::KernelInputs in = datapath_inputs(g, rows, &m);
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
    // A residual kernel's stored z against the ASIC model's residual adder (the same mask), bit for bit.
    if (m.residual_sum && g.outputs.count("z")) {
      const core::NpyArray z = core::read_npy(file("z"));
      if (z.elements() != rows * g.hidden) throw std::runtime_error("z does not hold the rows rstd keeps");
      const std::vector<uint16_t> zbits = bf16 ? z.as<uint16_t>() : std::vector<uint16_t>{};
      const std::vector<float> zf = bf16 ? std::vector<float>{} : z.as<float>();
      for (size_t i = 0; i < static_cast<size_t>(rows * g.hidden); ++i)
        cmp(bf16 ? std::bit_cast<float>(static_cast<uint32_t>(zbits[i]) << 16) : zf[i], in.x[i], bf16 ? 65536.0 : 1.0);
    }
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

// The backward: x and dy as normref makes them, the harness's fp32
// statistics (what the kernel reads as the forward's), every row through the
// datapath (dgamma/dbeta sum them all), dx's kept rows compared.
AsicCase run_backward_case(const GoldenCase& g, const simt::AsicDatapath& m, const std::string& dir) {
  AsicCase a;
  a.id = g.id;
  a.kernel = simt::kernel_name(g.kernel);
  a.arch = mapped_arch_path(m.block_arch);
  a.backward = true;
  a.parameter_order_free = m.param_grad_order_free;
  try {
    const bool bf16 = g.dtype == simt::DType::bf16;
    const core::BackwardConfig cfg = case_backward_config(g, mapped_arch(m.block_arch), m);
    a.lanes = cfg.lanes;
    a.merge_order = cfg.merge_order == core::MergeOrder::butterfly ? "butterfly" : "adjacent";
    auto file = [&](const std::string& key) { return (std::filesystem::path(dir) / g.outputs.at(key)).string(); };
    const core::NpyArray dx_npy = core::read_npy(file("dx"));
    const int64_t C = g.hidden, kept = g.output_rows;
    if (dx_npy.elements() != kept * C) throw std::runtime_error("dx does not hold whole rows");
    const std::vector<uint16_t> dx_bits = bf16 ? dx_npy.as<uint16_t>() : std::vector<uint16_t>{};
    const std::vector<float> dx_f = bf16 ? std::vector<float>{} : dx_npy.as<float>();
    simt::KernelInputs in = datapath_inputs(g, g.rows, &m);
    simt::add_grad_out(in, g.seed);
    std::vector<float> mean, rstd;
    core::reference_stats_fp32(in.x, g.rows, C, 1e-5, mean, rstd);
    core::NormBackward bw(cfg, in.gamma, g.rows);
    std::vector<double> x(static_cast<size_t>(C)), dy(x.size()), dx(x.size());
    core::BackwardCounters counters;
    auto cmp = [&](float want, float got, double scale) {
      ++a.elements_compared;
      const double u = ulp_distance(want, got) / scale;
      if (u != 0) ++a.elements_differing;
      a.max_ulp = std::max(a.max_ulp, u);
    };
    for (int64_t r = 0; r < g.rows; ++r) {
      const size_t base = static_cast<size_t>(r * C);
      for (size_t c = 0; c < x.size(); ++c) x[c] = in.x[base + c], dy[c] = in.grad_out[base + c];
      bw.process_row(r, x, dy, mean[static_cast<size_t>(r)], rstd[static_cast<size_t>(r)], dx, counters);
      if (r >= kept) continue;
      for (size_t c = 0; c < x.size(); ++c) {
        const float v = static_cast<float>(dx[c]);
        if (bf16)
          cmp(std::bit_cast<float>(static_cast<uint32_t>(dx_bits[base + c]) << 16),
              core::bf16_bits_to_fp32(core::fp32_to_bf16_bits(v)), 65536.0);
        else
          cmp(dx_f[base + c], v, 1.0);
      }
    }
    std::vector<double> dgamma(static_cast<size_t>(C)), dbeta(static_cast<size_t>(C));
    bw.finish(dgamma, dbeta, counters);
    for (const char* key : {"dgamma", "dbeta"}) {
      const auto want = core::read_npy(file(key)).as<float>();
      const std::vector<double>& mine = std::string(key) == "dgamma" ? dgamma : dbeta;
      if (want.size() != mine.size()) throw std::runtime_error(std::string(key) + " has " + std::to_string(want.size()) + " entries");
      for (size_t c = 0; c < want.size(); ++c) {
        if (a.parameter_order_free)
          a.order_free_max_ulp = std::max(a.order_free_max_ulp, ulp_distance(want[c], static_cast<float>(mine[c])));
        else
          cmp(want[c], static_cast<float>(mine[c]), 1.0);
      }
    }
    a.bit_exact = a.elements_differing == 0;
  } catch (const std::exception& e) {
    a.error = e.what();
  }
  return a;
}

}  // namespace

std::vector<AsicCase> asic_output_cases(const std::vector<GoldenCase>& cases, const std::string& golden_dir,
                                        const simt::HardwareRsqrt& hw) {
  std::vector<AsicCase> out;
  for (const GoldenCase& g : cases)
    if (const auto m = asic_datapath(g.kernel, g); m && m->backward && g.outputs.count("dx"))
      out.push_back(run_backward_case(g, *m, golden_dir));
    else if (m && !m->backward && g.outputs.count("y"))
      out.push_back(run_case(g, *m, golden_dir, hw));
  return out;
}

}  // namespace normsim::validate
