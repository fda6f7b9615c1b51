// Reports are written to a temporary file beside the target and renamed into
// place, so a failed run never leaves half a report over a good one.
#pragma once

#include <string>

namespace normsim::report {

/// Writes `content` to `path` atomically; throws std::runtime_error naming the path.
void write_file_atomic(const std::string& path, const std::string& content);

/// Writes a file through `writer(tmp_path)`, then renames it over `path`.
template <typename Writer>
void write_atomic_with(const std::string& path, Writer&& writer);

}  // namespace normsim::report

#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace normsim::report {
template <typename Writer>
void write_atomic_with(const std::string& path, Writer&& writer) {
  const std::string tmp = path + ".tmp";
  try {
    writer(tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename into place: " + ec.message());
  }
}
}  // namespace normsim::report
