// Every file normsim reads whole -- a config, the golden index and baseline,
// calibrate's records, a sweep's shards -- through one reader that refuses
// what it must not read: a missing file, a directory, a device or FIFO
// (/dev/zero would never end), a file over its kind's limit, or one that
// grows past it while read. Each refusal is a ConfigError naming the file
// and what is allowed.
#pragma once

#include <cstdint>
#include <string>

namespace normsim::config {

/// A kind of file, as its errors describe it.
struct BoundedFile {
  uint64_t max_bytes = 0;
  std::string what;  ///< what the file must be: "a YAML file" -> "(allowed: a YAML file of at most N bytes)"
  std::string missing_problem = "no such file";  ///< the problem a missing file is
};

/// The whole text of `path`; ConfigError naming it otherwise.
std::string read_bounded_file(const std::string& path, const BoundedFile& kind);

}  // namespace normsim::config
