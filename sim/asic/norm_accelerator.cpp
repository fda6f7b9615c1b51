#include "sim/asic/norm_accelerator.hpp"

#include "sim/asic/sim_time.hpp"
#include "sim/asic/input_path_unit.hpp"
#include "sim/asic/reread_stream.hpp"

namespace normsim::asic {

NormAccelerator::NormAccelerator(sc_core::sc_module_name n, const RunGeometry& g, const AsicConfig& cfg,
                                 const core::MergeSchedule& merge, RowArithmetic* arith, std::atomic<int64_t>* rows_done_out)
    : sc_module(n),
      dram("dram", cfg.dram, cfg.clock_ghz),
      sram("sram", cfg.sram),
      free_slots_("free_row_buffers", cfg.rows_in_flight),
      stats_to_normalize_("stats_to_normalize", cfg.rows_in_flight),
      input_to_lanes_("input_to_lanes", std::max(2, cfg.rows_in_flight * g.chunks)),
      reread_fifo_("reread_fifo", g.reread_fifo_transactions),
      // The re-read stream is at most rows in flight rows behind the lanes (WelfordLaneArray::step).
      sum_in_dram_("sum_in_dram", cfg.rows_in_flight, HandshakeFifo<double>::Wake::next_delta),
      params_on_chip_("params_on_chip"),
      adder_done_("adder_done"),
      g_(g),
      row_limit_(g.rows) {
  AcceleratorChannels ch{free_slots_, input_to_lanes_, stats_to_normalize_, reread_fifo_,
                         sum_in_dram_, params_on_chip_, adder_done_};
  UnitBuild build{g, cfg, merge, dram, sram, arith, rows_done_out, row_limit_, [this] { on_row_done(); }};
  for (const AsicUnitEntry& e : asic_units())
    if (e.enabled(g)) units_.emplace_back(&e, e.make(build, ch));
  for (int i = 0; i < cfg.rows_in_flight; ++i) {
    slots_.push_back(std::make_unique<RowSlot>());
    slots_.back()->index = i;
    free_slots_.preload(slots_.back().get());
  }
  sram.hold(g.param_bytes);  // gamma/beta live on chip for the whole run
  SC_THREAD(trace_process);
}

const sc_core::sc_module& NormAccelerator::unit(std::string_view name) const {
  for (const auto& [e, m] : units_)
    if (e->name == name) return *m;
  throw std::logic_error("norm_accelerator: no unit " + std::string(name));
}
const WelfordLaneArray& NormAccelerator::lanes() const { return static_cast<const WelfordLaneArray&>(unit("welford_lanes")); }
const RsqrtUnit& NormAccelerator::rsqrt() const { return static_cast<const RsqrtUnit&>(unit("rsqrt")); }
const NormalizeUnit& NormAccelerator::normalize() const { return static_cast<const NormalizeUnit&>(unit("normalize")); }

std::vector<core::StatSet> NormAccelerator::stats() const {
  std::vector<core::StatSet> all;
  for (const auto& [e, m] : units_)
    if (const core::StatGroup* s = e->stats(*m)) all.push_back(s->snapshot());
  all.push_back(dram.stats().snapshot());
  all.push_back(sram.stats().snapshot());
  return all;
}

std::vector<double> NormAccelerator::counter_values(std::vector<bool>* peak) const {
  std::vector<double> v;
  if (peak) {  // by name: the maxima among the counters
    peak->clear();
    for (const core::StatSet& s : stats())
      for (const core::Stat& st : s.stats) peak->push_back(st.name.find("peak") != std::string::npos);
    peak->insert(peak->end(), 2, false);
  }
  for (const auto& [e, m] : units_)
    if (const core::StatGroup* s = e->stats(*m)) s->append_values(v);
  dram.stats().append_values(v);
  sram.stats().append_values(v);
  v.push_back(static_cast<double>(dram.bytes_read()));
  v.push_back(static_cast<double>(dram.bytes_written()));
  return v;
}

void NormAccelerator::fast_forward(const SteadyStateDetector::Config& c) {
  detector_ = std::make_unique<SteadyStateDetector>(c);
  ff_result_ = detector_->result();
}

PeriodState NormAccelerator::period_state() const {
  PeriodState s;
  s.now = now_cycles();
  s.row = normalize().rows_done() - 1;
  for (const auto& [e, m] : units_)
    if (const auto* u = dynamic_cast<const HasPeriodState*>(m.get())) u->period_state(s);
  s.queue(free_slots_.contents());
  s.queue(stats_to_normalize_.contents());
  s.queue(input_to_lanes_.contents());
  s.queue(reread_fifo_.contents());
  s.queue(sum_in_dram_.contents());
  dram.period_state(s);
  sram.period_state(s);
  return s;
}

void NormAccelerator::on_row_done() {
  if (!detector_ || !detector_->looks_at(normalize().rows_done() - 1)) return;
  int64_t issued = 0;
  for (const auto& [e, m] : units_) {
    if (const auto* u = dynamic_cast<const InputPathUnit*>(m.get())) issued = std::max(issued, u->rows_issued());
    if (const auto* u = dynamic_cast<const RereadStream*>(m.get())) issued = std::max(issued, u->rows_issued());
  }
  if (counter_is_peak_.empty()) (void)counter_values(&counter_is_peak_);
  const int64_t cut = detector_->observe(period_state(), counter_values(), counter_is_peak_, issued);
  if (cut >= 0) row_limit_.cut(cut);
  ff_result_ = detector_->result();
}

template <class T>
void NormAccelerator::trace_fifo(sc_core::sc_trace_file* tf, FifoTrace<T>& t) {
  // "norm_accelerator.input_to_lanes.occupancy": SystemC's VCD writer makes
  // each dotted prefix a scope.
  const std::string fifo = t.fifo->name();
  sc_core::sc_trace(tf, t.waves.occupancy, fifo + ".occupancy");
  sc_core::sc_trace(tf, t.waves.depth, fifo + ".depth");
  const std::string top = name();
  auto port = [&](PortWaves& p, const std::string& unit, const char* dir) {
    const std::string base = top + "." + unit + "." + dir + "_" + std::string(t.fifo->basename());
    sc_core::sc_trace(tf, p.valid, base + ".valid");
    sc_core::sc_trace(tf, p.ready, base + ".ready");
    sc_core::sc_trace(tf, p.fire, base + ".fire");
  };
  if (!t.writer.empty()) port(t.out_of_writer, t.writer, "out");
  if (!t.reader.empty()) port(t.into_reader, t.reader, "in");
}

template <class T>
void NormAccelerator::sample(FifoTrace<T>& t) {
  const HandshakeFifo<T>& f = *t.fifo;
  t.waves.occupancy = f.num_available();
  t.waves.depth = f.depth();
  // The writer's side: it offers a token (moved one, or is stalled on full); the FIFO is ready while not full.
  t.out_of_writer.fire = static_cast<int>(f.writes() - t.writes);
  t.out_of_writer.valid = t.out_of_writer.fire > 0 || f.writers_waiting() > 0;
  t.out_of_writer.ready = f.ready();
  // The reader's side: the FIFO offers a token while not empty; the reader is ready when it took one or waits.
  t.into_reader.fire = static_cast<int>(f.reads() - t.reads);
  t.into_reader.valid = f.valid();
  t.into_reader.ready = t.into_reader.fire > 0 || f.readers_waiting() > 0;
  t.writes = f.writes();
  t.reads = f.reads();
}

void NormAccelerator::trace(sc_core::sc_trace_file* tf, int64_t rows) {
  tracing_ = true;
  trace_rows_ = rows;
  // Each FIFO with the units on its sides (the bindings in the constructor).
  free_slots_trace_.reset(new FifoTrace<RowSlot*>{&free_slots_, "normalize", "input_path", {}, {}, {}, 0, 0});
  input_trace_.reset(new FifoTrace<ChunkToken>{&input_to_lanes_, "input_path", "welford_lanes", {}, {}, {}, 0, 0});
  stats_trace_.reset(new FifoTrace<RowSlot*>{&stats_to_normalize_, "welford_lanes", "normalize", {}, {}, {}, 0, 0});
  reread_trace_.reset(new FifoTrace<Grant>{&reread_fifo_, "reread_stream", "normalize", {}, {}, {}, 0, 0});
  sum_trace_.reset(new FifoTrace<double>{&sum_in_dram_, "welford_lanes", "reread_stream", {}, {}, {}, 0, 0});
  trace_fifo(tf, *free_slots_trace_);
  trace_fifo(tf, *input_trace_);
  trace_fifo(tf, *stats_trace_);
  trace_fifo(tf, *reread_trace_);
  trace_fifo(tf, *sum_trace_);
  // The announced cycles (-1 until announced).
  sc_core::sc_trace(tf, params_on_chip_.traced(), params_on_chip_.name() + std::string(".cycle"));
  sc_core::sc_trace(tf, adder_done_.traced(), adder_done_.name() + std::string(".cycle"));
  auto memory_port = [&](MemoryPortWaves& p, const std::string& base) {
    sc_core::sc_trace(tf, p.requests, base + ".request");
    sc_core::sc_trace(tf, p.outstanding, base + ".outstanding");
    sc_core::sc_trace(tf, p.grant, base + ".grant");
  };
  memory_port(dram_port_, std::string(dram.name()) + ".port");
  memory_port(sram_read_port_, std::string(sram.name()) + ".read_port");
  memory_port(sram_write_port_, std::string(sram.name()) + ".write_port");
  sc_core::sc_trace(tf, dram_bytes_read_, std::string(dram.name()) + ".bytes_read");
  sc_core::sc_trace(tf, dram_bytes_written_, std::string(dram.name()) + ".bytes_written");
  sc_core::sc_trace(tf, sram_held_bytes_, std::string(sram.name()) + ".held_bytes");
  sc_core::sc_trace(tf, rows_done_, std::string(normalize().name()) + ".rows_done");
  dram.port().log_grants(true);
  sram.read_port().log_grants(true);
  sram.write_port().log_grants(true);
}

void NormAccelerator::trace_process() {
  if (!tracing_) return;
  // Sample once a cycle for the first rows (the trace is for looking, not for counting).
  const int64_t trace_rows = std::min<int64_t>(g_.rows, trace_rows_);
  auto memory_port = [](MemoryPortWaves& p, BandwidthServer& port, double now) {
    const BandwidthServer::Activity a = port.activity(now);
    p.requests = a.requests;
    p.outstanding = a.outstanding;
    p.grant = a.granted;
  };
  const bool shared_sram_port = &sram.read_port() == &sram.write_port();
  while (normalize().rows_done() < trace_rows) {
    const double now = now_cycles();
    sample(*free_slots_trace_);
    sample(*input_trace_);
    sample(*stats_trace_);
    sample(*reread_trace_);
    sample(*sum_trace_);
    memory_port(dram_port_, dram.port(), now);
    memory_port(sram_read_port_, sram.read_port(), now);
    if (!shared_sram_port) memory_port(sram_write_port_, sram.write_port(), now);
    dram_bytes_read_ = static_cast<double>(dram.bytes_read());
    dram_bytes_written_ = static_cast<double>(dram.bytes_written());
    sram_held_bytes_ = static_cast<double>(sram.held_bytes());
    rows_done_ = static_cast<int>(normalize().rows_done());
    wait(sc_core::sc_time(1, sc_core::SC_NS));
  }
  // The last sample, once the traced rows are done; then the model runs on untraced.
  rows_done_ = static_cast<int>(normalize().rows_done());
  dram.port().log_grants(false);
  sram.read_port().log_grants(false);
  sram.write_port().log_grants(false);
}

}  // namespace normsim::asic
