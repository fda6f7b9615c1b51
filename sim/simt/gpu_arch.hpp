// A GPU as the SIMT model sees it: SM resources that decide occupancy, the
// cache hierarchy and DRAM. Loaded from workloads/arch/<gpu>.yaml, where
// every value says whether it was measured (golden runs), is an architecture
// limit, or was fitted on the training subset of the golden cases.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/config/param_table.hpp"
#include "sim/config/yaml_reader.hpp"
#include "sim/core/reuse_curve.hpp"
#include "sim/core/units.hpp"

namespace normsim::simt {

struct GpuL2Config {
  core::Bytes bytes{62914560};
  int line_bytes = 128;
  double near_hit_latency_cycles = 283;
  double far_hit_latency_cycles = 515;
  /// The measured reuse curves, evict-first pool and store weight
  /// (l2_sweep_probe; the same keys as an ASIC arch's asic.l2).
  core::L2Reuse reuse;
  /// The L2 size the reuse curves were measured on (calibrate writes it):
  /// another l2.bytes (`--set gpu.l2.bytes=...`, a what-if GPU) scales the
  /// curves' half distances and the evict-first pool by the ratio, since
  /// they sit at fixed shares of the L2 (the H200's halves at 0.72-0.74 of
  /// it). 0: the curves are absolute bytes.
  core::Bytes reuse_measured_bytes{0};
  /// The reuse curves at this L2's size (see reuse_measured_bytes).
  core::L2Reuse scaled_reuse() const {
    core::L2Reuse r = reuse;
    if (reuse_measured_bytes > core::Bytes(0) && bytes != reuse_measured_bytes) {
      const double k = bytes / reuse_measured_bytes;
      r.sweep.half_bytes *= k;
      r.steady.half_bytes *= k;
      r.evict_first_pool_bytes *= k;
    }
    return r;
  }
  double dirty_resident_bytes = 24e6; ///< written bytes still in L2 at kernel end (never written back by then)
  /// Scalar global operations whose lanes lie 16-32 bytes apart (a thread's
  /// own vector of partials), issued by every thread at a kernel's end
  /// (the backward's dgamma/dbeta partials, fitted). A reduction into one
  /// address waits for the one before it, and the L2 takes a warp's atomic
  /// instruction a 32-byte sector at a time: this many ns a sector.
  double atomic_ns_per_sector = 2.0;
  /// Scalar stores, each block to its own addresses: sectors the L2 writes
  /// per ns (a warp's store touches a sector per 32 bytes its lanes span).
  double scattered_store_sectors_per_ns = 80;
  /// How much of a re-read pass's DRAM fill ncu's lts__t_bytes counts
  /// against a first read's (lab/records/h200/ncu_l2.json: lts__t_bytes
  /// less the SMs' read and write sectors is 1.04 x the first pass's DRAM
  /// bytes + 0.50 x the re-reads', least squares over 160 cases).
  double reread_fill_weight = 1.0;
  /// L2 bytes ncu counts per 32-byte sector a reduction (atomic add) touches:
  /// it reads and writes the sector (bwd_atomic's epilogue: 1.46-1.49 x 32).
  double atomic_l2_bytes_per_sector = 32;
};

struct GpuL1Config {
  core::Bytes bytes{262144};
  double hit_latency_cycles = 43;
  double miss_requests_per_cycle = 0.6;  ///< sector requests an SM sends to the L2 per cycle
  core::Bytes smem_carveout_bytes{32768};    ///< shared memory the driver reserves out of L1 at least
  /// How sharply a re-read's L1 hits fall off as the rows one SM works on
  /// outgrow the L1 left beside shared memory (its half-hit point).
  double reuse_steepness = 6.0;
};

struct GpuDramConfig {
  core::BytesPerSecond bytes_per_s{3.976e12};  ///< sustained read + write bandwidth (a copy kernel's)
  core::BytesPerSecond peak_bytes_per_s{4.8e12};  ///< the datasheet's peak (ncu's DRAM throughput is a share of it)
  core::Cycles latency_cycles{650};  ///< unloaded
  core::Bytes launch_read_bytes{2560};  ///< read by every launch besides its code and data (constant bank, parameters)
  /// The share of the first round's bytes in flight whose queueing at the
  /// DRAM delays the whole launch once (pipeline fill; 0 turns it off).
  double fill_weight = 1.0;
};

/// How wide a prediction's range is (simt_model.hpp, Range): the model's
/// own sensitivity to what it cannot know, scaled by in_flight_spread, and
/// floors for the rest. Fitted on the training cases only (`regress --fit`).
/// Where the model was calibrated: the golden cases' extremes (a test holds
/// these to gpu_ref/golden/h200/index.json). A prediction outside any of them
/// is `extrapolated`, whatever its mechanisms say. 0: no bound.
struct EnvelopeConfig {
  int64_t rows_min = 0, rows_max = 0;
  int64_t hidden_min = 0, hidden_max = 0;
  double x_bytes_min = 0, x_bytes_max = 0;  ///< the input tensor's bytes (rows x hidden x element)
};

struct RangeConfig {
  /// Relative uncertainty of the x in flight per round (every reuse
  /// distance's scale) and of the rows' phase spread (the out-of-phase
  /// reuse curve's steepness): both are evaluated at 1/(1+s), 1 and 1+s.
  double in_flight_spread = 0.1;
  double dirty_spread_bytes = 8e6;  ///< +- on l2.dirty_resident_bytes (what is still dirty at the end)
  double dram_read_floor = 0.01;    ///< relative half-width every DRAM-read range has at least
  double dram_read_floor_bytes = 0;  ///< and this many bytes more each way (a launch's few lines the model does not place)
  double reread_miss_floor = 0;      ///< and this share of the re-read passes' DRAM bytes each way
  /// DRAM bytes read per byte of scattered stores (v1: a warp's lanes a
  /// row apart write each sector a few bytes at a time) that may come on
  /// top: how often such a sector is filled from DRAM depends on the L2's
  /// address hashing, which the model does not know (0 to 15% of y measured).
  double scattered_store_fill = 0.15;
  double dram_write_floor = 0.05;
  double l2_floor = 0.05;
  double duration_floor_memory = 0.05;   ///< duration half-width where DRAM time decides
  double duration_floor_latency = 0.3;   ///< ... where the latency chain, issue or launch decide
};

struct GpuArch {
  std::string name = "h200";
  std::string source;  ///< file it was read from, for messages
  std::string sha256;  ///< of the resolved config: its YAML with every --set applied, comments dropped
  std::vector<std::string> overrides;  ///< the --set texts applied on top of it, in order
  int sms = 132;
  double sm_clock_mhz = 1980;
  int warp_size = 32;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int registers_per_sm = 65536;
  int register_alloc_unit = 256;
  int smem_per_sm_bytes = 233472;
  int smem_per_block_bytes = 232448;
  int smem_reserved_per_block_bytes = 1024;
  int schedulers_per_sm = 4;
  double issue_per_scheduler = 0.88;  ///< sustained warp instructions per scheduler per cycle
  double dependent_issue_cycles = 4;  ///< average cycles between one warp's consecutive instructions
  double shuffle_latency_cycles = 30;  ///< one __shfl_xor_sync round trip
  double barrier_latency_cycles = 40;  ///< one __syncthreads with the block's warps arriving together
  double smem_latency_cycles = 30;     ///< a shared-memory load
  GpuL2Config l2;
  GpuL1Config l1;
  GpuDramConfig dram;
  RangeConfig range;
  EnvelopeConfig envelope;
  double memory_overlap_exponent = 2;
  double bound_overlap_exponent = 8;  ///< the duration bounds combine as their p-norm  ///< latency chain and DRAM time combine as their p-norm
  double fdiv_latency_cycles = 40;  ///< an IEEE fp32 division (MUFU.RCP + Newton + check) on the dependency chain
  double launch_overhead_us = 1.5;  ///< an empty kernel's duration (one block per SM)
  double block_dispatch_ns = 0.6;   ///< extra duration per block of an empty grid
  double kernel_tail_cycles = 2000;
  double round_overhead_cycles = 0;  ///< per row slot and round: a block's start and end on its SM ///< a launch's cold first loads and final store drain

  double cycles_per_us() const { return sm_clock_mhz; }
  /// "h200 (<shipped: workloads/arch/h200.yaml>, --set gpu.l2.bytes=...)": the arch a report used.
  std::string describe() const {
    std::string s = name + " (" + source;
    for (const auto& o : overrides) s += ", --set " + o;
    return s + ")";
  }
};

/// The GPU arch file's keys (workloads/README.md's table is generated from it).
const config::ParamTable<GpuArch>& gpu_arch_params();

/// Reads and validates a GPU arch file; ConfigError (exit 2) names the file,
/// the key and the allowed values.
GpuArch load_gpu_arch(const std::string& path, const std::vector<config::Override>& overrides = {});
/// The same from a file's text (`file` names it in messages).
GpuArch parse_gpu_arch_text(const std::string& text, const std::string& file, const std::vector<config::Override>& overrides = {});
/// The embedded default (workloads/arch/h200.yaml, compiled in).
GpuArch default_gpu_arch(const std::vector<config::Override>& overrides = {});

/// `--gpu NAME|PATH`: a shipped name, else a file; empty = the default.
/// ConfigError naming both choices when it is neither.
GpuArch gpu_arch_by_name_or_path(const std::string& name_or_path, const std::vector<config::Override>& overrides = {});

}  // namespace normsim::simt
