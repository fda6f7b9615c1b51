// What `normsim calibrate` needs to know about a GPU besides its probes:
// the device properties that decide occupancy (one JSON object, the
// device.json of a calibration folder), then the copy bandwidth that bounds
// every streaming kernel -- the flat 16-byte-per-thread copy of 2^27 floats,
// CUDA events after a warm-up, the L2 flushed before every run, the median
// of 20 -- as one JSON line per call (copy.jsonl), three calls.
//   device_probe device   > device.json
//   device_probe copy     > copy.jsonl
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "bench/bench_util.cuh"

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "device";
  int dev = 0;
  CUDA_OK(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  CUDA_OK(cudaGetDeviceProperties(&p, dev));
  if (what == "device") {
    int clock_khz = 0, mem_clock_khz = 0, bus_bits = 0;
    CUDA_OK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
    CUDA_OK(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, dev));
    CUDA_OK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev));
    std::printf(
        "{\"device\": \"%s\", \"cc\": \"%d.%d\", \"sms\": %d, \"sm_clock_khz\": %d, \"warp_size\": %d, "
        "\"max_threads_per_sm\": %d, \"max_blocks_per_sm\": %d, \"registers_per_sm\": %d, "
        "\"smem_per_sm_bytes\": %zu, \"smem_per_block_optin_bytes\": %zu, \"smem_reserved_per_block_bytes\": %zu, "
        "\"l2_bytes\": %d, \"memory_clock_khz\": %d, \"memory_bus_bits\": %d, \"global_memory_bytes\": %zu}\n",
        p.name, p.major, p.minor, p.multiProcessorCount, clock_khz, p.warpSize, p.maxThreadsPerMultiProcessor,
        p.maxBlocksPerMultiProcessor, p.regsPerMultiprocessor, p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin,
        p.reservedSharedMemPerBlock, p.l2CacheSize, mem_clock_khz, bus_bits, p.totalGlobalMem);
    return 0;
  }
  if (what == "copy") {
    cudaStream_t st;
    CUDA_OK(cudaStreamCreate(&st));
    const size_t n = size_t(1) << 27;
    float *x, *y;
    void* flush;
    const size_t flush_bytes = size_t(256) << 20;
    CUDA_OK(cudaMalloc(&x, n * 4));
    CUDA_OK(cudaMalloc(&y, n * 4));
    CUDA_OK(cudaMalloc(&flush, flush_bytes));
    normref::bench::fill_normal<<<1024, 256, 0, st>>>(x, n, 1);
    for (int call = 0; call < 3; ++call) {
      const double gbps = normref::bench::copy_gbps(y, x, n, 20, flush, flush_bytes, st);
      std::printf("{\"kernel\": \"copy\", \"bytes\": %zu, \"us\": %.2f, \"gbps\": %.1f}\n", 2 * n * 4, 2.0 * n * 4 / (gbps * 1e3), gbps);
    }
    return 0;
  }
  std::fprintf(stderr, "device_probe: unknown part '%s' (allowed: device, copy)\n", what.c_str());
  return 2;
}
