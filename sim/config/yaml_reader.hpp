// Strict typed access to one YAML mapping: every key read is remembered, and
// `finish()` rejects keys nobody read (typos fail loudly instead of being
// ignored). Errors carry the file, the line and the full key path.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/config/config_error.hpp"

namespace normsim::config {

/// A command-line override `--set workload.rows=64` / `--set arch.formats.sum.bits=24`.
struct Override {
  std::string target;              ///< "workload" or "arch"
  std::vector<std::string> path;  ///< keys below the top mapping
  std::string value;               ///< YAML text of the new value
  std::string text;                ///< as given, for messages
};
/// Parses "target.key.key=value"; ConfigError naming --set on a malformed one.
Override parse_override(const std::string& text);

/// Config files are small; a larger one is refused rather than read.
inline constexpr uint64_t kMaxConfigFileBytes = 16ull << 20;

/// The whole text of a config file; ConfigError naming the path if it is
/// missing, not a regular file (a FIFO or /dev/zero would never end), larger
/// than kMaxConfigFileBytes or unreadable.
std::string read_config_file(const std::string& path);

/// Parses one YAML document strictly: ConfigError with file:line for a second
/// document, a duplicate key, a key that is a list or a mapping, an explicit
/// tag (`!!binary`), an anchor or alias, or text larger than kMaxConfigFileBytes.
/// `file` names the source in messages ("--set" for an override's value).
YAML::Node load_yaml_strict(const std::string& text, const std::string& file);

/// Where a key of a loaded config got its value, for a message about a rule
/// that spans files (the SRAM against the workload's row): "--set TEXT" when
/// a --set gave it (or a mapping above it), else `source`.
std::string origin_of(const std::string& source, const std::map<std::string, std::string>& set_by, const std::string& key);

class YamlReader {
 public:
  YamlReader(YAML::Node node, std::string file, std::string path);

  /// Parses a whole document (file contents) into a reader of its top mapping.
  static YamlReader from_text(const std::string& text, const std::string& file);
  static YamlReader from_file(const std::string& path);
  /// Sets one key path (creating mappings as needed) before anything is read.
  void apply(const Override& o);
  /// Removes a key of this mapping before anything is read, because of the
  /// override `by` (`rows` replaces `batch` and `seq`): a later problem at
  /// that key is blamed on the override.
  void erase(const std::string& key, const Override& by);
  /// The mapping as YAML text (block style; comments are not kept).
  std::string emit() const;

  bool has(const std::string& key) const;
  /// The text of the value at a key path below this mapping ({"latency",
  /// "rsqrt_cycles"}; "" for a mapping or list), or nullopt when absent.
  std::optional<std::string> text_at(const std::vector<std::string>& path) const;
  std::optional<int64_t> get_int(const std::string& key, int64_t lo, int64_t hi);
  std::optional<double> get_double(const std::string& key);
  /// A number > 0, `def` when absent; exit 2 naming the range otherwise.
  double get_positive(const std::string& key, double def);
  std::optional<bool> get_bool(const std::string& key);
  std::optional<std::string> get_string(const std::string& key);
  /// A string that must be one of `allowed` (listed in the error).
  std::optional<std::string> get_choice(const std::string& key, const std::vector<std::string>& allowed);
  std::optional<YamlReader> get_map(const std::string& key);
  bool is_map(const std::string& key) const;
  std::vector<std::string> keys() const;

  [[noreturn]] void fail(const std::string& key, const std::string& problem, const std::string& allowed = {}) const;
  /// fail() at a key nested below this mapping ({"l1", "datapaths_per_cache"}):
  /// the deepest line that exists, the full key path.
  [[noreturn]] void fail_path(const std::vector<std::string>& path, const std::string& problem,
                              const std::string& allowed = {}) const;
  /// fail() for a rule over several keys of this mapping (frac within
  /// bits): at `key`, but naming the --set of any key in `involved` when
  /// `key` itself was not set, since that --set broke the rule.
  [[noreturn]] void fail_rule(const std::string& key, const std::vector<std::string>& involved, const std::string& problem,
                              const std::string& allowed = {}) const;
  /// Rejects unread keys, naming `allowed_keys`.
  void finish(const std::vector<std::string>& allowed_keys) const;

  const std::string& file() const { return file_; }
  /// Full key path -> the --set that wrote it, for every --set applied.
  const std::map<std::string, std::string>& set_by() const { return *set_by_; }
  std::string key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

 private:
  YAML::Node node_;
  std::string file_, path_;
  /// Full key path -> the --set that wrote (or erased) it, shared with the
  /// readers of nested mappings: a problem there names the --set, not the file.
  std::shared_ptr<std::map<std::string, std::string>> set_by_ = std::make_shared<std::map<std::string, std::string>>();
  /// The --set behind `key_path(key)` or a mapping above it; empty if none.
  std::string override_of(const std::string& full_key) const;
  mutable std::set<std::string> read_;
  int line_of(const std::string& key) const;
  YAML::Node scalar(const std::string& key) const;
};

}  // namespace normsim::config
