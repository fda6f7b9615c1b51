// The top of the ASIC model: input path -> Welford lane array -> Chan merge
// tree -> RSQRT unit -> normalise/affine unit -> output, with the DRAM and
// SRAM models, connected by bounded FIFOs (ready/valid: a full FIFO stalls its
// writer; HandshakeFifo) and a pool of row buffers.
#pragma once

#include <memory>
#include <vector>

#include "sim/asic/handshake_fifo.hpp"
#include "sim/asic/input_path_unit.hpp"
#include "sim/asic/normalize_unit.hpp"
#include "sim/asic/stats_units.hpp"

namespace normsim::asic {

SC_MODULE(NormAccelerator) {
  SC_HAS_PROCESS(NormAccelerator);
  NormAccelerator(sc_core::sc_module_name n, AccelContext& ctx);

  DramModel dram;
  SramModel sram;
  InputPathUnit input_path;
  ChanMergeTree merge_tree;
  RsqrtUnit rsqrt;
  WelfordLaneArray lanes;
  NormalizeUnit normalize;
  RereadStream reread;

  /// Every unit's counters, in data-flow order (lanes, normalise, DRAM, SRAM).
  std::vector<core::StatSet> stats() const;

  /// Adds the handshakes and counters of the first rows to a VCD trace.
  void trace(sc_core::sc_trace_file* tf);

 private:
  void trace_process();
  HandshakeFifo<RowSlot*> free_slots_, stats_to_normalize_;
  HandshakeFifo<ChunkToken> input_to_lanes_;
  HandshakeFifo<Grant> reread_fifo_;
  std::vector<std::unique_ptr<RowSlot>> slots_;
  AccelContext& ctx_;
  // Traced signals (sampled every cycle by trace_process while tracing).
  sc_core::sc_signal<int> rows_in_lanes_, rows_in_normalize_, free_row_buffers_;
  sc_core::sc_signal<double> dram_bytes_read_, dram_bytes_written_, sram_occupancy_;
  bool tracing_ = false;
};

}  // namespace normsim::asic
