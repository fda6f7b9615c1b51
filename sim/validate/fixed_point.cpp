#include "sim/validate/fixed_point.hpp"

#include <cmath>
#include <filesystem>

#include "sim/config/embedded_configs.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/core/npy.hpp"
#include "sim/validate/kernel_as_asic.hpp"

namespace normsim::validate {

std::vector<FixedPointCase> fixed_point_cases(const std::vector<GoldenCase>& cases, const std::string& golden_dir) {
  std::vector<FixedPointCase> out;
  const config::Arch arch = config::parse_arch_text(config::embedded::kFixed16ArchYaml, config::embedded::kFixed16ArchPath);
  for (const GoldenCase& g : cases) {
    if (g.dtype != simt::DType::fp32 || !g.outputs.count("y") || g.outputs.count("dx")) continue;
    FixedPointCase f;
    f.id = g.id;
    f.kernel = simt::kernel_name(g.kernel);
    f.arch = config::embedded::kFixed16ArchPath;
    try {
      const bool rms = !normref::kernel_info(g.kernel).layernorm;
      const auto m = asic_datapath(g.kernel, g);
      const core::DatapathConfig cfg = case_datapath(g, arch, rms, std::nullopt);
      const auto y = core::read_npy((std::filesystem::path(golden_dir) / g.outputs.at("y")).string()).as<float>();
      const int64_t rows = g.output_rows;  // a long-row case: its first rows
      const simt::KernelInputs in = datapath_inputs(g, rows, m ? &*m : nullptr);
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

}  // namespace normsim::validate
