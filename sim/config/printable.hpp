// Text from the user (keys, values, file names) is echoed in messages; a
// newline would split the one-line error and an escape sequence would drive
// the terminal. printable() keeps UTF-8 text and escapes the rest.
#pragma once

#include <string>
#include <string_view>

namespace normsim::config {

/// `s` with control bytes (C0, DEL, C1) and invalid UTF-8 written as \n, \t,
/// \r or \xNN, and backslashes left as they are.
std::string printable(std::string_view s);

}  // namespace normsim::config
