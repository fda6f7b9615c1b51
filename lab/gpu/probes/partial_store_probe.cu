// v1's store pattern alone: every thread writes its own row of 4-byte
// values, one value a loop iteration, so a warp's store touches 32 sectors
// (one per lane, ROW_BYTES apart) and each sector is completed over 8
// iterations by one thread. Under ncu (caches flushed before the kernel)
// DRAM bytes read are what partly written sectors cost (the kernel reads
// nothing but its arguments), and DRAM bytes written beyond the output are
// sectors written back more than once. The golden v1 cases read and write
// about 12% of their output more than the SIMT model (docs/SIMT.md, Where
// it misses); this says whether the stores alone do it, and for which row
// distances.
//   partial_store_probe THREADS HIDDEN
// THREADS threads (blocks of 256) each write HIDDEN floats; rows HIDDEN x 4
// bytes apart.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {

__global__ void row_stores(float* __restrict__ y, int threads, int hidden) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  float* row = y + static_cast<size_t>(t) * hidden;
  for (int i = 0; i < hidden; ++i) row[i] = static_cast<float>(i) * 0.5f + static_cast<float>(t);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: partial_store_probe THREADS HIDDEN\n");
    return 2;
  }
  const long threads = std::strtol(argv[1], nullptr, 10), hidden = std::strtol(argv[2], nullptr, 10);
  if (threads <= 0 || hidden <= 0 || threads > (1L << 24) || hidden > (1L << 22) ||
      threads * hidden > (1L << 31)) {
    std::fprintf(stderr, "partial_store_probe: bad arguments (allowed: THREADS HIDDEN, at most 2^31 values)\n");
    return 2;
  }
  const size_t n = static_cast<size_t>(threads) * hidden;
  float* y = nullptr;
  if (cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "partial_store_probe: cannot allocate %zu bytes\n", n * sizeof(float));
    return 1;
  }
  const int block = 256;
  const int grid = static_cast<int>((threads + block - 1) / block);
  row_stores<<<grid, block>>>(y, static_cast<int>(threads), static_cast<int>(hidden));
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "partial_store_probe: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::printf("{\"threads\": %ld, \"hidden\": %ld, \"block\": %d, \"grid\": %d, \"bytes\": %zu}\n", threads, hidden,
              block, grid, n * sizeof(float));
  cudaFree(y);
  return 0;
}
