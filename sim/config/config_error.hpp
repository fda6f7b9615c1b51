// Bad input is reported as one line naming the file, the line where the YAML
// parser knows it, the key and what is allowed; the CLI maps it to exit 2.
#pragma once

#include <stdexcept>
#include <string>

namespace normsim::config {

class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(const std::string& one_line) : std::runtime_error(one_line) {}
};

/// A check on a result failed (a non-finite or negative report number, a
/// regression past its threshold): one line, exit 1.
class CheckFailure : public std::runtime_error {
 public:
  explicit CheckFailure(const std::string& one_line) : std::runtime_error(one_line) {}
};

/// "file:line: key 'a.b': problem (allowed: ...)"; line <= 0 omits the line.
std::string format_config_error(const std::string& file, int line, const std::string& key, const std::string& problem,
                                const std::string& allowed = {});

}  // namespace normsim::config
