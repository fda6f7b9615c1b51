// Many consecutive elements of one tensor at once: the same values as
// rng::sample(d, seed, stream, first + i), bit for bit, but vectorised: the
// Philox rounds sixteen counters at a time (AVX-512 where the CPU has it,
// else an AVX2 or plain clone of the scalar loop), and the AS 241 central
// and tail branches as separate branch-free passes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/core/counter_rng.hpp"

namespace normsim::rng {

/// out[i] = sample(d, seed, stream, first + i) for i < n.
void sample_batch(const Distribution& d, uint64_t seed, uint32_t stream, uint64_t first, size_t n, double* out);

}  // namespace normsim::rng
