// A fixed-point arch as YAML text and the one-line error an arch text gets,
// shared by the config tests and the unit tests that parse an arch section.
#pragma once

#include <string>

#include "sim/config/arch.hpp"
#include "sim/config/config_error.hpp"

namespace normsim::config {

inline std::string arch_error(const std::string& text) {
  try {
    parse_arch_text(text, "a.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
// A fixed-point arch's lanes and formats, with no name.
inline const std::string kFixedArch = R"(lanes: 4
arithmetic: fixed
formats:
  input: {bits: 16, frac: 8}
  sum: {bits: 32, frac: 8}
  sumsq: {bits: 40, frac: 16, signed: false}
  mean: {bits: 24, frac: 16}
  m2: {bits: 40, frac: 16}
  recip: {bits: 24, frac: 23, signed: false}
  variance: {bits: 32, frac: 16, signed: false}
  rsqrt_in: {bits: 32, frac: 16, signed: false}
  rsqrt_out: {bits: 24, frac: 16, signed: false}
  xhat: {bits: 16, frac: 12}
  gamma: {bits: 12, frac: 9}
  beta: {bits: 12, frac: 9}
  output: {bits: 12, frac: 7}
)";

}  // namespace normsim::config
