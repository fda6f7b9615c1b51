#include "sim/asic/norm_accelerator.hpp"

#include <memory>
#include <stdexcept>

#include "sim/asic/sim_time.hpp"

namespace normsim::asic {

NormAccelerator::NormAccelerator(sc_core::sc_module_name n, const config::Workload& w, const config::Arch& a,
                                 const RunGeometry& g, const AsicConfig& cfg,
                                 const core::MergeSchedule& merge, RowArithmetic* arith, std::atomic<int64_t>* rows_done_out)
    : sc_module(n),
      dram("dram", cfg.dram, cfg.clock_ghz),
      sram("sram", cfg.sram),
      g_(g),
      row_limit_(g.rows) {
  // The netlist's channels, then its units, each bound as it is built.
  const Netlist netlist = make_netlist(g, cfg);
  for (const Netlist::Connection& k : netlist.connections) {
    const ChannelDecl& d = *k.channel;
    Channel c{&d, d.make ? d.make(d, g, cfg) : nullptr, nullptr, nullptr, nullptr, k.writer.unit,
              k.readers.empty() ? std::string() : k.readers.front().unit, {}, {}, {}};
    c.object = dynamic_cast<const sc_core::sc_object*>(c.channel.get());
    c.fifo = dynamic_cast<const FifoState*>(c.channel.get());
    c.signal = dynamic_cast<const CycleSignal*>(c.channel.get());
    channels_.push_back(std::move(c));
  }
  UnitBuild build{w, a, g, cfg, merge, arith, rows_done_out, row_limit_, [this] { on_row_done(); }};
  for (const AsicUnitEntry& e : asic_units())
    if (e.make && e.enabled(g)) {
      units_.emplace_back(&e, e.make(build));
      bind_ports(e, *units_.back().second);
      // Clocked, a unit acts in its slot of the cycle (sim_time.hpp's CycleSlot).
      if (auto* clocked = dynamic_cast<CycleSlot*>(units_.back().second.get()))
        clocked->set_cycle_slot(cycle_slot(e.name));
    }
  dram.require_edges(g_whole_cycles);
  sram.require_edges(g_whole_cycles);
  auto& free_slots = dynamic_cast<HandshakeFifo<RowSlot*>&>(*channel("free_row_buffers").channel);
  for (int i = 0; i < cfg.rows_in_flight; ++i) {
    slots_.push_back(std::make_unique<RowSlot>());
    slots_.back()->index = i;
    free_slots.preload(slots_.back().get());
  }
  sram.hold(g.param_bytes);  // gamma/beta live on chip for the whole run
  SC_THREAD(trace_process);
}

NormAccelerator::Channel* NormAccelerator::find_channel(std::string_view name) {
  for (Channel& c : channels_)
    if (c.decl->name == name) return &c;
  return nullptr;
}
const NormAccelerator::Channel& NormAccelerator::channel(std::string_view name) const {
  if (const Channel* c = const_cast<NormAccelerator&>(*this).find_channel(name)) return *c;
  throw std::logic_error("norm_accelerator: no channel " + std::string(name));
}
NormAccelerator::Channel& NormAccelerator::channel(std::string_view name) {
  return const_cast<Channel&>(static_cast<const NormAccelerator&>(*this).channel(name));
}

void NormAccelerator::bind_ports(const AsicUnitEntry& e, sc_core::sc_module& unit) {
  for (const PortDecl& p : e.ports) {
    sc_core::sc_object* port = nullptr;
    for (sc_core::sc_object* o : unit.get_child_objects())
      if (p.port == o->basename()) port = o;
    if (!find_channel(p.channel) && accelerator_channel(p.channel).kind == ChannelKind::transport && p.dir == PortDir::out)
      continue;  // a transport no unit of this pass answers: the port is left unbound (an optional one)
    Channel& c = channel(p.channel);
    sc_core::sc_interface* to = c.channel.get();
    if (c.decl->kind == ChannelKind::memory) to = memory(c.decl->name);
    if (c.decl->kind == ChannelKind::transport) {
      // The unit that reads it is the channel (built before the units that call it).
      to = nullptr;
      for (auto& [te, tm] : units_)
        if (te->name == c.reader) to = dynamic_cast<sc_core::sc_interface*>(tm.get());
      if (p.dir == PortDir::in) port = &unit;
    }
    if (!port || !to || !c.decl->bind(*port, *to, p.dir))
      throw std::logic_error("norm_accelerator: unit " + std::string(e.name) + " has no " +
                             (p.dir == PortDir::in ? "input" : "output") + " port " + std::string(p.port) + " for channel " +
                             std::string(p.channel) + " (" + std::string(c.decl->token) + ")");
  }
}

sc_core::sc_interface* NormAccelerator::memory(std::string_view name) {
  if (name == dram.basename()) return &dram;
  if (name == sram.basename()) return &sram;
  return nullptr;
}

const sc_core::sc_module& NormAccelerator::unit(std::string_view name) const {
  for (const auto& [e, m] : units_)
    if (e->name == name) return *m;
  throw std::logic_error("norm_accelerator: no unit " + std::string(name));
}
// By their places in the netlist: the lanes read the input path's
// transactions; the output unit hands the row buffers back.
const WelfordLaneArray& NormAccelerator::lanes() const {
  return static_cast<const WelfordLaneArray&>(unit(channel("input_to_lanes").reader));
}
const NormalizeUnit& NormAccelerator::output() const {
  return static_cast<const NormalizeUnit&>(unit(channel("free_row_buffers").writer));
}

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

std::vector<std::pair<std::string_view, double>> NormAccelerator::finish_after_rows() {
  std::vector<std::pair<std::string_view, double>> done;
  const RowsDone rows{lanes().last_row_cycle(), output().last_output_cycle()};
  // Issued after the rows at the times they compute, not by a clocked unit.
  dram.require_edges(false);
  sram.require_edges(false);
  for (const AsicUnitEntry& e : asic_units()) {
    if (!e.after_rows || !e.enabled(g_)) continue;
    sc_core::sc_module* built = nullptr;
    for (auto& [be, m] : units_)
      if (be == &e) built = m.get();
    done.emplace_back(e.name, e.after_rows(built, g_, dram, rows));
  }
  return done;
}

std::vector<std::string> NormAccelerator::counter_names() const {
  std::vector<std::string> names;
  for (const core::StatSet& s : stats())
    for (const core::Stat& st : s.stats) names.push_back(s.unit + "." + st.name);
  names.push_back("dram.total_bytes_read");
  names.push_back("dram.total_bytes_written");
  return names;
}

void NormAccelerator::fast_forward(const SteadyStateDetector::Config& c) {
  detector_ = std::make_unique<SteadyStateDetector>(c);
  ff_result_ = detector_->result();
}

PeriodState NormAccelerator::period_state() const {
  PeriodState s;
  s.now = now_cycles();
  s.row = output().rows_done() - 1;
  for (const auto& [e, m] : units_) e->period_state(*m, s);
  for (const Channel& c : channels_)
    if (c.channel) c.decl->period_state(*c.channel, s);
  dram.period_state(s);
  sram.period_state(s);
  return s;
}

void NormAccelerator::on_row_done() {
  if (!detector_ || !detector_->looks_at(output().rows_done() - 1)) return;
  int64_t issued = 0;
  for (const auto& [e, m] : units_)
    if (e->rows_issued) issued = std::max(issued, e->rows_issued(*m));
  if (counter_is_peak_.empty()) (void)counter_values(&counter_is_peak_);
  const int64_t cut = detector_->observe(period_state(), counter_values(), counter_is_peak_, issued);
  if (cut >= 0) row_limit_.cut(cut);
  ff_result_ = detector_->result();
}

void NormAccelerator::log_edges(EdgeLog& log) {
  if (!g_whole_cycles) throw std::logic_error("norm_accelerator: an edge log needs whole cycles (asic.timing: cycle)");
  dram.log_edges(&log);
  sram.log_edges(&log);
  struct Counted {
    const FifoState* fifo;
    std::string in, out;
    uint64_t writes = 0, reads = 0;
  };
  auto counted = std::make_shared<std::vector<Counted>>();
  for (const Channel& c : channels_)
    if (c.fifo) counted->push_back({c.fifo, std::string(c.decl->name) + ".write", std::string(c.decl->name) + ".read"});
  edge_logger_ = std::make_unique<AfterUnits>("edge_log", [this, counted, &log] {
    const auto edge = static_cast<int64_t>(now_cycles());
    for (Counted& c : *counted) {
      log.add(c.in, edge, static_cast<int64_t>(c.fifo->writes() - c.writes));
      log.add(c.out, edge, static_cast<int64_t>(c.fifo->reads() - c.reads));
      c.writes = c.fifo->writes();
      c.reads = c.fifo->reads();
    }
    return output().rows_done() < row_limit();
  });
}

void NormAccelerator::trace_channel(sc_core::sc_trace_file* tf, Channel& c) {
  // "norm_accelerator.input_to_lanes.occupancy": SystemC's VCD writer makes
  // each dotted prefix a scope.
  if (!c.object) return;  // a transport: a call, nothing to sample
  const std::string channel = c.object->name();
  if (c.signal) {  // the announced cycle (-1 until announced)
    sc_core::sc_trace(tf, c.signal->traced(), channel + ".cycle");
    return;
  }
  sc_core::sc_trace(tf, c.waves.occupancy, channel + ".occupancy");
  sc_core::sc_trace(tf, c.waves.depth, channel + ".depth");
  const std::string top = name();
  auto port = [&](PortWaves& p, const std::string& unit, const char* dir) {
    const std::string base = top + "." + unit + "." + dir + "_" + std::string(c.object->basename());
    sc_core::sc_trace(tf, p.valid, base + ".valid");
    sc_core::sc_trace(tf, p.ready, base + ".ready");
    sc_core::sc_trace(tf, p.fire, base + ".fire");
  };
  if (!c.writer.empty()) port(c.out_of_writer, c.writer, "out");
  if (!c.reader.empty()) port(c.into_reader, c.reader, "in");
}

void NormAccelerator::sample(Channel& c) {
  if (!c.fifo) return;
  const FifoState& f = *c.fifo;
  c.waves.occupancy = f.occupancy();
  c.waves.depth = f.depth();
  // The writer's side: it offers a token (moved one, or is stalled on full); the FIFO is ready while not full.
  c.out_of_writer.fire = static_cast<int>(f.writes() - c.writes);
  c.out_of_writer.valid = c.out_of_writer.fire > 0 || f.writers_waiting() > 0;
  c.out_of_writer.ready = f.ready();
  // The reader's side: the FIFO offers a token while not empty; the reader is ready when it took one or waits.
  c.into_reader.fire = static_cast<int>(f.reads() - c.reads);
  c.into_reader.valid = f.valid();
  c.into_reader.ready = c.into_reader.fire > 0 || f.readers_waiting() > 0;
  c.writes = f.writes();
  c.reads = f.reads();
}

void NormAccelerator::trace(sc_core::sc_trace_file* tf, int64_t rows) {
  tracing_ = true;
  trace_rows_ = rows;
  // Each channel with the built units on its sides (the netlist).
  for (Channel& c : channels_) trace_channel(tf, c);
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
  sc_core::sc_trace(tf, rows_done_, std::string(output().name()) + ".rows_done");
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
  while (output().rows_done() < trace_rows) {
    const double now = now_cycles();
    for (Channel& c : channels_) sample(c);
    memory_port(dram_port_, dram.port(), now);
    memory_port(sram_read_port_, sram.read_port(), now);
    if (!shared_sram_port) memory_port(sram_write_port_, sram.write_port(), now);
    dram_bytes_read_ = static_cast<double>(dram.bytes_read());
    dram_bytes_written_ = static_cast<double>(dram.bytes_written());
    sram_held_bytes_ = static_cast<double>(sram.held_bytes());
    rows_done_ = static_cast<int>(output().rows_done());
    wait(sc_core::sc_time(1, sc_core::SC_NS));
  }
  // The last sample, once the traced rows are done; then the model runs on untraced.
  rows_done_ = static_cast<int>(output().rows_done());
  dram.port().log_grants(false);
  sram.read_port().log_grants(false);
  sram.write_port().log_grants(false);
}

}  // namespace normsim::asic
