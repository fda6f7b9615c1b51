// What the SIMT model knows about each gpu_ref kernel: how it maps rows to
// threads, how many times and from where it reads x, how it stores y, which
// reductions sit between the passes, and its ptxas facts (registers, static
// shared memory). Written from the kernels in gpu_ref/kernels/*.cuh; the
// launch shape follows gpu_ref/normref.cu (grid, dynamic shared memory, the
// v6 -> v5 fallback when the row does not fit in shared memory).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_ref/host/kernel_table.hpp"
#include "sim/simt/gpu_arch.hpp"

namespace normsim::simt {

using KernelId = normref::KernelId;
using DType = normref::DType;

enum class RowMapping { thread, warp, block, element };
/// global_streaming: __ldcs (evict-first); params: gamma/beta copied by each block (v6's prologue)
enum class Source { global, global_streaming, shared, registers, params };
/// A pass over x in global memory (through the L1 and the L2).
inline bool is_global(Source s) { return s == Source::global || s == Source::global_streaming; }
/// cluster_two_level: block_two_level within each block of a cluster, then
/// the blocks' partials through distributed shared memory (cluster barriers).
enum class Reduction {
  none, warp_shuffle, block_two_level, smem_tree, warp_welford, block_welford, block_barrier, cluster_two_level
};

/// One sweep of a row's threads over its elements.
struct Pass {
  Source source = Source::global;
  double instr_per_elem = 4;  ///< instructions a thread executes per element (SASS loop body / elements per iteration)
  double chain_cycles_per_elem = 4;  ///< latency of the per-thread dependency chain per element
  Reduction after = Reduction::none;  ///< reduction between this pass and the next
  int reductions = 1;                 ///< how many values are reduced there (v4/v5: sum and sum of squares)
  int loads_in_flight = 1;            ///< x loads one thread issues before the first is used (SASS: LDGs per loop body)
  /// A one-element remainder loop after the unrolled body (SASS): elements
  /// beyond a whole number of bodies cost this many instructions each and
  /// one load latency each. 0: no such loop.
  double remainder_instr_per_elem = 0;
  int body_elems = 1;                 ///< elements one unrolled body handles per thread
  int divisions_per_elem = 0;         ///< IEEE divisions on the per-element dependency chain (Welford: 1)
  double smem_wavefronts_per_elem = 0;  ///< shared-memory wavefronts per warp per element a lane handles (bank conflicts counted)
};

/// One kernel launch.
struct SubKernel {
  std::string name;      ///< the CUDA function
  std::string function;  ///< its template-id in normref::dev, as the SASS names it ("fast_norm<float, float, false, 32, 6, 4>")
  RowMapping mapping = RowMapping::warp;
  int64_t grid = 0;
  int block = 0;
  int rows_per_block = 1;
  int blocks_per_row = 1;         ///< a cluster of blocks shares one row (fast_norm_cluster)
  int threads_per_row = 32;       ///< all of a row's threads (block x blocks_per_row for a cluster)
  int registers_per_thread = 32;  ///< ptxas (sass_facts; a test checks the golden registers_per_thread)
  double mean_stall_cycles = 1;   ///< the SASS's mean control-code stall per instruction (sass_facts)
  int static_smem_bytes = 0;      ///< ptxas
  int64_t dynamic_smem_bytes = 0;
  int values_per_lane = 0;        ///< welford_warp_reg's template argument (the row held in registers)
  int vector_bytes = 4;           ///< bytes per global load per thread (16 for 128-bit access)
  std::vector<Pass> passes;
  double overhead_instr_per_warp = 100;  ///< instructions a warp executes per row outside the element loops
  /// Share of the element loops' instructions in chains independent of the
  /// row's arithmetic (a dropout mask's Philox rounds, one chain per vector):
  /// in the dependent-latency bound they cost their issue cycle, not a dependent latency.
  double independent_instr_share = 0;
  bool streaming_store = true;    ///< __stcs (evict-first) output stores
  bool uncoalesced = false;       ///< neighbouring threads read addresses a row apart (v1)
  /// Scalar global operations every thread issues once at the end (the
  /// backward's dgamma/dbeta partials), each to its own address; every
  /// block's threads hit the same addresses (atomics) or their own (stores).
  int epilogue_atomics_per_thread = 0;
  int epilogue_stores_per_thread = 0;
  int epilogue_lane_stride_bytes = 16;  ///< between neighbouring lanes' addresses in one of those instructions
  // Bytes the launch moves besides x and y.
  int64_t code_bytes = 0;          ///< the function's SASS (16 B an instruction), fetched from DRAM once a launch
  int64_t param_bytes = 0;         ///< gamma (+ beta), read by every row (L2/L1 resident after the first)
  int64_t extra_read_bytes = 0;    ///< per-row values read from a previous launch (v2: mean, rstd)
  int64_t input_bytes = 0;         ///< x (and r, or dy), once
  bool input_read_before = false;  ///< an earlier launch of the plan read x already (v2's second and third)
  int64_t output_bytes = 0;        ///< y (0 for v2's statistics kernels)
  int64_t stats_bytes = 0;         ///< mean/rstd written
  int64_t rows = 0, hidden = 0;
  int elem_bytes = 4;
  int global_passes() const;
};

struct LaunchPlan {
  KernelId kernel{};  ///< as asked
  KernelId ran{};     ///< as launched (v6 falls back to v5 when its shared memory does not fit)
  int64_t rows = 0, hidden = 0;
  DType dtype = DType::fp32;
  int block = 0;
  std::vector<SubKernel> launches;
};

/// What the golden build says about a function: instructions in its SASS
/// (golden normref.sass.gz, sm_90) and ptxas's registers per thread.
struct SassFacts {
  int instructions = 0;
  int registers_per_thread = 0;
  /// Mean of its instructions' control-code stall counts (cycles a warp is
  /// held after an issue; NOPs and the closing self-branch left out).
  double mean_stall_cycles = 0;
};
/// `function` as SubKernel::function; logic_error naming it when the golden
/// build has no such function.
SassFacts sass_facts(const std::string& function);

/// Plans a launch as normref does (its kernel, from the registry in
/// kernels/); block 0 means the kernel's default. ConfigError (exit 2) for
/// an unsupported block or shape, with the allowed values -- the same rules
/// normref enforces.
LaunchPlan plan_launch(KernelId kernel, int64_t rows, int64_t hidden, DType dtype, int block, const GpuArch& gpu);
/// The same from the names a user gives (--kernel, --dtype); ConfigError
/// naming the allowed values for an unknown one.
LaunchPlan plan_launch(std::string_view kernel, int64_t rows, int64_t hidden, std::string_view dtype, int block,
                       const GpuArch& gpu);

std::string_view to_string(RowMapping m);
std::string_view to_string(Source s);

}  // namespace normsim::simt
