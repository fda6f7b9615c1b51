// The top of the ASIC model: input path -> Welford lane array -> Chan merge
// tree -> RSQRT unit -> normalise/affine unit -> output (the backward: row-sum
// lanes -> row-sum tree -> S/C -> dx unit, beside the gradient accumulator), with the DRAM and
// SRAM models, connected by bounded FIFOs (ready/valid: a full FIFO stalls its
// writer; HandshakeFifo), cycle announcements (CycleSignal) and a pool of row
// buffers. Every hand-over between units is one of these channels; the
// units share nothing else but the run's immutable geometry and the
// memories they issue requests to. The channels and the units' ports on
// them come from the netlist (netlist.hpp, unit_registry.hpp): this module
// builds, binds and traces whatever those tables declare.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "sim/asic/chan_merge_tree.hpp"
#include "sim/asic/cycle_signal.hpp"
#include "sim/asic/edge_log.hpp"
#include "sim/asic/handshake_fifo.hpp"
#include "sim/asic/netlist.hpp"
#include "sim/asic/normalize_unit.hpp"
#include "sim/asic/steady_state.hpp"
#include "sim/asic/unit_registry.hpp"
#include "sim/asic/welford_lane_array.hpp"

namespace normsim::asic {

SC_MODULE(NormAccelerator) {
  SC_HAS_PROCESS(NormAccelerator);
  /// `g` and `cfg` must outlive the model (the units derive their own
  /// parameters from `w` and `a` as they are built); `arith` is null when
  /// timing only; `rows_done_out`, if set, follows the rows finished (a progress line).
  NormAccelerator(sc_core::sc_module_name n, const config::Workload& w, const config::Arch& a, const RunGeometry& g,
                  const AsicConfig& cfg, const core::MergeSchedule& merge, RowArithmetic* arith,
                  std::atomic<int64_t>* rows_done_out = nullptr);

  DramModel dram;
  SramModel sram;
  // The units the run enables (asic_units(), in its order), and the two the
  // results are read from: the lane array and the output unit (the forward's
  // Welford lanes and normalise unit, the backward's row-sum lanes and dx unit).
  const WelfordLaneArray& lanes() const;
  const NormalizeUnit& output() const;

  /// Runs the after-rows passes the geometry enables (asic_units() order),
  /// once every row is out; each pass's name and the cycle it is done.
  std::vector<std::pair<std::string_view, double>> finish_after_rows();

  /// Every built unit's counters, in elaboration order, then DRAM's and SRAM's.
  std::vector<core::StatSet> stats() const;

  /// Looks for the steady state from row `c.first_row` on and cuts whole
  /// periods from the rows to issue once it is found (steady_state.hpp).
  /// Call before sc_start; without it every row is simulated.
  void fast_forward(const SteadyStateDetector::Config& c);
  /// What the fast-forward did; counter_delta follows counter_values()'s order.
  const FastForward& fast_forward_result() const { return ff_result_; }
  /// The rows the input path issued in all (the workload's, less any cut).
  int64_t row_limit() const { return row_limit_.rows(); }
  /// Every counter as one list: stats()' values in order, then the DRAM's
  /// bytes read and written. `peak` marks the maxima.
  std::vector<double> counter_values(std::vector<bool>* peak = nullptr) const;
  /// counter_values()' names, in its order: "<unit>.<counter>", then
  /// "dram.total_bytes_read" and "dram.total_bytes_written".
  std::vector<std::string> counter_names() const;

  /// Logs every act of the run's units into `log`, edge by edge, until the
  /// last row is out (asic.timing: cycle; edge_log.hpp): the memories'
  /// requests and their ends, and each FIFO's tokens in and out. Call
  /// before sc_start.
  void log_edges(EdgeLog& log);

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
  // A channel as built, and what its trace shows.
  struct Channel {
    const ChannelDecl* decl;
    std::unique_ptr<sc_core::sc_interface> channel;
    const sc_core::sc_object* object;  ///< the same channel, as named in the hierarchy
    const FifoState* fifo = nullptr;      ///< its handshake (null for a signal)
    const CycleSignal* signal = nullptr;  ///< its announcement (null for a FIFO)
    std::string writer, reader;           ///< the built units on its two sides ("" for none)
    FifoWaves waves;
    PortWaves out_of_writer, into_reader;
    uint64_t writes = 0, reads = 0;
  };
  void trace_channel(sc_core::sc_trace_file* tf, Channel& c);
  static void sample(Channel& c);
  void trace_process();
  void on_row_done();
  PeriodState period_state() const;
  /// Binds unit `e`'s ports (its entry's `ports`) to the channels they name.
  void bind_ports(const AsicUnitEntry& e, sc_core::sc_module& unit);
  Channel* find_channel(std::string_view name);  ///< null where this pass does not build it
  sc_core::sc_interface* memory(std::string_view name);  ///< the memory model a memory channel names
  Channel& channel(std::string_view name);
  const Channel& channel(std::string_view name) const;
  /// The built unit named `name` (a unit every run has).
  const sc_core::sc_module& unit(std::string_view name) const;
  std::vector<Channel> channels_;
  std::vector<std::unique_ptr<RowSlot>> slots_;
  std::vector<std::pair<const AsicUnitEntry*, std::unique_ptr<sc_core::sc_module>>> units_;
  const RunGeometry& g_;
  RowLimit row_limit_;
  std::unique_ptr<SteadyStateDetector> detector_;
  std::unique_ptr<AfterUnits> edge_logger_;
  FastForward ff_result_;
  std::vector<bool> counter_is_peak_;
  // Traced values (sampled every cycle by trace_process while tracing).
  MemoryPortWaves dram_port_, sram_read_port_, sram_write_port_;
  double dram_bytes_read_ = 0, dram_bytes_written_ = 0, sram_held_bytes_ = 0;
  int rows_done_ = 0;
  int64_t trace_rows_ = 0;
  bool tracing_ = false;
};

}  // namespace normsim::asic
