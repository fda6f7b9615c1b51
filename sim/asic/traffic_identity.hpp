// The closed forms an ASIC input path must meet (docs/ASIC.md "Identities the
// tests assert"): DRAM and SRAM bytes read and written, the on-chip storage,
// the cycle lower bound, and the sizes the model derives (its transaction,
// the re-read FIFO). Plain arithmetic, no SystemC: the timing model asserts
// them, and the GPU cross-check (sim/validate) compares ncu's bytes against
// them.
#pragma once

#include <array>
#include <cstdint>

#include "sim/asic/asic_config.hpp"
#include "sim/asic/traffic_kinds.hpp"
#include "sim/config/arch.hpp"
#include "sim/config/workload.hpp"

namespace normsim::asic {

struct TrafficIdentity {
  /// By what they carry (docs/ASIC.md, "Fusion" for a residual workload's kinds).
  std::array<uint64_t, kTrafficKinds> dram_bytes{};
  uint64_t dram_bytes_read = 0;     ///< (2 - f) N C in_bytes + params (+ r, + the separate adder's reads)
  uint64_t dram_bytes_written = 0;  ///< N C out_bytes + stats (+ z)
  uint64_t sram_bytes_read = 0;     ///< replayed rows + gamma/beta per row + the re-read through the FIFO
  uint64_t sram_bytes_written = 0;  ///< stored rows + gamma/beta once + the re-read into the FIFO
  uint64_t sram_row_buffer_bytes = 0;
  uint64_t reread_fifo_bytes = 0;   ///< the re-read stream's FIFO (0 for SRAM replay)
  uint64_t param_bytes = 0;         ///< gamma/beta kept on chip, at their formats' widths (the backward: gamma)
  uint64_t accumulator_bytes = 0;   ///< the backward's C-wide dgamma/dbeta accumulator (onchip, partials)
  uint64_t onchip_bytes() const { return sram_row_buffer_bytes + reread_fifo_bytes + param_bytes + accumulator_bytes; }
  double lower_bound_cycles = 0;    ///< max(DRAM bytes / sustained bytes per cycle, N max(ceil(C / L), shared merge occupancy) / datapaths)
};

/// Bytes a row's statistics take when written: mean and rstd (LayerNorm) or rstd (RMSNorm), fp32.
int stats_bytes_per_row(const config::Workload& w);
/// The backward's read of the forward's statistics a row: mean and rstd, or
/// rstd alone (RMSNorm, or x_hat stored: it needs no mean).
int saved_stats_bytes_per_row(const config::Workload& w, const AsicConfig& c);
/// Parameter gradients a backward accumulates per column: dgamma and dbeta, or dgamma (RMSNorm).
int param_grad_count(const config::Workload& w);
/// One accumulator word: the dgamma stage's width in whole bytes (fixed), 4 (fp32).
int param_grad_acc_bytes(const config::Arch& a);
/// Bytes of one row element the input path streams, keeps and re-reads:
/// x's, and dy's beside it in a backward.
int row_elem_bytes(const config::Workload& w);
/// Bytes of one gamma (beta) element as the datapath stores it: its stage
/// format's width in whole bytes for a fixed-point datapath, fp32's 4 else.
int param_elem_bytes(const config::Arch& a, core::Stage stage);
/// gamma (and beta): C elements each at their widths.
int64_t param_bytes(const config::Workload& w, const config::Arch& a);

/// The model's stream transaction: transaction_elems, but at most a sixteenth
/// of the DRAM's window (max_outstanding x burst_bytes) so that many are
/// always in flight, as the bursts of the hardware are: the cycles and the
/// stalls by cause then hardly depend on the modelling granularity.
int64_t transaction_elems(const config::Workload& w, const AsicConfig& c);

/// The re-read FIFO's bytes as configured: `reread_fifo_bytes`, or Little's
/// law -- the DRAM's sustained bandwidth x its latency, in whole bursts.
uint64_t reread_fifo_target_bytes(const AsicConfig& c);
/// Its depth in the model's transactions (at least one) for workload w.
int reread_fifo_transactions(const config::Workload& w, const AsicConfig& c);

/// How w's residual stream (if any) reaches the lanes on arch a.
Fusion fusion_of(const config::Workload& w, const config::Arch& a);

/// The identities of workload `w` on arch `a` with the path and memories of `c`.
TrafficIdentity traffic_identity(const config::Workload& w, const config::Arch& a, const AsicConfig& c);

}  // namespace normsim::asic
