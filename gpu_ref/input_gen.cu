// Input generation on the GPU with the simulator's counter-based RNG header.
// Built with -fmad=false (CMakeLists.txt): with no contracted multiply-adds
// and IEEE division/sqrt, every value is bit-identical to the host's, which
// normref checks on a sample before it trusts the data.
#include <cuda_bf16.h>

#include "input_gen.hpp"
#include "sim/core/counter_rng.hpp"

namespace normref {

namespace {
template <typename T>
__global__ void generate_kernel(T* x, int64_t n, normsim::rng::Distribution d, uint64_t seed,
                                normsim::rng::Stream stream) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float f = static_cast<float>(normsim::rng::sample(d, seed, stream, static_cast<uint64_t>(i)));
    if constexpr (sizeof(T) == 4) x[i] = f;
    else x[i] = __float2bfloat16_rn(f);
  }
}
}  // namespace

cudaError_t generate_input(void* x, bool bf16, int64_t n, const normsim::rng::Distribution& d, uint64_t seed,
                           cudaStream_t stream, normsim::rng::Stream rng_stream) {
  const int block = 256, grid = 132 * 16;
  if (bf16) generate_kernel<<<grid, block, 0, stream>>>(static_cast<__nv_bfloat16*>(x), n, d, seed, rng_stream);
  else generate_kernel<<<grid, block, 0, stream>>>(static_cast<float*>(x), n, d, seed, rng_stream);
  return cudaGetLastError();
}

}  // namespace normref
