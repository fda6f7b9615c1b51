// `normsim calibrate`: a GPU arch file from the records gpu_ref's
// scripts/calibrate_gpu.sh writes on any NVIDIA GPU (docs/FIDELITY.md,
// "Another GPU"). Every value says where it came from:
//   * measured -- read off a probe's record (device properties, the
//     latency ladder, memory-level parallelism, the empty kernel, the copy);
//   * probe fit -- least squares on the L2 reuse probes (the reuse curves);
//   * fit -- `regress --fit` on the training cases of the folder's golden
//     subset (never its held-out ones);
//   * start -- not measured by any probe: the start arch's value (an
//     architecture constant to check in the vendor's tuning guide).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/simt/gpu_arch.hpp"

namespace normsim::validate {

enum class ValueSource { measured, probe_fit, fit, start };

struct Calibration {
  simt::GpuArch arch;
  /// Arch-file key ("l2.near_hit_latency_cycles") -> how its value came about.
  std::map<std::string, std::pair<ValueSource, std::string>> sources;
  std::string log;  ///< one line per step, for stderr
};

/// The records of `dir` (calibrate_gpu.sh's OUT; a golden folder with the
/// same files) turned into an arch, starting from `start` (its fitted values
/// are the fit's starting point, its unmeasured ones are kept). `name` labels
/// the arch. ConfigError (exit 2) naming the file, its line and the key on a
/// missing or malformed record.
Calibration calibrate(const std::string& dir, const simt::GpuArch& start, const std::string& name);

/// The arch file's text: every key of the GPU arch table in its order, each
/// with its source as a comment.
std::string calibration_yaml(const Calibration& c, const std::string& dir);

/// The fit tolerance of each probe-fitted value: calibrate on the same
/// records reproduces the shipped value within this relative distance
/// (a least-squares minimum is flat along some directions).
inline constexpr double kProbeFitTolerance = 0.03;
/// The same for the values `regress --fit` fits on the golden cases (it
/// starts from the start arch's values, so a re-derivation moves them only
/// as far as the measured values moved).
inline constexpr double kFitTolerance = 0.05;

}  // namespace normsim::validate
