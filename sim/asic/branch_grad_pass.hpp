// The unfused baseline of a Post-Norm backward with dropout (arch
// `fuse.mode: none`): the unit writes dz, and a separate elementwise pass
// -- another unit, or the dropout-backward kernel on a GPU -- reads dz back
// and writes dz * mask / (1 - p), regenerating the mask. It streams after
// the unit's last output at the DRAM's rate, its reads and writes sharing
// the port. Issued on the run's DRAM after the simulation of the rows.
#pragma once

#include "sim/asic/memory_models.hpp"
#include "sim/asic/run_geometry.hpp"

namespace normsim::asic {

/// Issues the pass from cycle `start`; returns the cycle its last write is
/// in DRAM (`start` when the geometry has no such pass).
double finish_branch_pass(const RunGeometry& g, DramModel& dram, double start);

}  // namespace normsim::asic
