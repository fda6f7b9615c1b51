// The top of the ASIC model: input path -> Welford lane array -> Chan merge
// tree -> RSQRT unit -> normalise/affine unit -> output, with the DRAM and
// SRAM models, connected by bounded FIFOs (ready/valid: a full FIFO stalls its
// writer; HandshakeFifo) and a pool of row buffers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/asic/handshake_fifo.hpp"
#include "sim/asic/input_path_unit.hpp"
#include "sim/asic/normalize_unit.hpp"
#include "sim/asic/separate_adder_pass.hpp"
#include "sim/asic/stats_units.hpp"

namespace normsim::asic {

SC_MODULE(NormAccelerator) {
  SC_HAS_PROCESS(NormAccelerator);
  NormAccelerator(sc_core::sc_module_name n, AccelContext& ctx);

  DramModel dram;
  SramModel sram;
  SeparateAdderPass adder_pass;  ///< a residual workload's unfused baseline only
  InputPathUnit input_path;
  ChanMergeTree merge_tree;
  RsqrtUnit rsqrt;
  WelfordLaneArray lanes;
  NormalizeUnit normalize;
  RereadStream reread;

  /// Every unit's counters, in data-flow order (lanes, normalise, the
  /// separate adder's pass, DRAM, SRAM).
  std::vector<core::StatSet> stats() const;

  /// Adds the first `rows` rows to a VCD trace, sampled every cycle: a scope
  /// per unit with each of its ports' valid/ready and tokens moved (fire),
  /// a scope per FIFO with its occupancy, and each memory port's requests,
  /// requests in flight and grant (data moving).
  void trace(sc_core::sc_trace_file* tf, int64_t rows);

 private:
  // A unit's port on a FIFO, as the waveform shows it.
  struct PortWaves {
    bool valid = false, ready = false;
    int fire = 0;  ///< tokens moved in the cycle before
  };
  struct FifoWaves {
    int occupancy = 0, depth = 0;
  };
  struct MemoryPortWaves {
    int requests = 0, outstanding = 0;
    bool grant = false;
  };
  template <class T>
  struct FifoTrace {
    HandshakeFifo<T>* fifo;
    std::string writer, reader;  ///< the units on its two sides ("" for none)
    FifoWaves waves;
    PortWaves out_of_writer, into_reader;
    uint64_t writes = 0, reads = 0;
  };
  template <class T>
  void trace_fifo(sc_core::sc_trace_file* tf, FifoTrace<T>& t);
  template <class T>
  static void sample(FifoTrace<T>& t);
  void trace_process();
  HandshakeFifo<RowSlot*> free_slots_, stats_to_normalize_;
  HandshakeFifo<ChunkToken> input_to_lanes_;
  HandshakeFifo<Grant> reread_fifo_;
  std::vector<std::unique_ptr<RowSlot>> slots_;
  sc_core::sc_event sum_issued_;  ///< a fused unit issued a row's z writes (AccelContext::sum_issued)
  AccelContext& ctx_;
  // Traced values (sampled every cycle by trace_process while tracing).
  std::unique_ptr<FifoTrace<RowSlot*>> free_slots_trace_, stats_trace_;
  std::unique_ptr<FifoTrace<ChunkToken>> input_trace_;
  std::unique_ptr<FifoTrace<Grant>> reread_trace_;
  MemoryPortWaves dram_port_, sram_read_port_, sram_write_port_;
  double dram_bytes_read_ = 0, dram_bytes_written_ = 0, sram_held_bytes_ = 0;
  int rows_done_ = 0;
  int64_t trace_rows_ = 0;
  bool tracing_ = false;
};

}  // namespace normsim::asic
