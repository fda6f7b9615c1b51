#include "sim/config/printable.hpp"

#include <cstdint>
#include <cstdio>

namespace normsim::config {

namespace {
// Length of the valid UTF-8 sequence at s[i] (0: invalid), per RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF.
size_t utf8_length(std::string_view s, size_t i, uint32_t& cp) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
  const uint8_t c = b(0);
  size_t n;
  if (c >= 0xc2 && c <= 0xdf) n = 2, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef) n = 3, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3f);
  }
  if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
  return n;
}
}  // namespace

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto hex = [&](uint8_t c) {
    char b[8];
    std::snprintf(b, sizeof b, "\\x%02x", c);
    out += b;
  };
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<uint8_t>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
    } else if (c == '\n') out += "\\n", ++i;
    else if (c == '\t') out += "\\t", ++i;
    else if (c == '\r') out += "\\r", ++i;
    else if (c < 0x80) hex(c), ++i;  // other C0 controls and DEL
    else {
      uint32_t cp = 0;
      const size_t n = utf8_length(s, i, cp);
      if (n == 0 || (cp >= 0x80 && cp <= 0x9f)) {  // invalid, or a C1 control
        hex(c);
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
    }
  }
  return out;
}

}  // namespace normsim::config
