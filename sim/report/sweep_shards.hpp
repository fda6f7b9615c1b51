// A sharded sweep's shard files (sweep --shard i/n --out DIR) read back and
// merged into exactly what the sweep run whole writes. A shard is read like
// a config: every key it must have, of its type and range, or exit 2 naming
// the file and the key.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace normsim::report {

/// A shard file is refused beyond this size.
inline constexpr uint64_t kMaxShardFileBytes = 1ull << 30;

struct SweepShard {
  std::string file;
  nlohmann::json study;  ///< the study the shard belongs to (equal in every shard of it)
  size_t index = 0, count = 0;
  std::vector<nlohmann::json> points;
};

/// Parses one shard's text; ConfigError naming `file` and the key otherwise.
SweepShard parse_sweep_shard(const std::string& text, const std::string& file);

/// The whole sweep's JSON (sweep_json) from every shard of one study, each
/// once; ConfigError naming the file for a shard of another study, a shard
/// given twice or missing, or points that do not add up to the study's.
nlohmann::json merge_sweep_shards(const std::vector<SweepShard>& shards);

}  // namespace normsim::report
