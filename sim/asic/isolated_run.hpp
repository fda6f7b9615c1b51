// SystemC elaborates once per process: every further simulation in one
// command (compare's paths, sweep's points, regress's ASIC-as-GPU cases)
// runs in a forked child, which sends its result back through a pipe.
#pragma once

#include <functional>
#include <string>

namespace normsim::asic {

/// Runs `work` in a forked child and puts the text it returns into `out`.
/// Returns the child's exit code: 0, or 2 when `work` threw (the child
/// prints "normsim: WHAT: message" on stderr), or what the child died of.
/// runtime_error when the pipe or the fork cannot be made.
int run_isolated(const std::function<std::string()>& work, const std::string& what, std::string& out);

}  // namespace normsim::asic
