#include "sim/core/gz_file.hpp"

#include <zlib.h>

#include <stdexcept>

namespace normsim::core {

std::string read_gz(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error(path + ": cannot open");
  std::string bytes;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) bytes.append(buf, static_cast<size_t>(n));
  const bool failed = n < 0;
  gzclose(f);
  if (failed) throw std::runtime_error(path + ": not a readable gzip file");
  return bytes;
}

}  // namespace normsim::core
