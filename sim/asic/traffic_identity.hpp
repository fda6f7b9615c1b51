// The closed forms an ASIC input path must meet (DESIGN "Exact identities";
// docs/ASIC.md "Identities the tests assert"): DRAM bytes read and written, the on-chip buffers,
// and the cycle lower bound. Plain arithmetic, no SystemC: the timing model
// asserts them, and the GPU cross-check (sim/simt) compares ncu's bytes
// against them.
#pragma once

#include <cstdint>

#include "sim/asic/asic_config.hpp"
#include "sim/config/workload.hpp"

namespace normsim::asic {

struct TrafficIdentity {
  uint64_t dram_bytes_read = 0;     ///< (2 - f) N C in_bytes + params
  uint64_t dram_bytes_written = 0;  ///< N C out_bytes + stats
  uint64_t sram_row_buffer_bytes = 0;
  uint64_t reread_fifo_bytes = 0;   ///< the re-read stream's FIFO (0 for SRAM replay)
  uint64_t param_bytes = 0;         ///< gamma/beta kept on chip (fp32)
  uint64_t onchip_bytes() const { return sram_row_buffer_bytes + reread_fifo_bytes + param_bytes; }
  double lower_bound_cycles = 0;    ///< max(DRAM bytes / sustained bytes per cycle, N C / L)
};

/// gamma (and beta) as the ASIC keeps them: fp32, C each.
int64_t param_bytes(const config::Workload& w);

/// The identities of workload `w` on the path and memories of `c` with
/// `lanes` lanes per datapath.
TrafficIdentity traffic_identity(const config::Workload& w, const AsicConfig& c, int lanes);

}  // namespace normsim::asic
