// Two sweeps over one X-byte buffer in one persistent kernel, a grid-wide
// barrier between them: how much of the second sweep the L2 serves, by the
// cache hints of the loads and stores (the SIMT model's reuse curves stand
// for this; docs/SIMT.md, Fidelity). Run it under ncu, whose cache control
// flushes the L2 before the kernel: DRAM bytes read minus X are the second
// sweep's misses.
//   l2_sweep_probe P1 P2 STORE MB ORDER [BLOCKS]
//   l2_sweep_probe P1 P2 STORE MB steady ROW_KB WARPS [warp|block]
// P1, P2: the loads of the first and second sweep: plain (LDG.E), nc
//   (__ldg: LDG.E.CONSTANT, the read-only path), cs (__ldcs: evict-first),
//   none (no second sweep: the first sweep alone).
// STORE: none, plain or cs (__stcs): the second sweep writes what it read
//   to a second X-byte buffer.
// ORDER: linear (a grid-stride sweep: the whole grid moves through the
//   buffer together) or rows (8192 rows, one warp a row, all rows walked in
//   step: the order of a one-wave warp-per-row kernel). BLOCKS: at most
//   that many blocks of 256 (default: all that are resident at once), so
//   that a sweep from a few SMs (a kernel with few blocks, as v1 at 1024
//   rows has 4) can be set against one from all of them.
// steady: no grid barrier; WARPS warps each take rows of ROW_KB KiB in turn
//   (warp w: rows w, w + WARPS, ...), read a row, sum it across the warp,
//   then re-read it (and store it): a warp-per-row kernel over many rounds,
//   its rows out of phase, WARPS x ROW_KB KiB of x in flight; with `block`,
//   each 256-thread block takes a row (WARPS / 8 rows in flight), as a
//   block-per-row kernel does.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define CUDA_OK(call)                                                                           \
  do {                                                                                          \
    cudaError_t e_ = (call);                                                                    \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "l2_sweep_probe: %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

enum Load { kPlain = 0, kNc = 1, kCs = 2, kNone = 3 };
enum Store { kNoStore = 0, kPlainStore = 1, kCsStore = 2 };

template <int L>
__device__ __forceinline__ int4 load(const int4* p) {
  if constexpr (L == kNc) return __ldg(p);
  if constexpr (L == kCs) return __ldcs(p);
  int4 v;
  asm volatile("ld.global.v4.s32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

template <int S>
__device__ __forceinline__ void store(int4* p, int4 v) {
  if constexpr (S == kCsStore) __stcs(p, v);
  if constexpr (S == kPlainStore) *p = v;
}

// All blocks are resident (the grid is sized by the occupancy calculator),
// so a counter in global memory is a grid-wide barrier.
__device__ void grid_barrier(unsigned* counter, unsigned blocks) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(counter, 1u);
    while (atomicAdd(counter, 0u) < blocks) {
    }
    __threadfence();
  }
  __syncthreads();
}

// Element e of sweep step `step` for thread t: linear order, or row order
// (warp w walks rows w, w + warps, ...; each step a warp reads 512 B of its
// row, all rows at the same offset).
struct Order {
  bool rows;
  size_t n16, row16, nrows;
};

template <int P1, int P2, int S>
__global__ void two_sweeps(const int4* x, int4* y, Order o, unsigned* counter, int* sink) {
  const size_t threads = size_t(gridDim.x) * blockDim.x;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  int acc = 0;
  auto sweep = [&](auto do_one) {
    if (!o.rows) {
      for (size_t i = t; i < o.n16; i += threads) do_one(i);
      return;
    }
    const size_t warps = threads / 32, w = t / 32, lane = t % 32;
    for (size_t r = w; r < o.nrows; r += warps)
      for (size_t c = lane; c < o.row16; c += 32) do_one(r * o.row16 + c);
  };
  sweep([&](size_t i) {
    const int4 v = load<P1>(x + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  });
  if constexpr (P2 != kNone) {
    grid_barrier(counter, gridDim.x);
    sweep([&](size_t i) {
      const int4 v = load<P2>(x + i);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
      store<S>(y + i, v);
    });
  }
  if (acc == 0x5eed1234) sink[0] = acc;  // keeps the loads; the buffer is zeroed
}

template <int P1, int P2, int S>
__global__ void row_passes(const int4* x, int4* y, size_t nrows, size_t row16, bool block_rows, int* sink) {
  int acc = 0;
  if (block_rows) {  // a block per row: its 8 warps stream the row together, a block reduction between the passes
    __shared__ int partial[32];
    for (size_t r = blockIdx.x; r < nrows; r += gridDim.x) {
      const int4* row = x + r * row16;
      int sum = 0;
      for (size_t c = threadIdx.x; c < row16; c += blockDim.x) {
        const int4 v = load<P1>(row + c);
        sum += v.x + v.y + v.z + v.w;
      }
      for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
      if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
      __syncthreads();
      sum = 0;
      for (unsigned i = 0; i < blockDim.x / 32; ++i) sum += partial[i];
      __syncthreads();
      for (size_t c = threadIdx.x; c < row16; c += blockDim.x) {
        int4 v = load<P2>(row + c);
        v.x += sum;
        acc ^= v.y;
        store<S>(y + r * row16 + c, v);
      }
    }
    if (acc == 0x5eed1234) sink[0] = acc;
    return;
  }
  const size_t warps = size_t(gridDim.x) * blockDim.x / 32;
  const size_t w = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  for (size_t r = w; r < nrows; r += warps) {
    const int4* row = x + r * row16;
    int sum = 0;
    for (size_t c = lane; c < row16; c += 32) {
      const int4 v = load<P1>(row + c);
      sum += v.x + v.y + v.z + v.w;
    }
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);  // the row's statistic
    for (size_t c = lane; c < row16; c += 32) {
      int4 v = load<P2>(row + c);
      v.x += sum;
      acc ^= v.y;
      store<S>(y + r * row16 + c, v);
    }
  }
  if (acc == 0x5eed1234) sink[0] = acc;
}

// The two X-byte buffers (x read, y written), the barrier counter and the
// sink, zeroed; freed when the run ends.
struct Buffers {
  int4 *x = nullptr, *y = nullptr;
  unsigned* counter = nullptr;
  int* sink = nullptr;
  ~Buffers() {
    cudaFree(x);
    cudaFree(y);
    cudaFree(counter);
    cudaFree(sink);
  }
};
int allocate(Buffers& b, size_t bytes) {
  CUDA_OK(cudaMalloc(&b.x, bytes));
  CUDA_OK(cudaMalloc(&b.y, bytes));
  CUDA_OK(cudaMalloc(&b.counter, sizeof(unsigned)));
  CUDA_OK(cudaMalloc(&b.sink, sizeof(int)));
  CUDA_OK(cudaMemset(b.x, 0, bytes));
  CUDA_OK(cudaMemset(b.counter, 0, sizeof(unsigned)));
  return 0;
}
// Blocks of `block` threads of `kernel` resident on the whole GPU at once.
template <class Kernel>
int resident_blocks(Kernel kernel, int block, int* blocks) {
  int dev = 0, sms = 0, per_sm = 0;
  CUDA_OK(cudaGetDevice(&dev));
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0));
  *blocks = sms * per_sm;
  return 0;
}

template <int P1, int P2, int S>
int run_steady(size_t bytes, size_t row_bytes, int warps, bool block_rows) {
  Buffers b;
  const int block = 256;
  int fit = 0;
  if (allocate(b, bytes) || resident_blocks(row_passes<P1, P2, S>, block, &fit)) return 1;
  const int grid = warps / (block / 32);
  if (grid < 1 || grid * (block / 32) != warps || grid > fit) {
    std::fprintf(stderr, "l2_sweep_probe: %d warps are not whole blocks of 8 resident at once (%d blocks fit)\n", warps,
                 fit);
    return 2;
  }
  const size_t nrows = bytes / row_bytes;
  CUDA_OK(cudaDeviceSynchronize());
  row_passes<P1, P2, S><<<grid, block>>>(b.x, b.y, nrows, row_bytes / 16, block_rows, b.sink);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::printf("{\"bytes\": %zu, \"row_bytes\": %zu, \"warps\": %d, \"grid\": %d, \"block\": %d, \"row_threads\": %d}\n",
              nrows * row_bytes, row_bytes, warps, grid, block, block_rows ? block : 32);
  return 0;
}

// How a run is laid out: the two sweeps' order, or rows out of phase.
struct Shape {
  bool rows = false, steady = false, block_rows = false;
  size_t row_bytes = 0;
  int warps = 0;
  int max_blocks = 0;  ///< sweeps: at most this many blocks (0: all resident)
};

template <int P1, int P2, int S>
int run_sweeps(size_t bytes, bool rows, int max_blocks) {
  Buffers b;
  const int block = 256;
  int fit = 0;
  if (allocate(b, bytes) || resident_blocks(two_sweeps<P1, P2, S>, block, &fit)) return 1;
  const unsigned grid = static_cast<unsigned>(max_blocks > 0 && max_blocks < fit ? max_blocks : fit);
  Order o{rows, bytes / 16, 0, 8192};
  o.row16 = o.n16 / o.nrows;
  if (rows && grid * block / 32 < o.nrows) {
    std::fprintf(stderr, "l2_sweep_probe: %u warps cannot hold 8192 rows at once\n", grid * block / 32);
    return 2;
  }
  CUDA_OK(cudaDeviceSynchronize());
  two_sweeps<P1, P2, S><<<grid, block>>>(b.x, b.y, o, b.counter, b.sink);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::printf("{\"bytes\": %zu, \"grid\": %u, \"block\": %d}\n", bytes, grid, block);
  return 0;
}

template <int P1, int P2, int S>
int run(size_t bytes, const Shape& shape) {
  if (shape.steady) return run_steady<P1, P2, S>(bytes, shape.row_bytes, shape.warps, shape.block_rows);
  return run_sweeps<P1, P2, S>(bytes, shape.rows, shape.max_blocks);
}

int parse_load(const char* s) {
  if (!std::strcmp(s, "plain")) return kPlain;
  if (!std::strcmp(s, "nc")) return kNc;
  if (!std::strcmp(s, "cs")) return kCs;
  if (!std::strcmp(s, "none")) return kNone;
  return -1;
}
int parse_store(const char* s) {
  if (!std::strcmp(s, "none")) return kNoStore;
  if (!std::strcmp(s, "plain")) return kPlainStore;
  if (!std::strcmp(s, "cs")) return kCsStore;
  return -1;
}

template <int P1, int P2>
int with_store(int s, size_t bytes, const Shape& shape) {
  switch (s) {
    case kNoStore: return run<P1, P2, kNoStore>(bytes, shape);
    case kPlainStore: return run<P1, P2, kPlainStore>(bytes, shape);
    default: return run<P1, P2, kCsStore>(bytes, shape);
  }
}
template <int P1>
int with_p2(int p2, int s, size_t bytes, const Shape& shape) {
  switch (p2) {
    case kPlain: return with_store<P1, kPlain>(s, bytes, shape);
    case kNc: return with_store<P1, kNc>(s, bytes, shape);
    case kCs: return with_store<P1, kCs>(s, bytes, shape);
    default: return with_store<P1, kNone>(s, bytes, shape);
  }
}

int main(int argc, char** argv) {
  const int p1 = argc > 1 ? parse_load(argv[1]) : -1, p2 = argc > 2 ? parse_load(argv[2]) : -1;
  const int s = argc > 3 ? parse_store(argv[3]) : -1;
  const long mb = argc > 4 ? std::strtol(argv[4], nullptr, 10) : 0;
  const std::string order = argc > 5 ? argv[5] : "";
  Shape shape;
  shape.rows = order == "rows";
  shape.steady = order == "steady";
  const long row_kb = shape.steady && argc > 6 ? std::strtol(argv[6], nullptr, 10) : 0;
  shape.warps = shape.steady && argc > 7 ? static_cast<int>(std::strtol(argv[7], nullptr, 10)) : 0;
  shape.row_bytes = static_cast<size_t>(row_kb) * 1024;
  const std::string row_threads = shape.steady && argc > 8 ? argv[8] : "warp";
  shape.block_rows = row_threads == "block";
  shape.max_blocks = !shape.steady && argc > 6 ? static_cast<int>(std::strtol(argv[6], nullptr, 10)) : 0;
  const bool order_ok = ((order == "linear" || order == "rows") && shape.max_blocks >= 0) ||
                        (shape.steady && row_kb >= 1 && row_kb <= 1024 && shape.warps >= 8 && shape.warps <= 65536 &&
                         (row_threads == "warp" || row_threads == "block"));
  if (p1 < 0 || p1 == kNone || p2 < 0 || s < 0 || mb < 1 || mb > 4096 || !order_ok) {
    std::fprintf(stderr,
                 "usage: l2_sweep_probe P1 P2 STORE MB ORDER [BLOCKS | ROW_KB WARPS [warp|block]] (P1: plain|nc|cs; "
                 "P2: plain|nc|cs|none; STORE: none|plain|cs; MB: 1..4096; ORDER: linear|rows|steady; linear, rows: "
                 "BLOCKS >= 0, at most that many blocks (0: all resident); steady: ROW_KB 1..1024, WARPS 8..65536, a "
                 "row a warp or a block of 256)\n");
    return 2;
  }
  // A whole number of 8192 rows of 512-byte steps.
  const size_t bytes = (size_t(mb) * 1000000 / (8192 * 512)) * 8192 * 512;
  switch (p1) {
    case kPlain: return with_p2<kPlain>(p2, s, bytes, shape);
    case kNc: return with_p2<kNc>(p2, s, bytes, shape);
    default: return with_p2<kCs>(p2, s, bytes, shape);
  }
}
