// printf-style formatting into a std::string, for the console tables.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>

namespace normsim::report {

[[gnu::format(printf, 1, 2)]] inline std::string strprintf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string s(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(s.data(), s.size() + 1, format, args);
  va_end(args);
  return s;
}

}  // namespace normsim::report
