// Launch shapes of the frontier kernels (kernels/fast_norm.cuh,
// kernels/fused_bwd.cuh) as a function of the row length: plain C++, shared
// by the CUDA launchers, the benchmarks and the SIMT model's descriptors so
// that all three agree on threads, vectors and grid.
#pragma once

#include <algorithm>
#include <cstdint>

namespace normref {

/// How fast_ln / fast_rms hold a row.
enum class FastScheme {
  registers,  ///< THREADS threads x VECS 16-byte vectors in registers; x read once
  cluster,    ///< a cluster of blocks per row, block sums sent to each other's shared memory, on a
              ///< persistent grid that streams the next row into shared memory (C <= 65536)
  two_sweep,  ///< one block per row sweeps x twice, the second time from the L2 (longer rows)
};

struct FastShape {
  FastScheme scheme = FastScheme::registers;
  int threads_per_row = 32;  ///< threads that share one row (all blocks of a cluster together)
  int vecs = 8;              ///< 16-byte vectors a thread holds (registers and cluster schemes)
  int rows_per_block = 1;    ///< rows a block (1: every shipped shape)
  int cluster = 1;           ///< blocks per row (cluster scheme)
  int block() const { return scheme == FastScheme::cluster ? threads_per_row / cluster : threads_per_row * rows_per_block; }
  /// Blocks launched; the cluster scheme's persistent grid is at most
  /// `resident_blocks` (whole clusters the GPU holds at once).
  int64_t grid(int64_t rows, int64_t resident_blocks) const {
    if (scheme == FastScheme::cluster) return std::min(rows, resident_blocks / cluster) * cluster;
    return (rows + rows_per_block - 1) / rows_per_block;
  }
};

/// Values a thread keeps at most: 32 (8 fp32 vectors, 4 bf16 vectors).
constexpr int fast_max_vecs(int elem_bytes) { return elem_bytes == 4 ? 8 : 4; }
/// Static shared memory of fast_norm_cluster_stream, at most (block sums,
/// inboxes, barriers): with its dynamic buffers it must fit a block's opt-in
/// shared memory, which decides whether gamma/beta are staged there too.
inline constexpr int kStreamStaticSmemBytes = 1024;
/// fast_norm_cluster_stream's dynamic shared memory with gamma (and, for
/// LayerNorm, beta) staged beside its half-row buffer: 1024 threads x
/// fast_max_vecs 16-byte vectors of x, and as many elements of each
/// parameter at `param_bytes` each. The launcher stages them where this
/// plus the static part fits a block's opt-in shared memory.
constexpr int stream_smem_bytes(int elem_bytes, int param_bytes, bool rms) {
  const int vectors = 1024 * fast_max_vecs(elem_bytes);
  return vectors * 16 + vectors * (16 / elem_bytes) * param_bytes * (rms ? 1 : 2);
}

/// Smallest power-of-two thread count (32..1024) whose threads hold a row of
/// `nvec` vectors at `max_vecs` each; 0 when 1024 threads are not enough.
inline int threads_for_vectors(int64_t nvec, int max_vecs) {
  for (int t = 32; t <= 1024; t *= 2)
    if (static_cast<int64_t>(t) * max_vecs >= nvec) return t;
  return 0;
}

/// bf16 rows that take a 1024-thread register block (more than 2048 vectors)
/// but leave its threads few vectors each: the streamed kernel as a cluster
/// of one instead, up to this many vectors a row. One block an SM holds the
/// row in registers with nothing to overlap its reductions and stores; the
/// streamed block brings the next row into shared memory during them. It
/// wins while a thread holds less than about 3.25 vectors (LayerNorm, two
/// reductions a row) or 2.4 (RMSNorm, one): measured at every C = 17408-32768
/// in steps of 1024 (lab/records/h100/fast_norm_stream1_sweep.jsonl: bf16
/// LayerNorm 73.4-90.8% of the copy -> 89.1-91.7 up to C = 26624, behind
/// from 27648; RMSNorm 89.6-90.2 -> 91.8-93.1 up to 19456, behind from 20480).
constexpr int64_t stream_one_max_vecs(bool rms) { return rms ? 2432 : 3328; }

/// fast_ln / fast_rms: a warp per row (one row a block) while the row fits
/// 32 threads, a block per row up to 1024 threads (bf16 rows that leave a
/// 1024-thread block's threads few vectors: a streamed cluster of one), then
/// (up to C = 65536) a cluster of two 1024-thread blocks on a persistent
/// grid, else two sweeps.
/// A warp-per-row kernel holds exactly the vectors its row needs (fewer
/// registers for C = 768); fp32 rows of 256-4096 vectors take 2, 4 or 8 a
/// thread on up to 512 threads (below); the others hold the maximum. One row a block
/// frees a block's slot as soon as its row is done: four rows a block
/// measured 0-2.7 points of the copy slower (lab/records/h200/fast_norm_warp_row.jsonl).
inline FastShape fast_norm_shape(int64_t hidden, int elem_bytes, bool rms) {
  const int64_t nvec = hidden / (16 / elem_bytes);
  const int V = fast_max_vecs(elem_bytes);
  FastShape s;
  // fp32 rows of 256..4096 vectors (C = 1024..16384): lighter threads, two
  // vectors each up to 512 threads, then 4 or 8 (torch.compile's shape at
  // C = 4096: 512 threads). With the evict-last loads, timed beside the 32-
  // or 128-thread shapes of before (fast_norm_bench el_tTH): 0.4-1.4% faster
  // at C = 1024-8192 (fast_ln C = 4096: 252.1 us at 512 x 2 against 255.7
  // at 128 x 8); 1024 threads lost up to 30 points.
  if (elem_bytes == 4 && nvec >= 256 && nvec <= 512 * V) {
    s.threads_per_row = 32;
    while (s.threads_per_row < 512 && 2 * static_cast<int64_t>(s.threads_per_row) < nvec) s.threads_per_row *= 2;
    const int64_t per_thread = (nvec + s.threads_per_row - 1) / s.threads_per_row;
    s.vecs = per_thread <= 2 ? 2 : per_thread <= 4 ? 4 : V;
    return s;
  }
  if (const int t = threads_for_vectors(nvec, V)) {
    if (elem_bytes == 2 && t == 1024 && nvec <= stream_one_max_vecs(rms)) {
      s.scheme = FastScheme::cluster;
      s.cluster = 1;
      s.threads_per_row = 1024;
      s.vecs = V;
      return s;
    }
    s.threads_per_row = t;
    s.rows_per_block = 1;
    s.vecs = t == 32 ? static_cast<int>((nvec + 31) / 32) : V;
    return s;
  }
  if (nvec <= 2 * 1024 * V) {
    s.scheme = FastScheme::cluster;
    s.cluster = 2;
    s.threads_per_row = 2048;
    s.vecs = V;
    return s;
  }
  s.scheme = FastScheme::two_sweep;
  s.threads_per_row = 1024;
  s.vecs = 0;
  return s;
}

/// fused_residual: one block per row, 32 values a thread at most (8 fp32 or
/// 4 bf16 vectors); 0 when the row does not fit 1024 threads.
inline int fused_residual_threads(int64_t hidden, int elem_bytes) {
  return threads_for_vectors(hidden / (16 / elem_bytes), fast_max_vecs(elem_bytes));
}

/// bwd_*: one block per row at a time, 8 values of x_hat and of g a thread
/// (2 fp32 or 1 bf16 vector) besides the dgamma/dbeta partials; 0 when the
/// row does not fit 1024 threads.
inline int backward_vecs(int elem_bytes) { return elem_bytes == 4 ? 2 : 1; }
inline int backward_threads(int64_t hidden, int elem_bytes) {
  return threads_for_vectors(hidden / (16 / elem_bytes), backward_vecs(elem_bytes));
}

}  // namespace normref
