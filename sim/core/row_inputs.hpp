// A workload's inputs as stored: row r of x and the parameters gamma/beta,
// generated from (seed, distribution, position) by the counter-based RNG and
// rounded to their element types -- never stored, the same bits every time
// and on the GPU side (gpu_ref's input_gen.cu).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/norm_problem.hpp"
#include "sim/core/residual_add.hpp"

namespace normsim::core {

/// Materialises row `r` of the input as stored (rounded to its element type).
/// `saturations`, if given, counts int8 codes clipped while quantising.
void generate_input_row(const NormProblem& p, int64_t r, std::vector<double>& x, uint64_t* saturations);
/// Row `r` of the residual stream as stored (p.residual must be set).
void generate_residual_row(const NormProblem& p, int64_t r, std::vector<double>& out);
/// Row `r` of the backward's upstream gradient dy as stored (the counter
/// RNG's gradient stream, as gpu_ref's harness makes it, or its .npy).
void generate_grad_row(const NormProblem& p, int64_t r, std::vector<double>& dy);
/// The row the datapath's lanes take: x as stored or, with a residual
/// stream, the sum z = dropout(x) + r as the adder `add` computes it and z is
/// stored (residual_add.hpp); `counters`, if given, count the adder's events.
void datapath_input_row(const NormProblem& p, const ResidualAddConfig& add, int64_t r, std::vector<double>& x,
                        uint64_t* saturations, ResidualAddCounters* counters);
/// gamma/beta as stored (fp32); beta empty when the workload has none.
void generate_params(const NormProblem& p, std::vector<float>& gamma, std::vector<float>& beta);

}  // namespace normsim::core
