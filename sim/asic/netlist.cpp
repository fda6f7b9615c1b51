#include "sim/asic/netlist.hpp"

#include <stdexcept>

#include "sim/asic/cycle_signal.hpp"
#include "sim/asic/handshake_fifo.hpp"
#include "sim/asic/memory_models.hpp"
#include "sim/asic/param_grad_accumulator.hpp"
#include "sim/asic/row_slot.hpp"
#include "sim/asic/row_transport.hpp"
#include "sim/asic/unit_registry.hpp"

namespace normsim::asic {

namespace {

template <class T>
std::unique_ptr<sc_core::sc_interface> make_fifo(const ChannelDecl& d, const RunGeometry& g, const AsicConfig& c) {
  return std::make_unique<HandshakeFifo<T>>(std::string(d.name).c_str(), d.depth(g, c));
}
// A FIFO whose writer announces at the end of its step: its reader wakes a delta later.
template <class T>
std::unique_ptr<sc_core::sc_interface> make_late_fifo(const ChannelDecl& d, const RunGeometry& g, const AsicConfig& c) {
  return std::make_unique<HandshakeFifo<T>>(std::string(d.name).c_str(), d.depth(g, c), HandshakeFifo<T>::Wake::next_delta);
}
std::unique_ptr<sc_core::sc_interface> make_signal(const ChannelDecl& d, const RunGeometry&, const AsicConfig&) {
  return std::make_unique<CycleSignal>(std::string(d.name).c_str());
}

template <class T>
bool bind_fifo(sc_core::sc_object& port, sc_core::sc_interface& channel, PortDir dir) {
  auto& fifo = dynamic_cast<HandshakeFifo<T>&>(channel);
  if (dir == PortDir::in) {
    auto* p = dynamic_cast<sc_core::sc_fifo_in<T>*>(&port);
    if (p) (*p)(fifo);
    return p != nullptr;
  }
  auto* p = dynamic_cast<sc_core::sc_fifo_out<T>*>(&port);
  if (p) (*p)(fifo);
  return p != nullptr;
}
bool bind_signal(sc_core::sc_object& port, sc_core::sc_interface& channel, PortDir dir) {
  auto& signal = dynamic_cast<CycleSignal&>(channel);
  if (dir == PortDir::in) {
    auto* p = dynamic_cast<CycleIn*>(&port);
    if (p) (*p)(signal);
    return p != nullptr;
  }
  auto* p = dynamic_cast<CycleOut*>(&port);
  if (p) (*p)(signal);
  return p != nullptr;
}

// `port` is the initiator's port (out), or the target unit itself (in:
// it must implement the transport's interface If).
template <class If>
bool bind_transport(sc_core::sc_object& port, sc_core::sc_interface& target, PortDir dir) {
  auto* t = dynamic_cast<If*>(&target);
  if (dir == PortDir::in) return t != nullptr && dynamic_cast<sc_core::sc_interface*>(&port) == &target;
  auto* p = dynamic_cast<sc_core::sc_port_b<If>*>(&port);
  if (p && t) (*p)(*t);
  return p != nullptr && t != nullptr;
}

// `port` is a unit's port the memory serves; `memory` the model.
template <class If>
bool bind_memory(sc_core::sc_object& port, sc_core::sc_interface& memory, PortDir) {
  auto* m = dynamic_cast<If*>(&memory);
  auto* p = dynamic_cast<sc_core::sc_port_b<If>*>(&port);
  if (p && m) (*p)(*m);
  return p != nullptr && m != nullptr;
}

template <class T>
void fifo_period_state(const sc_core::sc_interface& channel, PeriodState& s) {
  s.queue(dynamic_cast<const HandshakeFifo<T>&>(channel).contents());
}
void no_period_state(const sc_core::sc_interface&, PeriodState&) {}
// A pool of free row buffers: what a free buffer last held is dead (the input
// path overwrites it when it takes the buffer), so only how many are free is
// state. With more buffers than the rows ever in flight, the unused ones
// would otherwise keep the state from repeating.
template <class T>
void pool_period_state(const sc_core::sc_interface& channel, PeriodState& s) {
  s.value(static_cast<double>(dynamic_cast<const HandshakeFifo<T>&>(channel).contents().size()));
}

template <class T>
constexpr ChannelDecl fifo(std::string_view name, std::string_view token, std::string_view summary,
                           int (*depth)(const RunGeometry&, const AsicConfig&), bool late = false) {
  return {name, token, summary, ChannelKind::fifo, depth, late ? make_late_fifo<T> : make_fifo<T>, bind_fifo<T>,
          fifo_period_state<T>};
}
template <class T>
constexpr ChannelDecl pool(std::string_view name, std::string_view token, std::string_view summary,
                           int (*depth)(const RunGeometry&, const AsicConfig&)) {
  return {name, token, summary, ChannelKind::fifo, depth, make_fifo<T>, bind_fifo<T>, pool_period_state<T>};
}
constexpr ChannelDecl signal(std::string_view name, std::string_view summary) {
  return {name, "cycle", summary, ChannelKind::signal, nullptr, make_signal, bind_signal, no_period_state};
}
template <class If>
constexpr ChannelDecl transport(std::string_view name, std::string_view token, std::string_view summary) {
  return {name, token, summary, ChannelKind::transport, nullptr, nullptr, bind_transport<If>, no_period_state};
}
// Its state is the memory model's own (NormAccelerator adds it).
template <class If>
constexpr ChannelDecl memory(std::string_view name, std::string_view summary) {
  return {name, "transfer", summary, ChannelKind::memory, nullptr, nullptr, bind_memory<If>, no_period_state};
}
int rows_in_flight(const RunGeometry&, const AsicConfig& c) { return c.rows_in_flight; }

const std::vector<ChannelDecl> kChannels = {
    pool<RowSlot*>("free_row_buffers", "row buffer", "row buffers the output unit has emptied, back to the input path",
                   rows_in_flight),
    fifo<RowSlot*>("stats_to_normalize", "row buffer", "rows with their statistics, lanes (through merge and RSQRT) to normalise",
                   rows_in_flight),
    fifo<RowSlot*>("means_to_dx", "row buffer", "rows with their row means, row-sum lanes (through the tree and S/C) to the dx unit",
                   rows_in_flight),
    fifo<ChunkToken>("input_to_lanes", "transaction", "each row's stream transactions, input path to lanes",
                     [](const RunGeometry& g, const AsicConfig& c) { return std::max(2, c.rows_in_flight * g.chunks); }),
    fifo<Grant>("reread_fifo", "transaction", "the re-read part of each row from DRAM, in row order",
                [](const RunGeometry& g, const AsicConfig&) { return g.reread_fifo_transactions; }),
    // The re-read stream is at most rows in flight rows behind the lanes (WelfordLaneArray::step).
    fifo<double>("sum_in_dram", "cycle", "fused with a re-read: the cycle each row's z is in DRAM, lanes to re-read stream",
                 rows_in_flight, true),
    signal("params_on_chip", "the cycle gamma/beta have landed in their buffer"),
    signal("adder_done", "the cycle a separate adder's last z write is in DRAM"),
    transport<RowTransportIf>("row_to_merge", "row", "each finished row's lane states, lanes to the Chan merge tree"),
    transport<RowTransportIf>("row_to_rsqrt", "row", "each merged row's variance, lanes to the RSQRT unit"),
    transport<RowTransportIf>("row_to_row_sum", "row", "each finished row's S1/S2 lane sums, row-sum lanes to the row-sum tree"),
    transport<RowTransportIf>("row_to_row_mean", "row", "each summed row's S1 and S2, row-sum lanes to the S/C unit"),
    transport<ParamGradIf>("columns_to_accumulator", "columns",
                           "each transaction's columns (dy, x_hat), row-sum lanes to the gradient accumulator"),
    transport<ParamGradIf>("input_to_accumulator", "columns",
                           "dram_rmw: the accumulator's words of each transaction read beside its input, input path to the accumulator"),
    memory<DramIf>("dram", "the DRAM: every unit's reads and writes through one port of its bandwidth and latency"),
    memory<SramIf>("sram", "the SRAM: row buffers, parameters and accumulators through its banks' ports"),
};

}  // namespace

std::span<const ChannelDecl> accelerator_channels() { return kChannels; }

const ChannelDecl& accelerator_channel(std::string_view name) {
  for (const ChannelDecl& d : kChannels)
    if (d.name == name) return d;
  throw std::logic_error("netlist: no channel " + std::string(name));
}

std::string pass_name(const RunGeometry& g) {
  // A Post-Norm backward: a residual stream, or the branch's gradient to make.
  if (g.backward)
    return g.residual_bytes > 0 || g.branch_grad_bytes > 0 || g.branch_pass_bytes > 0 ? "postnorm_backward" : "backward";
  switch (g.fusion) {
    case Fusion::fused: return "fused_residual";
    case Fusion::separate_adder: return "separate_adder";
    case Fusion::none: break;
  }
  return "forward";
}

Netlist make_netlist(const RunGeometry& g, const AsicConfig& c) {
  Netlist n;
  n.pass = pass_name(g);
  for (const AsicUnitEntry& e : asic_units())
    if (e.enabled(g)) n.units.push_back(&e);
  for (const ChannelDecl& d : kChannels) {
    Netlist::Connection k{&d, d.depth ? d.depth(g, c) : 0, {}, {}};
    for (const AsicUnitEntry* e : n.units)
      for (const PortDecl& p : e->ports)
        if (p.channel == d.name) {
          Netlist::End end{std::string(e->name), std::string(p.port)};
          if (p.dir == PortDir::in) {
            if (d.kind != ChannelKind::signal && d.kind != ChannelKind::memory && !k.readers.empty())
              throw std::logic_error("netlist: channel " + std::string(d.name) + " has two readers");
            k.readers.push_back(std::move(end));
          } else {
            if (!k.writer.unit.empty()) throw std::logic_error("netlist: channel " + std::string(d.name) + " has two writers");
            k.writer = std::move(end);
          }
        }
    // A transport nobody built answers is no connection: its caller's port is
    // an optional one (a forward's input path and the accumulator).
    if (d.kind == ChannelKind::transport && k.readers.empty()) continue;
    if (!k.writer.unit.empty() || !k.readers.empty()) n.connections.push_back(std::move(k));
  }
  return n;
}

}  // namespace normsim::asic
