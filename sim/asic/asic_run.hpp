// Elaborates the ASIC model for a workload + arch, simulates it, and
// collects cycles, stalls, traffic and numerics. SystemC elaborates once per
// process: call run_asic() once (normsim compare runs each path in a child).
#pragma once

#include <array>
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "sim/asic/asic_config.hpp"
#include "sim/asic/steady_state.hpp"
#include "sim/asic/traffic_identity.hpp"
#include "sim/config/arch.hpp"
#include "sim/asic/rtl_unit.hpp"
#include "sim/rtl/timing_closure.hpp"
#include "sim/config/workload.hpp"
#include "sim/core/backward_run.hpp"
#include "sim/core/output_checker.hpp"
#include "sim/core/stats.hpp"

namespace normsim::asic {

struct AsicOptions {
  std::optional<core::VarianceAlgorithm> algorithm;
  std::optional<InputPath> path;
  bool numerics = true;      ///< false: timing only (no arithmetic, same cycles and traffic)
  bool keep_outputs = false;
  bool keep_inputs = false;  ///< with keep_outputs: x as stored and the fp64 reference too
  /// Threads for the numerics (>= 1). The arithmetic of each row does not
  /// move the timing, so it runs beside the SystemC simulation, over rows in
  /// parallel, with the same bits for every count (core::run_functional);
  /// with `rtl` it runs inside the units, row by row, in lock step with the RTL.
  int threads = 1;
  std::string trace_file;    ///< VCD of the first rows' handshakes and counters
  int64_t trace_rows = 8;    ///< rows the VCD covers (from the first)
  std::atomic<int64_t>* rows_done = nullptr;  ///< if set, the rows finished so far (a progress line reads it)
  bool rtl = false;          ///< lock-step the verilated norm_row_pipeline (rtl_pipeline.hpp)
  /// Run the verilated forward unit's control on the same design after the
  /// model, clocked (asic.timing: cycle, implied), and compare every act
  /// edge for edge (rtl_unit.hpp).
  bool rtl_full = false;
  /// Skip whole periods of the steady state (steady_state.hpp): the same
  /// report, bit for bit; false simulates every row.
  bool fast_forward = true;
  /// With `numerics`: the error on this many rows spread evenly over the
  /// workload (0: every row), its spread over them reported.
  int64_t sample_rows = 0;
};

/// What the lock-stepped RTL did (AsicOptions::rtl).
struct RtlCheck {
  int64_t rows_checked = 0;     ///< rows whose statistics and y matched the model bit for bit
  int64_t rtl_cycles = 0;       ///< clock cycles the RTL simulated
  int stats_latency_cycles = 0;      ///< last x beat -> statistics, as measured on the RTL
  int normalize_latency_cycles = 0;  ///< x beat -> y, as measured on the RTL
  int model_stats_latency_cycles = 0;      ///< the same from the arch's latency keys
  int model_normalize_latency_cycles = 0;
  double seconds = 0;           ///< wall time spent driving the RTL (its delta-cycle clocking included)
};

struct AsicResult {
  config::Workload workload;
  config::Arch arch;
  core::NumericsResult numerics;  ///< meaningful when `numerics` (not timing only); a backward's: its forward's config only
  /// A backward workload's numerics (dx, dgamma, dbeta), when `numerics`.
  std::optional<core::BackwardNumerics> backward;
  core::BackwardOutputs backward_outputs;  ///< AsicOptions::keep_outputs, a backward
  double param_grads_done_cycle = 0;      ///< a backward: dgamma/dbeta's last byte in DRAM
  core::KeptOutputs outputs;      ///< AsicOptions::keep_outputs
  std::optional<RtlCheck> rtl;
  std::optional<RtlFullCheck> rtl_full;
  AsicConfig cfg;      ///< with the path and algorithm actually simulated, and the latencies timing closure set
  rtl::TimingClosure timing_closure;  ///< each unit's depth and maximum frequency at the clock
  bool bit_accurate = true;  ///< AsicOptions::numerics: the arithmetic ran (false: timing only)
  double cycles = 0;
  double first_stats_cycle = 0;
  double last_lanes_cycle = 0;
  /// Every unit's counters by name and unit (busy and stall cycles by cause,
  /// bytes by kind), in data-flow order; the report emits them generically.
  std::vector<core::StatSet> unit_stats;
  std::array<uint64_t, kTrafficKinds> dram_bytes{};
  uint64_t dram_bytes_read = 0, dram_bytes_written = 0;
  uint64_t sram_bytes_read = 0, sram_bytes_written = 0, sram_peak_bytes = 0;
  /// The input path's row buffers: the most held at once, and the rows that
  /// found every one busy (none: more rows in flight change nothing).
  uint64_t row_buffers_peak = 0, row_buffer_waits = 0;
  uint64_t param_buffer_read_bytes = 0;
  TrafficIdentity expected;
  FastForward fast_forward;  ///< whether rows were skipped, the period, and why not
  /// AsicOptions::sample_rows: the numerics on a sample of the rows, and the
  /// output error's spread over its groups (interleaved slices of the sample).
  struct RowSample {
    int64_t rows = 0;  ///< rows the numerics ran on
    int groups = 0;
    double rel_l2_error_min = 0, rel_l2_error_max = 0;
    double max_ulp_error_min = 0, max_ulp_error_max = 0;
  };
  std::optional<RowSample> sample;
  double time_us() const { return cycles / (cfg.clock_ghz * 1e3); }
  double dram_gbps() const { return (dram_bytes_read + dram_bytes_written) / (time_us() * 1e3); }
};

/// Checks the combination (SRAM large enough, workload fits DRAM, algorithm
/// the ASIC offers) and returns the config to simulate; ConfigError otherwise.
AsicConfig resolve_asic_config(const config::Workload& w, const config::Arch& a, const AsicOptions& o);

AsicResult run_asic(const config::Workload& w, const config::Arch& a, const AsicOptions& o);

}  // namespace normsim::asic
