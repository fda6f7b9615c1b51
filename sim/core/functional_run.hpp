// The datapath's numerics over a whole workload, without time: rows are
// generated, normalised by NormDatapath and checked against the fp64
// reference, on one or more threads. Rows go in fixed blocks (their size a
// function of the row length alone), each block's counts and errors are
// kept apart and added up in block order at the end, so every thread count
// gives the same bits. Memory is a few rows a thread, unless outputs are kept.
#pragma once

#include "sim/core/norm_datapath.hpp"
#include "sim/core/norm_problem.hpp"
#include "sim/core/output_checker.hpp"

namespace normsim::core {

struct FunctionalResult {
  NumericsResult numerics;
  KeptOutputs outputs;  ///< empty unless kept
};

struct FunctionalOptions {
  bool keep_outputs = false;  ///< y, mean and rstd of every row
  bool keep_inputs = false;   ///< also x as stored and the fp64 reference (with keep_outputs)
  int threads = 1;            ///< >= 1
  /// The ULPs of the error metrics are floored at this resolution; < 0: the
  /// datapath's own output lsb (as a run reports). A search that moves the
  /// output stage keeps one yardstick by fixing it.
  double ulp_floor = -1;
};

/// Rows per block: about 64 Ki elements, so that a block is worth a thread's
/// hand-over and thousands of blocks keep the threads evenly busy.
int64_t functional_block_rows(int64_t hidden);

FunctionalResult run_functional(const NormProblem& p, const DatapathConfig& cfg, const FunctionalOptions& o);
inline FunctionalResult run_functional(const NormProblem& p, const DatapathConfig& cfg, bool keep_outputs) {
  return run_functional(p, cfg, FunctionalOptions{keep_outputs, false, 1});
}

}  // namespace normsim::core
