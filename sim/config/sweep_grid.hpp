// A sweep's design space: axes of overrides, each point a list of --set
// overrides in axis order.
//
//   grid  KEY=V1,V2,...                 one key, its values
//   zip   K1=A1,A2,..., K2=B1,B2,...    keys whose values go together (same count)
//   an axis "... if KEY=V1,V2"          applies only at points where an earlier
//                                       axis's KEY has one of those values
//
// The points are the product of the axes, the last fastest; a conditional
// axis multiplies only the points where it applies (a replay-fraction axis
// adds no duplicates of the other paths). A study file (YAML) holds the same
// axes, plus the workload, arch, fixed overrides and objectives.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace normsim::config {

struct GridAxis {
  std::vector<std::string> keys;                 ///< workload.* or arch.*; several for a zip
  std::vector<std::vector<std::string>> values;  ///< values[i][k]: the i-th value of keys[k] (YAML text)
  std::string if_key;                            ///< empty: always applies
  std::vector<std::string> if_values;
  std::string source;                            ///< for messages: "--grid '...'" or "study.yaml:12"
};

using GridPoint = std::vector<std::pair<std::string, std::string>>;  ///< (key, value) in axis order

struct Grid {
  std::vector<GridAxis> axes;
  /// Every key of every axis, in axis order (a point may lack a conditional one).
  std::vector<std::string> keys() const;
  /// All points, in order.
  std::vector<GridPoint> points() const;
};

inline constexpr size_t kMaxGridPoints = 1000000;

/// Adds a `--grid KEY=V1,V2[ if KEY2=A,B]` axis; ConfigError (exit 2) naming
/// the argument and what is allowed when malformed.
void add_grid_axis(Grid& g, const std::string& arg);
/// Adds a `--zip K1=A1,A2,K2=B1,B2[ if ...]` axis.
void add_zip_axis(Grid& g, const std::string& arg);
/// The checks over all axes: a key in one axis only, an `if` on an earlier
/// axis's key, at most kMaxGridPoints points, at least one axis.
void check_grid(const Grid& g);

/// A study file: the axes and what else a sweep needs.
struct Study {
  std::string workload, arch;          ///< paths, relative to the file; empty: not given
  std::vector<std::string> sets;       ///< overrides for every point (KEY=VALUE)
  std::vector<std::string> objectives; ///< Pareto objectives
  Grid grid;
};
/// Reads a study YAML: `workload:`, `arch:`, `set: {KEY: VALUE}`,
/// `objectives: [..]`, `axes: [{grid: {KEY: [V..]}} | {zip: {K1: [..], K2: [..]}}, with an
/// optional `if: {KEY: [V..]}`]`. ConfigError naming file:line and the key.
/// A study file, or a shipped study by name (`normsim list studies`).
Study load_study(const std::string& name_or_path);
/// The same from the file's text (`path` names it in messages and anchors
/// its relative paths).
Study parse_study_text(const std::string& text, const std::string& path);

/// A grid value as JSON: an integer, a number, a bool, or the text.
nlohmann::json typed_value(const std::string& text);

}  // namespace normsim::config
