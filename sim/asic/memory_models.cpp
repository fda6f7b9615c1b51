#include "sim/asic/memory_models.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "sim/asic/edge_log.hpp"
#include "sim/asic/sim_time.hpp"

namespace normsim::asic {

const char* to_string(Traffic t) {
  switch (t) {
    case Traffic::input: return "input";
    case Traffic::input_reread: return "input_reread";
    case Traffic::params: return "params";
    case Traffic::output: return "output";
    case Traffic::stats: return "stats";
    case Traffic::residual: return "residual";
    case Traffic::sum: return "sum";
    case Traffic::adder_read: return "adder_read";
    case Traffic::adder_write: return "adder_write";
    case Traffic::grad: return "grad";
    case Traffic::grad_reread: return "grad_reread";
    case Traffic::saved_stats: return "saved_stats";
    case Traffic::param_grads: return "param_grads";
    case Traffic::partials: return "partials";
    case Traffic::partials_read: return "partials_read";
    case Traffic::grad_acc_read: return "grad_acc_read";
    case Traffic::grad_acc_write: return "grad_acc_write";
    case Traffic::branch_grad: return "branch_grad";
    case Traffic::branch_pass_read: return "branch_pass_read";
    case Traffic::count_: break;
  }
  return "?";
}

namespace {
// "dram.<kind>": each DRAM request's stream in an edge log.
const std::array<const char*, kTrafficKinds> kDramStreams = [] {
  static std::array<std::string, kTrafficKinds> names;
  std::array<const char*, kTrafficKinds> out{};
  for (int k = 0; k < kTrafficKinds; ++k) {
    names[static_cast<size_t>(k)] = std::string("dram.") + to_string(static_cast<Traffic>(k));
    out[static_cast<size_t>(k)] = names[static_cast<size_t>(k)].c_str();
  }
  return out;
}();
}  // namespace

void EdgeRequests::check(const char* memory, double now, const char* what) const {
  if (!on_ || now == now_cycles()) return;
  char line[160];
  std::snprintf(line, sizeof line, "%s: a %s request at cycle %.17g from a clocked unit acting at cycle %.17g", memory, what,
                now, now_cycles());
  throw std::logic_error(line);
}

void EdgeRequests::logged(const char* stream, const char* done, double now, double bytes, const Grant& g) const {
  if (!log_) return;
  log_->add(stream, static_cast<int64_t>(now));
  log_->add_bytes(stream, static_cast<int64_t>(now), static_cast<int64_t>(bytes));
  log_->add(done, static_cast<int64_t>(edge_of(g.done)));
}

DramModel::DramModel(sc_core::sc_module_name n, const DramConfig& cfg, double clock_ghz)
    : DramModel(n, cfg, cfg.port(clock_ghz)) {}

DramModel::DramModel(sc_core::sc_module_name n, const DramConfig& cfg, const DramPort& port)
    : sc_module(n), cfg_(cfg), port_(port.sustained_bytes_per_cycle, core::Cycles(port.latency_cycles.value())) {
  for (int k = 0; k < kTrafficKinds; ++k)
    stats_.add(std::string("bytes.") + to_string(static_cast<Traffic>(k)), "bytes", "bytes moved, by what they carry", &bytes_[k]);
  stats_.add("busy_cycles", "cycles", "cycles the port moved bytes", [this] { return busy_cycles(); });
}

Grant DramModel::read(double now, double bytes, Traffic kind) {
  check("dram", now, to_string(kind));
  bytes_[static_cast<int>(kind)] += static_cast<uint64_t>(bytes);
  read_bytes_ += static_cast<uint64_t>(bytes);
  const Grant g = port_.issue(now, bytes);
  logged(kDramStreams[static_cast<int>(kind)], "dram.done", now, bytes, g);
  return g;
}

Grant DramModel::write(double now, double bytes, Traffic kind) {
  check("dram", now, to_string(kind));
  bytes_[static_cast<int>(kind)] += static_cast<uint64_t>(bytes);
  write_bytes_ += static_cast<uint64_t>(bytes);
  const Grant g = port_.issue(now, bytes);
  logged(kDramStreams[static_cast<int>(kind)], "dram.done", now, bytes, g);
  return g;
}

uint64_t DramModel::bytes_read() const { return read_bytes_; }
uint64_t DramModel::bytes_written() const { return write_bytes_; }

SramModel::SramModel(sc_core::sc_module_name n, const SramConfig& cfg)
    : sc_module(n),
      cfg_(cfg),
      read_port_(core::BytesPerCycle(static_cast<double>(cfg.banks) * cfg.access_bytes), core::Cycles(cfg.latency_cycles)),
      write_port_(core::BytesPerCycle(static_cast<double>(cfg.banks) * cfg.access_bytes), core::Cycles(cfg.latency_cycles)),
      shared_(cfg.ports == 1) {
  stats_.add("bytes_read", "bytes", "bytes read by the row buffers' replay", &read_bytes_);
  stats_.add("bytes_written", "bytes", "bytes written into the row buffers", &write_bytes_);
  stats_.add("peak_occupancy_bytes", "bytes", "most bytes held at once (parameters and row buffers)", &peak_);
  stats_.add("busy_cycles", "cycles", "cycles a port moved bytes", [this] { return busy_cycles(); });
}

Grant SramModel::read(double now, double bytes, double not_before) {
  check("sram", now, "read");
  read_bytes_ += static_cast<uint64_t>(bytes);
  const Grant g = read_port_.issue(now, bytes, not_before);
  logged("sram.read", "sram.done", now, bytes, g);
  return g;
}

Grant SramModel::write(double now, double bytes) {
  check("sram", now, "write");
  write_bytes_ += static_cast<uint64_t>(bytes);
  const Grant g = (shared_ ? read_port_ : write_port_).issue(now, bytes);
  logged("sram.write", "sram.done", now, bytes, g);
  return g;
}

void SramModel::hold(int64_t delta) {
  held_ += delta;
  if (held_ > static_cast<int64_t>(peak_)) peak_ = static_cast<uint64_t>(held_);
}

double SramModel::busy_cycles() const { return read_port_.busy_cycles() + (shared_ ? 0.0 : write_port_.busy_cycles()); }

}  // namespace normsim::asic
