// A sweep's grid: axes of KEY=V1,V2,... overrides (the Cartesian product of
// the values), each point a list of --set overrides in axis order.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace normsim::config {

struct GridAxis {
  std::string key;                  ///< workload.* or arch.*
  std::vector<std::string> values;  ///< as given (YAML text)
};

struct Grid {
  std::vector<GridAxis> axes;
  size_t points() const;
  /// Point p (0-based, the last axis fastest): (key, value) per axis, in axis order.
  std::vector<std::pair<std::string, std::string>> point(size_t p) const;
};

inline constexpr size_t kMaxGridPoints = 1000000;

/// Parses `--grid` arguments; ConfigError (exit 2) naming the argument and
/// what is allowed for a malformed one, a gpu key, or more than
/// kMaxGridPoints points.
Grid parse_grid(const std::vector<std::string>& args);

}  // namespace normsim::config
