// Timing and memory-system parameters of the ASIC model, one small struct
// per module (the DRAM and SRAM models, the units' latencies, an optional L1
// and L2 in front of the DRAM). Plain data read from an arch file's `asic`
// section; the SystemC modules of sim/asic each take their slice.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sim/config/param_table.hpp"
#include "sim/core/enum_names.hpp"
#include "sim/core/reuse_curve.hpp"
#include "sim/core/units.hpp"

namespace normsim::config {

enum class L2Replacement { lru, measured };
enum class L2Priority { normal, evict_first };

struct L2Config {
  core::Bytes capacity_bytes{0};  ///< 0: no L2
  int line_bytes = 128;
  L2Replacement replacement = L2Replacement::lru;
  /// measured: the curves, pool and store weight (the same keys and
  /// defaults as the SIMT model's GPU arch: core::L2Reuse).
  core::L2Reuse reuse;
  L2Priority reread_priority = L2Priority::normal;  ///< the re-read's requests
  L2Priority store_priority = L2Priority::normal;   ///< y's writes
};

/// A near cache in front of the L2 for each group of `datapaths_per_cache`
/// datapaths (a GPU mapping's per-SM L1; workloads/arch/gpu-*.yaml
/// `asic.l1`): a re-read finds its row there with the measured hit fraction
/// h(D) = 1 / (1 + (D / capacity)^reuse_steepness), D the row bytes its
/// datapaths hold at once (the SIMT model's L1, docs/SIMT.md). Its hits
/// never reach the L2. capacity 0: none.
struct L1Config {
  core::Bytes capacity_bytes{0};  ///< per cache
  int datapaths_per_cache = 1;  ///< datapaths sharing one (a GPU's warps or blocks on an SM)
  double reuse_steepness = 6.0;
};

/// How the normalise pass gets the row back once its statistics are known:
/// replayed from on-chip SRAM, re-read from DRAM, or a fraction of each.
enum class InputPath { sram_replay, dram_reread, partial_replay };
inline constexpr core::EnumNames<InputPath, 3> kInputPaths{{"sram-replay", "dram-reread", "partial-replay"}};
std::string_view to_string(InputPath p);
std::optional<InputPath> parse_input_path(std::string_view s);

/// DRAM interfaces with a sourced access energy (sim/area/SOURCES.md).
enum class DramInterface { hbm2, hbm2e, hbm3e, gddr5, gddr6, gddr6x, lpddr4, ddr3 };
std::string_view to_string(DramInterface i);
std::optional<DramInterface> parse_dram_interface(std::string_view s);
/// pJ per bit moved, as published for the interface.
double dram_interface_pj_per_bit(DramInterface i);

/// The DRAM port as the unit's clock sees it (DramConfig::port).
struct DramPort {
  core::BytesPerCycle peak_bytes_per_cycle;
  core::CycleCount latency_cycles;
  core::BytesPerCycle sustained_bytes_per_cycle;  ///< min(peak, max_outstanding x burst_bytes / latency)
};

/// DRAM: reads and writes share one peak bandwidth. A transfer sees
/// `latency_ns` before its first byte; at most `max_outstanding` bursts
/// are in flight, so sustained bandwidth is
/// min(peak, max_outstanding * burst_bytes / latency) (Little's law). Both
/// are the DRAM's own, in seconds: the unit's clock changes what they are in
/// its cycles, not what they are.
struct DramConfig {
  core::BytesPerSecond peak_bytes_per_s{64e9};
  core::Nanoseconds latency_ns{200};
  int max_outstanding = 64;
  int burst_bytes = 64;
  uint64_t capacity_bytes = uint64_t(16) << 30;
  DramInterface interface = DramInterface::hbm2;
  /// Access energy; nullopt: the interface's published figure.
  std::optional<double> energy_pj_per_bit;
  double pj_per_bit() const { return energy_pj_per_bit.value_or(dram_interface_pj_per_bit(interface)); }
  /// Bytes it keeps in flight: a stream's window, a write buffer's size.
  double window_bytes() const { return static_cast<double>(max_outstanding) * burst_bytes; }
  /// Bandwidth and latency in cycles of a unit clocked at `clock_ghz`.
  DramPort port(double clock_ghz) const;
};

/// On-chip SRAM of the replay buffer: banks x ports x access_bytes per cycle.
struct SramConfig {
  uint64_t capacity_bytes = 512 * 1024;
  /// What the area (and its report) counts: the bytes the input path needs
  /// (the smallest SRAM that would do), or the configured capacity (what a
  /// design that sweeps the capacity builds).
  bool area_at_capacity = false;
  int banks = 8;
  int ports = 1;  ///< per bank; 1 = reads and writes share the bank
  int access_bytes = 16;
  int latency_cycles = 2;
  double peak_bytes_per_cycle() const { return static_cast<double>(banks) * ports * access_bytes; }
};

// Each unit's own parameters, gem5's typed Params: the arch file's
// `asic.<unit>` section, <unit> the unit's name in the registry
// (sim/asic/unit_registry.cpp) and its SystemC instance. The defaults are
// the key tables' (workloads/README.md).

/// asic.welford_lanes: one Welford lane's pipeline (subtract, multiply, add, add).
struct WelfordLanesParams {
  int latency_cycles = 4;
};
/// asic.chan_merge_tree: one level of Chan merges.
struct ChanMergeTreeParams {
  int level_cycles = 3;
};
/// asic.rsqrt: table seed and Newton steps, pipelined.
struct RsqrtParams {
  int latency_cycles = 8;
};
/// asic.normalize: subtract, two multiplies, add.
struct NormalizeParams {
  int latency_cycles = 4;
};
/// asic.row_sum_lanes: a backward row-sum lane (g = dy gamma, x_hat, two accumulates).
struct RowSumLanesParams {
  int latency_cycles = 4;
};
/// asic.row_sum_tree: one adder level of the backward's S1/S2 tree.
struct RowSumTreeParams {
  int level_cycles = 1;
};
/// asic.row_mean: S1/C and S2/C (a multiply by the table's 1/C).
struct RowMeanParams {
  int latency_cycles = 4;
};
/// asic.dx_unit: the dx pipeline (multiply-add, subtract, multiply).
struct DxUnitParams {
  int latency_cycles = 4;
};

/// The backward's x_hat: recomputed from x and the saved mean and rstd, or
/// read back as the forward wrote it (in the input's type).
enum class XhatSource { recompute, stored };
inline constexpr core::EnumNames<XhatSource, 2> kXhatSources{{"recompute", "stored"}};
/// Where the backward keeps dgamma/dbeta while the rows stream: a C-wide
/// accumulator on chip, written once; the same accumulator written out as a
/// partial every `partial_rows` rows and the partials summed by a second pass;
/// or no accumulator on chip, each row read-modify-writing them in DRAM.
enum class ParamGradPath { onchip, partials, dram_rmw };
inline constexpr core::EnumNames<ParamGradPath, 3> kParamGradPaths{{"onchip", "partials", "dram_rmw"}};

/// asic.param_grad_accumulator: where dgamma/dbeta accumulate.
struct ParamGradAccumulatorParams {
  ParamGradPath path = ParamGradPath::onchip;
  int64_t partial_rows = 256;  ///< partials: rows an accumulator sums before it is written
};

/// asic.backward: what a backward pass reads (docs/ASIC.md, "Backward").
struct BackwardAsicConfig {
  XhatSource xhat = XhatSource::recompute;
};

/// Past a unit's maximum frequency (sim/rtl/timing_closure.hpp): add the
/// pipeline stages it needs, or refuse the clock.
enum class PastFmax { add_stages, refuse };

/// The units' time (sim/asic/sim_time.hpp): fluid -- a unit acts at the
/// fraction of a cycle its data arrives -- or cycle -- at the next whole
/// cycle, as clocked logic does and as the RTL is compared.
enum class UnitTiming { fluid, cycle };

struct AsicConfig {
  double clock_ghz = 1.0;
  InputPath path = InputPath::sram_replay;
  double replay_fraction = 0.5;  ///< partial replay: fraction f of each row kept in SRAM
  int rows_in_flight = 2;        ///< row buffers (2: double buffered)
  /// Copies of the datapath working on different rows at once and sharing the
  /// memories (a GPU's warps): the lane array and the normalise unit take
  /// lanes x datapaths elements a cycle; each row's arithmetic is unchanged.
  int datapaths = 1;
  bool write_stats = true;       ///< mean and rstd written to DRAM (8 bytes a row; rstd only for RMSNorm)
  int64_t transaction_elems = 4096;  ///< modelling granularity of the input/output streams (at most a sixteenth of the DRAM window)
  uint64_t reread_fifo_bytes = 0;    ///< the re-read FIFO (0: Little's law, the DRAM's bandwidth x latency)
  std::string node = "7nm";      ///< technology node of the logic and the SRAM: area and energy (sim/area)
  double supply_v = 0.8;         ///< supply voltage of the node's energy scaling (Stillmaker & Baas 2017)
  /// Leakage power per mm^2 of cells, when not the node's (sim/area's table).
  std::optional<double> leakage_mw_per_mm2;
  PastFmax past_fmax = PastFmax::add_stages;
  UnitTiming timing = UnitTiming::fluid;
  /// Flip-flops of the stages timing closure added (set by rtl::with_closed_timing, not a key): their area.
  double timing_flip_flops = 0;
  DramConfig dram;
  SramConfig sram;
  L2Config l2;  ///< an optional L2 in front of the DRAM (asic/l2_model.hpp); capacity 0 means none
  L1Config l1;  ///< optional near caches in front of the L2 (asic/l2_model.hpp), a GPU mapping's per-SM L1; capacity 0 means none
  BackwardAsicConfig backward;
  // The units' own sections (their registry names).
  WelfordLanesParams welford_lanes;
  ChanMergeTreeParams chan_merge_tree;
  RsqrtParams rsqrt;
  NormalizeParams normalize;
  RowSumLanesParams row_sum_lanes;
  RowSumTreeParams row_sum_tree;
  RowMeanParams row_mean;
  DxUnitParams dx_unit;
  ParamGradAccumulatorParams param_grad_accumulator;
  DramPort dram_port() const { return dram.port(clock_ghz); }
  /// One level of the row's adder tree: the Chan merge tree's, or the
  /// backward's row-sum tree's (the merge units' occupancy a row).
  int tree_level_cycles(bool backward) const { return backward ? row_sum_tree.level_cycles : chan_merge_tree.level_cycles; }
};

/// The `asic` section's keys (workloads/README.md's table is generated from
/// it): reading, range checks, echo, units and docs.
const ParamTable<AsicConfig>& asic_params();
/// Its sections that are a unit's own (asic.<unit>), by the units' registry names.
std::span<const std::string_view> asic_unit_sections();

}  // namespace normsim::config
