#include "sim/config/bounded_file.hpp"

#include <filesystem>
#include <fstream>

#include "sim/config/config_error.hpp"

namespace normsim::config {

std::string read_bounded_file(const std::string& path, const BoundedFile& kind) {
  const std::string allowed = kind.what + " of at most " + std::to_string(kind.max_bytes) + " bytes";
  auto refuse = [&](const std::string& problem, const std::string& allow = {}) {
    return ConfigError(format_config_error(path, 0, "", problem, allow));
  };
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec == std::errc::too_many_symbolic_link_levels)
    throw refuse("a loop of symbolic links", "a path that leads to " + kind.what);
  if (!std::filesystem::exists(st)) throw refuse(kind.missing_problem);
  if (std::filesystem::is_directory(st)) throw refuse("is a directory, expected " + kind.what);
  if (!std::filesystem::is_regular_file(st)) throw refuse("is not a regular file (a device, FIFO or socket)", allowed);
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kind.max_bytes) throw refuse("is " + std::to_string(size) + " bytes", allowed);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw refuse("cannot open file");
  // In pieces, stopping past the limit: the file may have grown since stat.
  std::string text;
  if (!ec) text.reserve(static_cast<size_t>(size));
  char piece[1 << 16];
  while (in.read(piece, sizeof piece) || in.gcount() > 0) {
    text.append(piece, static_cast<size_t>(in.gcount()));
    if (text.size() > kind.max_bytes) throw refuse("grew past " + std::to_string(kind.max_bytes) + " bytes while read", allowed);
  }
  if (in.bad()) throw refuse("cannot read file");
  return text;
}

}  // namespace normsim::config
