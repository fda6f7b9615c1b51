// The accelerator as a netlist: its channels, one row each (name, token,
// depth, summary), and each unit's ports bound to them by name (the
// `ports` of its asic_units() entry). NormAccelerator creates, binds and
// traces the channels from these rows alone, and `normsim netlist` prints
// the instances and connections a run would build. A new hand-over between
// units is one row here and one port in each of its two units' entries.
#pragma once

#include <systemc.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/asic/asic_config.hpp"
#include "sim/asic/run_geometry.hpp"
#include "sim/asic/steady_state.hpp"

namespace normsim::asic {

struct AsicUnitEntry;

enum class PortDir { in, out };
/// A FIFO of tokens (ready/valid), a cycle announced once, a blocking
/// transport to a unit that implements it (row_transport.hpp), or a memory
/// (memory_models.hpp) serving the ports of every unit that uses it.
enum class ChannelKind { fifo, signal, transport, memory };

/// A unit's port (its sc_port member's name) and the channel it binds to.
struct PortDecl {
  std::string_view port;
  std::string_view channel;
  PortDir dir;
};

/// One channel between units: a HandshakeFifo of `token`s (ready/valid,
/// `depth` entries), a CycleSignal (a cycle announced once), or a blocking
/// transport whose far end is the unit that reads it (its `In` port in the
/// registry names the interface it implements, not an sc_port): whichever
/// unit the pass builds there. A memory's far end is the accelerator's
/// memory model of its name; its readers are the units whose ports it serves.
struct ChannelDecl {
  std::string_view name;     ///< its SystemC name and the VCD scope
  std::string_view token;    ///< what one entry carries ("cycle" for a signal, "row" for a transport)
  std::string_view summary;  ///< one line, for the netlist and docs
  ChannelKind kind = ChannelKind::fifo;
  /// Entries of a FIFO for this run (null: none, a signal or transport).
  int (*depth)(const RunGeometry& g, const AsicConfig& c) = nullptr;
  /// Builds the channel (null for a transport: its target unit is the channel).
  std::unique_ptr<sc_core::sc_interface> (*make)(const ChannelDecl& d, const RunGeometry& g, const AsicConfig& c) = nullptr;
  /// Binds `port` (a unit's sc_port) to `channel`; false when the port's
  /// type does not fit this channel's direction and token.
  bool (*bind)(sc_core::sc_object& port, sc_core::sc_interface& channel, PortDir dir) = nullptr;
  /// Adds the tokens it holds to a fast-forward snapshot (nothing for a signal).
  void (*period_state)(const sc_core::sc_interface& channel, PeriodState& s) = nullptr;
};

/// Every channel, in the order NormAccelerator builds them (and snapshots them for the fast-forward).
std::span<const ChannelDecl> accelerator_channels();
/// The row named `name`; throws std::logic_error for an unknown name.
const ChannelDecl& accelerator_channel(std::string_view name);

/// The design a run builds: its pass, its unit instances in elaboration
/// order, and each channel with the ports on its two sides.
struct Netlist {
  std::string pass;  ///< forward, fused_residual, separate_adder, backward, postnorm_backward
  std::vector<const AsicUnitEntry*> units;
  struct End {
    std::string unit, port;  ///< "" where no built unit is on that side
  };
  struct Connection {
    const ChannelDecl* channel;
    int depth;  ///< entries (0 for a signal or a transport)
    End writer;
    std::vector<End> readers;  ///< one for a FIFO or a transport; a signal or a memory may have several
  };
  std::vector<Connection> connections;  ///< the channels with a built unit on at least one side
};

/// The pass a run of this geometry simulates.
std::string pass_name(const RunGeometry& g);
/// The netlist of a run with geometry `g` and resolved config `c`.
Netlist make_netlist(const RunGeometry& g, const AsicConfig& c);

}  // namespace normsim::asic
