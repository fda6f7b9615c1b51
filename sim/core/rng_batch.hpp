// Many consecutive elements of one tensor at once: the same values as
// rng::sample(d, seed, stream, first + i), bit for bit, but with the Philox
// rounds written as a loop over elements that the compiler vectorises (an
// AVX2 clone is chosen at run time where the CPU has it).
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/core/counter_rng.hpp"

namespace normsim::rng {

/// out[i] = sample(d, seed, stream, first + i) for i < n.
void sample_batch(const Distribution& d, uint64_t seed, uint32_t stream, uint64_t first, size_t n, double* out);

}  // namespace normsim::rng
