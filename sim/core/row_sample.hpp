// A workload on some of its rows: row k of the sample is row floor(k R / n)
// of the whole (R rows), so the sample spans the tensor evenly and always
// holds row 0 -- a sequence's first token, where an LLM's massive
// activations are. A search evaluates candidates on a sample, then confirms
// on all rows.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/norm_problem.hpp"

namespace normsim::core {

/// `p` on n <= p.rows of its rows (n >= p.rows: p itself).
NormProblem sample_rows(const NormProblem& p, int64_t n);
/// `p` on the given rows of it (each < p.rows), in that order.
NormProblem rows_of(const NormProblem& p, std::vector<int64_t> rows);
/// The rows sample_rows(p, n) takes, ascending.
std::vector<int64_t> sampled_rows(int64_t rows, int64_t n);

}  // namespace normsim::core
