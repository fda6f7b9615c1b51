// The datapath's numerics over a whole workload, without time: rows are
// generated, normalised by NormDatapath and checked against the fp64
// reference one at a time (memory is a few rows, unless outputs are kept).
#pragma once

#include "sim/core/norm_datapath.hpp"
#include "sim/core/norm_problem.hpp"
#include "sim/core/output_checker.hpp"

namespace normsim::core {

struct FunctionalResult {
  NumericsResult numerics;
  KeptOutputs outputs;  ///< empty unless keep_outputs
};

FunctionalResult run_functional(const NormProblem& p, const DatapathConfig& cfg, bool keep_outputs);

}  // namespace normsim::core
