// A workload: which normalisation, over which tensor shape and element
// types, on which generated inputs (schema documented in workloads/README.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/param_table.hpp"
#include "sim/config/yaml_reader.hpp"

#include "sim/core/norm_problem.hpp"

namespace normsim::config {

using TensorSpec = core::TensorSpec;

/// A workload file: the job in numbers (core::NormProblem) and where it came from.
struct Workload : core::NormProblem {
  std::string name;
  std::string source;  ///< file it came from ("<embedded default: ...>" for the built-in one)
  std::string sha256;  ///< of the resolved config: its YAML with every --set applied, comments dropped
  std::map<std::string, std::string> set_by;  ///< key path -> the --set that gave it
  /// "--set TEXT" where a --set gave `key`, else the file: a message's blame.
  std::string origin_of(const std::string& key) const { return config::origin_of(source, set_by, key); }
};

inline constexpr int64_t kMaxHidden = int64_t(1) << 24;
inline constexpr int64_t kMaxRows = int64_t(1) << 32;

/// The workload file's keys (workloads/README.md's table is generated from it).
const ParamTable<Workload>& workload_params();
/// The report's echo of a workload: its keys, where it came from, its
/// element count and the input distribution as generated.
nlohmann::json workload_echo(const Workload& w);

/// `digest`: compute sha256 (the resolved YAML emitted and hashed: what a
/// report's stamp names; a sweep's points skip it).
Workload parse_workload_text(const std::string& text, const std::string& file, const std::vector<Override>& overrides = {},
                             bool digest = true);
/// A workload file, or a shipped workload by name (`normsim list workloads`).
Workload load_workload(const std::string& name_or_path, const std::vector<Override>& overrides = {}, bool digest = true);
/// The built-in default (workloads/llama2-7b.yaml, embedded at build time).
Workload default_workload(const std::vector<Override>& overrides = {}, bool digest = true);

}  // namespace normsim::config
