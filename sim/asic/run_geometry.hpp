// What a run's units agree on and never change: the tensor's shape, the
// stream's transactions, element sizes, how much of a row the replay path
// keeps, and where a residual sum is made. Built once from the workload and
// the arch before elaboration; every unit takes it by const reference. What
// changes during the run travels between units only through their ports.
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/asic/asic_config.hpp"
#include "sim/asic/traffic_kinds.hpp"
#include "sim/config/arch.hpp"
#include "sim/config/workload.hpp"

namespace normsim::asic {

struct RunGeometry {
  int64_t rows = 0, hidden = 0;
  int64_t chunk_elems = 0;  ///< elements of one stream transaction (traffic_identity.hpp)
  int chunks = 1;           ///< transactions a row
  int lanes = 16;           ///< elements a cycle the lane array takes: lanes x datapaths
  int in_bytes = 4, out_bytes = 4;  ///< in: x's, and z's (stored in x's type)
  int residual_bytes = 0;           ///< r's element bytes (a residual workload)
  int stats_bytes_per_row = 8;      ///< mean and rstd (LayerNorm) or rstd (RMSNorm), fp32
  int64_t stored_elems = 0;         ///< the part of a row the replay path keeps on chip
  int64_t param_bytes = 0;          ///< gamma/beta at their formats' widths
  int reread_fifo_transactions = 1;  ///< the re-read FIFO's depth (traffic_identity.hpp)
  Fusion fusion = Fusion::none;      ///< docs/ASIC.md, "Fusion"
  bool sum_written_all = false;      ///< fused: all of z is written (kept, or Pre-Norm); else only what is re-read
  // The backward (docs/ASIC.md, "Backward"): x (or x_hat) and dy stream,
  // are kept and re-read together; dx leaves as the output. (Its gradient
  // accumulator's parameters are its own: ParamGradAccumulator::Config.)
  bool backward = false;
  int grad_bytes = 0;                ///< dy's element bytes
  int saved_stats_bytes = 0;         ///< the forward's statistics read a row
  int branch_grad_bytes = 0;         ///< a fused Post-Norm backward with dropout: the branch's gradient beside dx (the output's type)
  int branch_pass_bytes = 0;         ///< ... unfused: a separate pass after the unit reads dz and writes it, these bytes an element each way

  /// Bytes of one element the row buffer keeps and the re-read brings back.
  int row_elem_bytes() const { return in_bytes + grad_bytes; }

  int64_t chunk_begin(int k) const { return k * chunk_elems; }
  int64_t chunk_end(int k) const { return std::min<int64_t>(hidden, (k + 1) * chunk_elems); }
  int64_t chunk_size(int k) const { return chunk_end(k) - chunk_begin(k); }
  /// Elements of chunk k the replay path keeps on chip, and those it re-reads.
  int64_t stored_in_chunk(int k) const {
    return std::max<int64_t>(0, std::min(chunk_end(k), stored_elems) - chunk_begin(k));
  }
  int64_t reread_in_chunk(int k) const { return chunk_size(k) - stored_in_chunk(k); }
  bool rereads() const { return stored_elems < hidden; }
  /// Elements of chunk k whose sum the fused unit writes to DRAM.
  int64_t sum_elems(int k) const {
    if (fusion != Fusion::fused) return 0;
    if (sum_written_all) return chunk_size(k);
    return chunk_end(k) - std::clamp(stored_elems, chunk_begin(k), chunk_end(k));
  }
  /// Cycles for `elems` elements at one element per lane per cycle.
  double lane_cycles(int64_t elems) const { return static_cast<double>((elems + lanes - 1) / lanes); }
};

/// The geometry of workload `w` on arch `a` with the resolved timing config `c`.
RunGeometry make_run_geometry(const config::Workload& w, const config::Arch& a, const AsicConfig& c);

}  // namespace normsim::asic
