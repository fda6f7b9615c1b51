#include "sim/core/norm_types.hpp"

namespace normsim::core {

std::string_view to_string(NormKind k) { return kNormKinds.name(k); }

std::string_view to_string(VarianceAlgorithm a) {
  switch (a) {
    case VarianceAlgorithm::two_pass: return "two-pass";
    case VarianceAlgorithm::single_pass: return "single-pass";
    case VarianceAlgorithm::welford: return "welford";
  }
  return "?";
}

std::optional<NormKind> parse_norm_kind(std::string_view s) { return kNormKinds.parse(s); }

std::optional<VarianceAlgorithm> parse_variance_algorithm(std::string_view s) {
  if (s == "two-pass") return VarianceAlgorithm::two_pass;
  if (s == "single-pass") return VarianceAlgorithm::single_pass;
  if (s == "welford") return VarianceAlgorithm::welford;
  return std::nullopt;
}

}  // namespace normsim::core
