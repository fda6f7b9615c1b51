// An empty kernel, launched once per grid size, for ncu's
// gpu__time_duration: the fixed cost every launch pays (the SIMT model's
// launch overhead) and how it grows with the number of blocks.
//   empty_kernel        (run under ncu)
#include <cuda_runtime.h>

#include <cstdio>

__global__ void empty_kernel() {}

int main() {
  // One block, one per SM (the launch overhead), then more and more (the dispatch rate).
  int dev = 0, sms = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
    std::fprintf(stderr, "empty_kernel: no device\n");
    return 1;
  }
  for (int blocks : {1, sms, 1024, 8192, 32768}) {
    empty_kernel<<<blocks, 256>>>();
    if (cudaDeviceSynchronize() != cudaSuccess) {
      std::fprintf(stderr, "empty_kernel: launch failed\n");
      return 1;
    }
  }
  return 0;
}
