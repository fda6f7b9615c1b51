// Vocabulary shared by every normalisation algorithm.
#pragma once

#include "sim/core/enum_names.hpp"

#include <optional>
#include <string_view>

namespace normsim::core {

enum class NormKind { layernorm, rmsnorm };

/// How a LayerNorm datapath obtains the row variance (Welford 1962; Chan, Golub & LeVeque 1983).
enum class VarianceAlgorithm {
  two_pass,     ///< mean first, then sum of (x - mean)^2: exact, reads x twice
  single_pass,  ///< sum and sum of squares in one pass: E[x^2] - E[x]^2, cancels
  welford,      ///< Welford per lane, Chan merge across lanes: one pass, stable
};

std::string_view to_string(NormKind k);
std::string_view to_string(VarianceAlgorithm a);
std::optional<NormKind> parse_norm_kind(std::string_view s);
std::optional<VarianceAlgorithm> parse_variance_algorithm(std::string_view s);
inline constexpr EnumNames<NormKind, 2> kNormKinds{{"layernorm", "rmsnorm"}};
inline constexpr std::string_view kAlgorithmNames = "welford, two-pass, single-pass";

/// Per-row statistics as the datapath holds them (rstd = 1/sqrt(var + eps)).
struct RowStats {
  double mean = 0.0;  ///< 0 for RMSNorm
  double var = 0.0;   ///< variance (LayerNorm) or mean square (RMSNorm)
  double rstd = 0.0;
};

}  // namespace normsim::core
