// The backward's registers (one fixed-point format each) and what their
// roundings met, shared by the backward's units and its row datapath.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/enum_names.hpp"
#include "sim/core/fixed_point.hpp"
#include "sim/core/norm_types.hpp"

namespace normsim::core {

/// The backward's registers, each with a format in fixed point.
enum class BackwardStage : uint8_t {
  dy,         ///< the upstream gradient as it enters
  g,          ///< dy gamma
  xhat,       ///< (x - mean) rstd, recomputed (or read back as the forward wrote it)
  sum_g,      ///< lane and tree accumulator of S1 = sum g
  sum_gxhat,  ///< lane and tree accumulator of S2 = sum g x_hat
  row_mean,   ///< S1 / C and S2 / C
  dx,         ///< the output register
  dgamma,     ///< parameter-gradient accumulator of dy x_hat
  dbeta,      ///< parameter-gradient accumulator of dy
  count_
};
inline constexpr int kBackwardStageCount = static_cast<int>(BackwardStage::count_);
inline constexpr EnumNames<BackwardStage, kBackwardStageCount> kBackwardStages{
    {"dy", "g", "xhat", "sum_g", "sum_gxhat", "row_mean", "dx", "dgamma", "dbeta"}};

using BackwardFormats = std::array<FixedFormat, kBackwardStageCount>;
/// A backward stage's format, by the stage's name.
inline const FixedFormat& fmt(const BackwardFormats& f, BackwardStage s) { return f[static_cast<int>(s)]; }

struct BackwardCounters {
  std::array<uint64_t, kBackwardStageCount> quantizations{};
  std::array<uint64_t, kBackwardStageCount> overflows{};
  void add(const BackwardCounters& o);
};

/// The backward stages a norm kind uses (RMSNorm has no S1 and no dbeta).
std::vector<BackwardStage> backward_stages_used(NormKind kind);

}  // namespace normsim::core
