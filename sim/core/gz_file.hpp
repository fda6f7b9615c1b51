// Reading gzip-compressed files whole (golden data and tables are stored
// compressed).
#pragma once

#include <string>

namespace normsim::core {

/// The whole of a gzip file, decompressed; runtime_error naming the file
/// when it cannot be read.
std::string read_gz(const std::string& path);

}  // namespace normsim::core
