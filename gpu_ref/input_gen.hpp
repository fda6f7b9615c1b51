#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "sim/core/counter_rng.hpp"

namespace normref {
/// Fills x[0..n) with element i = round(sample(d, seed, rng_stream, i)) as
/// fp32 or bf16 (kInput: x; kResidual: fused_residual's r; kGradOut: dy).
cudaError_t generate_input(void* x, bool bf16, int64_t n, const normsim::rng::Distribution& d, uint64_t seed,
                           cudaStream_t stream, normsim::rng::Stream rng_stream = normsim::rng::kInput);
}  // namespace normref
