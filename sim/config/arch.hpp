// A datapath architecture: lanes, variance algorithm, arithmetic and, for a
// fixed-point datapath, the format of every stage and the RSQRT unit
// (schema documented in workloads/arch/README.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/config/yaml_reader.hpp"

#include <optional>

#include "sim/config/asic_params.hpp"
#include "sim/config/param_table.hpp"
#include "sim/core/norm_backward.hpp"
#include "sim/core/norm_datapath.hpp"

namespace normsim::config {

/// How the merge tree is built (sim/core/merge_schedule.hpp).
struct MergeConfig {
  int units = 0;  ///< merge units; 0: a dedicated tree of lanes - 1 nodes
};

/// Where a residual workload's sum is made (docs/ASIC.md, "Fusion").
enum class FuseMode {
  none,              ///< a separate adder writes z to DRAM first; the unit reads z
  residual,          ///< the unit reads x and r and adds them in front of its lanes
  residual_dropout,  ///< ... and regenerates the dropout mask (a Philox4x32-10 generator)
};
inline constexpr std::string_view kFuseModeNames = "none, residual, residual_dropout";
std::string_view to_string(FuseMode m);
std::optional<FuseMode> parse_fuse_mode(std::string_view s);

struct FuseConfig {
  FuseMode mode = FuseMode::none;
  core::ResidualAddConfig add;  ///< the adder's arithmetic (wherever it is)
};

struct Arch {
  std::string name;
  std::string source;
  std::string sha256;  ///< of the resolved config: its YAML with every --set applied, comments dropped
  std::map<std::string, std::string> set_by;  ///< key path -> the --set that gave it
  /// "--set TEXT" where a --set gave `key`, else the file: a message's blame.
  std::string origin_of(const std::string& key) const { return config::origin_of(source, set_by, key); }
  int lanes = 16;
  core::VarianceAlgorithm algorithm = core::VarianceAlgorithm::welford;
  bool variance_clamp = true;
  core::Arithmetic arithmetic = core::Arithmetic::fp32;
  core::StageFormats formats{};
  core::RsqrtConfig rsqrt{};
  core::MergeOrder merge_order = core::MergeOrder::adjacent;
  int merge_group = 32;
  MergeConfig merge;
  bool fma_contraction = false;
  FuseConfig fuse;
  /// The backward's fixed-point formats, one per core::BackwardStage (a
  /// fixed arch that runs backward workloads needs them).
  std::optional<core::BackwardFormats> backward_formats;
  /// Timing and memory system of the ASIC model; absent: numerics only.
  std::optional<AsicConfig> asic;
};

/// The arch file's keys (workloads/README.md's tables are generated from it).
const ParamTable<Arch>& arch_params();

/// `digest`: as parse_workload_text's.
Arch parse_arch_text(const std::string& text, const std::string& file, const std::vector<Override>& overrides = {}, bool digest = true);
/// An arch file, or a shipped arch by name (`normsim list archs`).
Arch load_arch(const std::string& name_or_path, const std::vector<Override>& overrides = {}, bool digest = true);
/// The built-in default (workloads/arch/asic-default.yaml, embedded at build time).
Arch default_arch(const std::vector<Override>& overrides = {}, bool digest = true);

/// An arch file's text with `overrides` applied, as YAML that load_arch reads
/// back to the same Arch (comments dropped): how a search writes the arch it
/// chose. `path` empty: the embedded default.
std::string arch_yaml_with(const std::string& path, const std::vector<Override>& overrides);

}  // namespace normsim::config
