// The backward's last transfers of dgamma/dbeta, after the lanes' last row
// (docs/ASIC.md, "Backward"): the on-chip accumulator read out and written
// once in fp32 (onchip), or the second pass that reads every partial back
// and writes their sum (partials). A read-modify-write of DRAM (dram_rmw)
// has nothing left: its last row wrote the result. Issued on the run's DRAM
// and SRAM after the simulation of the rows, in time after them.
#pragma once

#include "sim/asic/memory_models.hpp"
#include "sim/asic/run_geometry.hpp"

namespace normsim::asic {

/// Issues the pass from cycle `start` (the lanes' last row); returns the
/// cycle its last byte is in DRAM (`start` when there is nothing to move).
double finish_param_grads(const RunGeometry& g, DramModel& dram, SramModel& sram, double start);

}  // namespace normsim::asic
