// A run's area and energy, composed from what its units moved and computed:
// the SRAM it needs (or is configured with), the DRAM and SRAM bytes, the
// elements and rows through the datapath, a residual stream's sums and mask
// words. The ASIC model counts; this composes; the report only prints.
#pragma once

#include <cstdint>
#include <string>

#include "sim/area/area_energy.hpp"
#include "sim/config/asic_params.hpp"

namespace normsim::area {

/// The activity counts of one run of the ASIC model (its AsicResult, in plain numbers).
struct RunActivity {
  uint64_t dram_bytes_read = 0, dram_bytes_written = 0;
  uint64_t sram_bytes_read = 0, sram_bytes_written = 0;
  double sram_required_bytes = 0;  ///< row buffers + re-read FIFO + parameters
  int64_t elements = 0, rows = 0;
  double cycles = 0;      ///< the run's clock cycles: what the registers are clocked for
  double seconds = 0;     ///< the run's time (cycles / clock): what the design leaks for
  bool residual = false;  ///< a residual stream is summed (here or by a separate adder)
  bool dropout = false;   ///< ... through a dropout mask
  bool branch_grad = false;  ///< a Post-Norm backward scales the branch's gradient by the mask (an adder lane's multiply, a mask word)
};

struct RunCosts {
  AreaReport area;
  bool sram_at_capacity = false;  ///< the SRAM costed at asic.sram.capacity_bytes (else at what the run needs)
  double sram_required_bytes = 0;
  double fusion_um2 = 0;          ///< of the datapath: the residual adder and the dropout mask generator
  ActivityCounts activity;        ///< what the energy was computed from
  EnergyReport energy;
  std::string energy_basis;       ///< the sources and scalings, in words
  double leakage_mw_per_mm2 = 0;  ///< of cells: the arch's, or the node's (sim/area/SOURCES.md)
  double leakage_mw = 0;          ///< the design's leakage power: density x area.cell_um2
  double pj_per_element() const { return energy.total_pj() / activity.elements; }
};

/// Area and energy of a run on the datapath `dp` with the timing config `c`.
/// `backward`: a backward run's unit (its logic instead of the forward's).
RunCosts run_costs(const core::DatapathConfig& dp, const config::AsicConfig& c, const RunActivity& run,
                   const core::BackwardConfig* backward = nullptr);

}  // namespace normsim::area
