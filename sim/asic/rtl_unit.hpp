// `normsim run --rtl-full`: the forward unit's control in RTL
// (rtl_models/tb/tb_forward.v: a separate adder's pass, the input path, the
// lanes, the re-read stream and the normalise unit on the testbench's DRAM
// and SRAM ports), verilated
// into normsim and run on the design the SystemC model simulated, clocked
// (asic.timing: cycle). Both sides log every act edge by edge
// (edge_log.hpp); the two logs must be equal act for act, and the first
// act that differs stops the run with its row, its unit and both edges.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/asic/asic_config.hpp"
#include "sim/asic/edge_log.hpp"
#include "sim/asic/run_geometry.hpp"
#include "sim/config/arch.hpp"
#include "sim/core/merge_schedule.hpp"

namespace normsim::asic {

/// One unit's acts, equal on both sides.
struct RtlUnitActs {
  std::string unit;          ///< the SystemC unit and the RTL module of the same name ("dram" and "sram": the ports)
  std::string act;           ///< what it did ("row taken", "x read issued")
  std::string stream;        ///< the edge log's stream (edge_log.hpp)
  int64_t acts = 0;          ///< how many, on each side
  int64_t last_cycle = -1;   ///< the edge of the last one (-1: none)
  int64_t bytes = 0;         ///< a memory request's: the bytes asked for, on each side
};

/// What the comparison did (AsicOptions::rtl_full).
struct RtlFullCheck {
  int64_t rows = 0;            ///< rows both sides finished
  int64_t rtl_cycles = 0;      ///< clock edges the RTL simulated
  int64_t acts_compared = 0;   ///< acts equal on both sides, every stream together
  int64_t dram_bytes_compared = 0;  ///< DRAM bytes asked for at the same edges by the same acts, every kind together
  int64_t sram_bytes_compared = 0;  ///< ... SRAM bytes
  std::vector<RtlUnitActs> streams;
  double seconds = 0;          ///< wall time spent running the RTL
};

/// Empty when the run's design is one the built whole-unit RTL carries,
/// else why not: one line naming the key, its value and what is allowed.
std::string rtl_unit_mismatch(const RunGeometry& g, const AsicConfig& c, const config::Arch& a);

/// The model's acts against the RTL's, stream by stream: the account when
/// every act is at the same edge on both sides; else throws
/// config::CheckFailure (exit 1) naming the earliest act that differs -- its row
/// (where a stream acts a fixed number of times a row), its unit, which
/// one it is and its edge on each side ("never" where one side lacks it),
/// or for a memory request at the same edge, its bytes on each side.
RtlFullCheck compare_edge_logs(const EdgeLog& model, const EdgeLog& rtl, int64_t rows);

class RtlUnit {
 public:
  /// Elaborates the verilated unit for the design (before sc_start).
  RtlUnit(const RunGeometry& g, const AsicConfig& c, const core::MergeSchedule& merge);
  ~RtlUnit();
  /// Runs the RTL past the model's last act and compares the two logs;
  /// throws config::CheckFailure at the first act that differs.
  RtlFullCheck compare(const EdgeLog& model);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace normsim::asic
