// Every failure of a command ends as one line on stderr and an exit code:
// bad input (a ConfigError) 2, a failed check 1. Exceptions thrown inside a
// SystemC process reach the command wrapped in an sc_report whose text runs
// over several lines; allocation failures say nothing of what ran out.
#pragma once

#include <exception>
#include <string>

namespace normsim::asic {

struct ErrorLine {
  std::string text;  ///< one printable line, without "normsim: "
  int exit_code = 2;
  bool names_what = false;  ///< `text` starts with `what` already
};

/// The line and exit code for the exception `e` (the current one when
/// rethrown), in the command `what` ("run", "compare (dram-reread)").
ErrorLine error_line(const std::exception_ptr& e, const std::string& what);

}  // namespace normsim::asic
