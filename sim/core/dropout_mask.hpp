// The dropout mask of a fused residual add, regenerated from (seed, element
// index) by the counter-based RNG: nothing is stored, the forward and the
// backward (and the GPU kernel and the ASIC model) draw the same bits.
// Standalone like counter_rng.hpp: gpu_ref's fused_residual_dropout kernel
// includes it (compiled with nvcc, no other dependency).
//
// Element i = row * C + column is dropped when the 32-bit word (i mod 4) of
// Philox4x32-10 at counter (i / 4, stream kDropout) is below
// threshold = floor(p 2^32); one Philox evaluation serves four consecutive
// elements, as one thread's 16-byte vector or one mask-generator pipeline
// does. Kept elements are scaled by 1 / (1 - p) (inverted dropout, Srivastava
// et al., JMLR 15, 2014), the factor rounded once to fp32.
#pragma once

#include <cstdint>

#include "sim/core/counter_rng.hpp"

namespace normsim::rng {

/// The threshold of drop probability p in [0, 1): floor(p 2^32).
NORMSIM_HD inline uint32_t dropout_threshold(double p) {
  if (!(p > 0)) return 0;
  const double t = p * 4294967296.0;
  return t >= 4294967295.0 ? 0xffffffffu : static_cast<uint32_t>(t);
}

/// 1 / (1 - p) rounded to fp32: the kept elements' scale.
NORMSIM_HD inline float dropout_scale(double p) { return static_cast<float>(1.0 / (1.0 - p)); }

/// The four mask words of elements 4 q .. 4 q + 3.
NORMSIM_HD inline Philox4x32 dropout_words(uint64_t seed, uint64_t quad) {
  return philox4x32_10(static_cast<uint32_t>(quad), static_cast<uint32_t>(quad >> 32), kDropout, 0u,
                       static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

/// Whether element `index` (row * C + column) is kept.
NORMSIM_HD inline bool dropout_keep(uint64_t seed, uint64_t index, uint32_t threshold) {
  return dropout_words(seed, index >> 2).v[index & 3u] >= threshold;
}

}  // namespace normsim::rng
