// SystemC elaborates once per process: every further simulation in one
// command (compare's paths, sweep's points, regress's ASIC-as-GPU cases)
// runs in a forked child, which sends its result back through a pipe.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace normsim::asic {

/// Runs `work` in a forked child and puts the text it returns into `out`.
/// Returns the child's exit code: 0, or 2 when `work` threw (the child
/// prints "normsim: WHAT: message" on stderr), or what the child died of.
/// runtime_error when the pipe or the fork cannot be made.
int run_isolated(const std::function<std::string()>& work, const std::string& what, std::string& out);

/// Runs work(i) for every i in [0, n) in forked children, at most `jobs` at
/// once, and calls done(i, rc, text) in the parent as each finishes (in
/// finishing order; rc as run_isolated's). The children start in index
/// order. runtime_error when a pipe or a fork cannot be made.
void run_isolated_pool(size_t n, int jobs, const std::function<std::string(size_t)>& work,
                       const std::function<std::string(size_t)>& what,
                       const std::function<void(size_t, int, std::string&&)>& done);

}  // namespace normsim::asic
