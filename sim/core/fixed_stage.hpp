// The named stages of the fixed-point datapath and their overflow counters.
// Each stage is one register (or accumulator) whose format the arch config
// chooses (DESIGN "Numbers and formats").
#pragma once

#include "sim/core/enum_names.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/core/fixed_point.hpp"

namespace normsim::core {

enum class Stage : uint8_t {
  input,      ///< x as it enters the datapath
  sum,        ///< running sum of x (single/two-pass)
  sumsq,      ///< running sum of x^2 (single-pass, RMSNorm)
  mean,       ///< Welford running mean / row mean
  m2,         ///< Welford M2 / two-pass sum of squared deviations
  recip,      ///< reciprocal table 1/n (Welford, 1/C, merge coefficients)
  variance,   ///< row variance (or mean square for RMSNorm)
  rsqrt_in,   ///< variance + eps into the RSQRT unit
  rsqrt_out,  ///< rstd out of the RSQRT unit
  xhat,       ///< (x - mean) * rstd
  gamma,
  beta,
  output,
  count_
};
inline constexpr int kStageCount = static_cast<int>(Stage::count_);

/// The stages' names, in the order of Stage (an arch's `formats.<name>`, a report's overflow keys).
inline constexpr EnumNames<Stage, kStageCount> kStages{{"input", "sum", "sumsq", "mean", "m2", "recip", "variance",
                                                          "rsqrt_in", "rsqrt_out", "xhat", "gamma", "beta", "output"}};
std::string_view to_string(Stage s);
std::optional<Stage> parse_stage(std::string_view s);

using StageFormats = std::array<FixedFormat, kStageCount>;
/// A stage's format, by the stage's name.
inline const FixedFormat& fmt(const StageFormats& f, Stage s) { return f[static_cast<int>(s)]; }

/// Quantisations and overflows per stage (overflows are never silent).
struct StageCounters {
  std::array<uint64_t, kStageCount> quantizations{};
  std::array<uint64_t, kStageCount> overflows{};
  uint64_t negative_variance_clamps = 0;

  void add(const StageCounters& o);
};

/// Quantises into stage `s`'s format and counts the event.
inline Fx quantize_stage(const Exact& v, Stage s, const StageFormats& f, StageCounters& c) {
  QuantFlags fl;
  const Fx r = quantize(v, f[static_cast<int>(s)], &fl);
  ++c.quantizations[static_cast<int>(s)];
  if (fl.overflow) ++c.overflows[static_cast<int>(s)];
  return r;
}

}  // namespace normsim::core
