// `normsim regress --fit`: the GPU arch's fitted parameters (those marked
// "fit" in workloads/arch/h200.yaml) fitted on the training cases only.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/simt/gpu_arch.hpp"
#include "sim/validate/golden.hpp"

namespace normsim::validate {

/// Coordinate descent over each fitted parameter on a log grid, minimising
/// duration MAE + DRAM read MAE + DRAM write MAE + half the worst DRAM read
/// error over the training cases. Returns the fitted arch; `log` receives
/// one line per accepted step.
simt::GpuArch fit_arch(const std::vector<GoldenCase>& cases, const simt::GpuArch& start, std::string* log = nullptr);

/// The ranges' scale and floors (simt::RangeConfig) on the training cases
/// only: the spread and DRAM-read floor that hold every training case's DRAM
/// read at the least mean width, the other counters' floors at 95% of the
/// training cases. fit_arch ends with it.
simt::RangeConfig fit_ranges(const std::vector<GoldenCase>& cases, const simt::GpuArch& arch, std::string* log = nullptr);

/// The fitted parameters and their values, by their arch-file keys.
std::vector<std::pair<std::string, double>> fitted_values(const simt::GpuArch& g);
/// The same as text, one "  key: value" line each.
std::string fitted_parameters(const simt::GpuArch& g);

}  // namespace normsim::validate
