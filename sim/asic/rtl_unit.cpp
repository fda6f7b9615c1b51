#include "sim/asic/rtl_unit.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include "sim/asic/netlist.hpp"
#include "sim/asic/port_signal.hpp"
#include "sim/asic/sim_time.hpp"
#include "sim/config/config_error.hpp"
#include "sim/core/merge_schedule.hpp"

#ifdef NORMSIM_WITH_RTL_UNIT
#include "Vrtl_unit.h"
#endif

namespace normsim::asic {

namespace {

// The built RTL's sizes (CMakeLists.txt verilates tb_forward.v with these).
constexpr int kMaxTransactions = 16;  // MAXCH: transactions a row
constexpr int kMaxRowBuffers = 8;     // BUF_LOG2 = 3 (and the rows waiting for the normalise unit)
constexpr int kMaxLanesFifo = 64;     // FIFO_LOG2 = 6
constexpr int kMaxRereadFifo = 32;    // RR_LOG2 = 5
constexpr int64_t kMaxRequestBytes = (int64_t{1} << 24) - 1;  // BYTES_W = 24
constexpr uint32_t kMaxRate = (1u << 24) - 1;                 // RATE_W = 24
constexpr int64_t kMaxLatency = (1 << 16) - 1;                // LAT_W = 16

// A port's rate as num/den in the RTL's fields: the continued fraction's
// first convergent whose quotient is the model's double itself, so both
// sides move the same bytes a cycle (none: the RTL cannot carry it).
std::optional<std::pair<uint32_t, uint32_t>> exact_rate(double rate) {
  if (!(rate > 0) || !std::isfinite(rate)) return std::nullopt;
  uint64_t h_prev = 1, h_prev2 = 0, k_prev = 0, k_prev2 = 1;
  double x = rate;
  for (int i = 0; i < 64; ++i) {
    const double a = std::floor(x);
    if (a > static_cast<double>(kMaxRate)) return std::nullopt;
    const auto ai = static_cast<uint64_t>(a);
    const uint64_t h = ai * h_prev + h_prev2, k = ai * k_prev + k_prev2;
    if (h > kMaxRate || k > kMaxRate) return std::nullopt;
    if (static_cast<double>(h) / static_cast<double>(k) == rate)
      return std::make_pair(static_cast<uint32_t>(h), static_cast<uint32_t>(k));
    if (x == a) return std::nullopt;
    h_prev2 = h_prev, h_prev = h, k_prev2 = k_prev, k_prev = k;
    x = 1.0 / (x - a);
  }
  return std::nullopt;
}

bool whole(double v) { return v == std::floor(v); }

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// The pipeline latencies the lanes' statistics go through (cycles): the
// lanes, the merge tree (and how long it holds a row), the RSQRT unit.
struct StatsLatencies {
  int lanes, merge, merge_occupancy, finish;
  int largest() const { return std::max({lanes, merge, merge_occupancy, finish}); }
};
StatsLatencies stats_latencies(const AsicConfig& c, const core::MergeSchedule& merge) {
  return {c.welford_lanes.latency_cycles, merge.latency_cycles(c.chan_merge_tree.level_cycles),
          merge.occupancy_cycles(c.chan_merge_tree.level_cycles), c.rsqrt.latency_cycles};
}

/// Each act both sides log, the unit that does it, whether it comes a
/// fixed number of times a row (a port's ends do not: they are in time
/// order), and for a memory request, whose bytes both sides log, its
/// place in tb_forward.v's kind_bytes (-1: not a request).
struct ActDecl {
  const char* stream;
  const char* unit;
  const char* act;
  bool per_row;
  int kind_bytes = -1;
  constexpr bool bytes() const { return kind_bytes >= 0; }
};
constexpr ActDecl kActs[] = {
    {"dram.adder_read", "residual_adder_pass", "x or r read", true, 7},
    {"dram.adder_write", "residual_adder_pass", "z write", true, 8},
    {"dram.params", "input_path", "gamma/beta read issued", false, 0},
    {"dram.input", "input_path", "x read issued", true, 1},
    {"dram.residual", "input_path", "r read issued", true, 2},
    {"free_row_buffers.read", "input_path", "row buffer taken", true},
    {"input_to_lanes.write", "input_path", "transaction handed to the lanes", true},
    {"input_to_lanes.read", "welford_lanes", "transaction taken", true},
    {"sram.write", "welford_lanes", "row-buffer write", true, 10},
    {"dram.sum", "welford_lanes", "z write", true, 3},
    {"sum_in_dram.write", "welford_lanes", "z announced to the re-read stream", true},
    {"stats_to_normalize.write", "welford_lanes", "row's statistics out", true},
    {"dram.input_reread", "reread_stream", "re-read issued", true, 4},
    {"reread_fifo.write", "reread_stream", "re-read transaction into its FIFO", true},
    {"stats_to_normalize.read", "normalize", "row taken", true},
    {"reread_fifo.read", "normalize", "re-read transaction taken", true},
    {"sram.read", "normalize", "replay read", true, 9},
    {"dram.output", "normalize", "output write", true, 5},
    {"dram.stats", "normalize", "statistics write", true, 6},
    {"free_row_buffers.write", "normalize", "row buffer handed back", true},
    {"dram.done", "dram", "request's last byte", false},
    {"sram.done", "sram", "request's last byte", false},
};
// tb_forward.v's kind_bytes is 11 kinds x 32 bits: each one some act's.
static_assert([] {
  int seen = 0;
  for (const ActDecl& d : kActs)
    if (d.bytes()) seen |= 1 << d.kind_bytes;
  return seen;
}() == (1 << 11) - 1);

}  // namespace

std::string rtl_unit_mismatch(const RunGeometry& g, const AsicConfig& c, const config::Arch& a) {
  const std::string prefix = "--rtl-full: ";
#ifndef NORMSIM_WITH_RTL_UNIT
  (void)g, (void)c, (void)a;
  return prefix + "this normsim was built without Verilator (tools/bootstrap.sh installs it; rebuild)";
#else
  if (g.backward) return prefix + "key 'pass': backward: the whole unit's RTL is the forward's so far (allowed: a forward workload)";
  if (c.datapaths != 1)
    return prefix + "key 'asic.datapaths': " + std::to_string(c.datapaths) + " (allowed: 1: the RTL is one datapath)";
  const DramPort port = c.dram.port(c.clock_ghz);
  const double rate = port.sustained_bytes_per_cycle.value();
  if (!exact_rate(rate))
    return prefix + "key 'asic.dram.peak_bytes_per_s': " + num(rate) +
           " bytes/cycle has no fraction num/den (each under 2^24) equal to it (allowed: a rate the RTL's port carries)";
  const double latency = port.latency_cycles.value();
  if (!whole(latency) || latency < 1 || latency > kMaxLatency)
    return prefix + "key 'asic.dram.latency_ns': " + num(latency) + " cycles at the clock (allowed: a whole number of cycles, 1 to " +
           std::to_string(kMaxLatency) + ")";
  const double sram_rate = static_cast<double>(c.sram.banks) * c.sram.access_bytes;
  if (!whole(sram_rate) || sram_rate > kMaxRate)
    return prefix + "key 'asic.sram.access_bytes': " + num(sram_rate) + " bytes/cycle over the banks (allowed: whole, under 2^24)";
  if (!whole(c.sram.latency_cycles) || c.sram.latency_cycles < 1 || c.sram.latency_cycles > kMaxLatency)
    return prefix + "key 'asic.sram.latency_cycles': " + num(c.sram.latency_cycles) + " (allowed: whole, 1 to " +
           std::to_string(kMaxLatency) + ")";
  if (c.rows_in_flight > kMaxRowBuffers)
    return prefix + "key 'asic.rows_in_flight': " + std::to_string(c.rows_in_flight) + " (allowed: 1 to " +
           std::to_string(kMaxRowBuffers) + ": the RTL's row buffers)";
  if (g.chunks > kMaxTransactions)
    return prefix + "key 'asic.transaction_elems': transactions of " + std::to_string(g.chunk_elems) +
           " elements (it, or the DRAM window max_outstanding x burst_bytes / 16 if fewer) make " + std::to_string(g.chunks) +
           " a row of " + std::to_string(g.hidden) + " (allowed: at most " + std::to_string(kMaxTransactions) +
           " a row in the RTL)";
  const int lanes_fifo = accelerator_channel("input_to_lanes").depth(g, c);
  if (lanes_fifo > kMaxLanesFifo)
    return prefix + "key 'asic.rows_in_flight': " + std::to_string(c.rows_in_flight) + " rows of " + std::to_string(g.chunks) +
           " transactions make a FIFO to the lanes of " + std::to_string(lanes_fifo) + " (allowed: at most " +
           std::to_string(kMaxLanesFifo) + " in the RTL)";
  if (g.reread_fifo_transactions > kMaxRereadFifo)
    return prefix + "key 'asic.transaction_elems': " + std::to_string(g.chunk_elems) + " makes a re-read FIFO of " +
           std::to_string(g.reread_fifo_transactions) + " transactions (allowed: at most " + std::to_string(kMaxRereadFifo) +
           " in the RTL)";
  const int64_t widest = g.chunk_elems * std::max({g.in_bytes + g.residual_bytes, g.out_bytes});
  if (widest > kMaxRequestBytes || g.param_bytes > kMaxRequestBytes)
    return prefix + "key 'asic.transaction_elems': " + std::to_string(g.chunk_elems) +
           " makes requests over the RTL's 2^24 bytes (allowed: fewer elements a transaction, and gamma/beta under 16 MiB)";
  if (c.dram.window_bytes() > static_cast<double>(std::numeric_limits<uint32_t>::max()))
    return prefix + "key 'asic.dram.max_outstanding': a window of " + num(c.dram.window_bytes()) + " bytes (allowed: under 2^32)";
  if (const int largest = stats_latencies(c, core::MergeSchedule{a.lanes, a.merge.units}).largest(); largest > kMaxLatency)
    return prefix + "key 'asic.rsqrt.latency_cycles': a pipeline latency of " + std::to_string(largest) +
           " cycles on the way to the statistics (allowed: under 2^16 each: the lanes', the merge tree's, the RSQRT unit's)";
  return {};
#endif
}

RtlFullCheck compare_edge_logs(const EdgeLog& model, const EdgeLog& rtl, int64_t rows) {
  RtlFullCheck out;
  out.rows = static_cast<int64_t>(model.edges("free_row_buffers.write").size());
  // The first act that differs, over every stream: the earliest. An act at
  // the same edge on both sides may still differ in its bytes.
  struct Difference {
    const ActDecl* decl = nullptr;
    size_t index = 0, count = 0;
    int64_t model = -1, rtl = -1;              ///< the act's edges
    int64_t model_bytes = -1, rtl_bytes = -1;  ///< a size that differs (both at edge `model`)
    int64_t when() const {
      constexpr int64_t never = std::numeric_limits<int64_t>::max();
      return std::min(model < 0 ? never : model, rtl < 0 ? never : rtl);
    }
  } first;
  auto keep = [&first](const Difference& here) {
    if (!first.decl || here.when() < first.when()) first = here;
  };
  for (const ActDecl& d : kActs) {
    const std::vector<int64_t>& m = model.edges(d.stream);
    const std::vector<int64_t>& r = rtl.edges(d.stream);
    size_t i = 0;
    while (i < m.size() && i < r.size() && m[i] == r[i]) ++i;
    if (i < m.size() || i < r.size()) {
      keep({&d, i, m.size(), i < m.size() ? m[i] : -1, i < r.size() ? r[i] : -1});
      continue;
    }
    if (m.empty()) continue;
    int64_t bytes = 0;
    if (d.bytes()) {
      // Same edges: the bytes asked for at each must be the same too.
      const std::map<int64_t, int64_t>& mb = model.bytes(d.stream);
      const std::map<int64_t, int64_t>& rb = rtl.bytes(d.stream);
      auto a = mb.begin(), b = rb.begin();
      while (a != mb.end() && b != rb.end() && *a == *b) bytes += a->second, ++a, ++b;
      if (a != mb.end() || b != rb.end()) {
        const int64_t edge = std::min(a != mb.end() ? a->first : b->first, b != rb.end() ? b->first : a->first);
        const auto size_at = [edge](const std::map<int64_t, int64_t>& by) {
          const auto it = by.find(edge);
          return it == by.end() ? int64_t{0} : it->second;
        };
        const size_t index = static_cast<size_t>(std::lower_bound(m.begin(), m.end(), edge) - m.begin());
        keep({&d, index, m.size(), edge, edge, size_at(mb), size_at(rb)});
        continue;
      }
      (std::string_view(d.stream).starts_with("sram.") ? out.sram_bytes_compared : out.dram_bytes_compared) += bytes;
    }
    out.acts_compared += static_cast<int64_t>(m.size());
    out.streams.push_back({d.unit, d.act, d.stream, static_cast<int64_t>(m.size()), m.back(), bytes});
  }
  if (first.decl) {
    const ActDecl& d = *first.decl;
    std::string where;
    if (d.per_row && first.index < first.count && rows > 0 && first.count % static_cast<size_t>(rows) == 0)
      where = "row " + std::to_string(first.index / (first.count / static_cast<size_t>(rows))) + ", ";
    if (first.model_bytes >= 0)
      throw config::CheckFailure("--rtl-full: " + where + d.unit + ": " + d.act + " at cycle " + std::to_string(first.model) + ": " +
                                 std::to_string(first.model_bytes) + " bytes in the model, " + std::to_string(first.rtl_bytes) +
                                 " in the RTL");
    auto at = [](int64_t e) { return e < 0 ? std::string("never") : "at cycle " + std::to_string(e); };
    throw config::CheckFailure("--rtl-full: " + where + d.unit + ": " + d.act + " #" + std::to_string(first.index + 1) +
                             ": " + at(first.model) + " in the model, " + at(first.rtl) + " in the RTL");
  }
  return out;
}

#ifndef NORMSIM_WITH_RTL_UNIT

struct RtlUnit::Impl {};
RtlUnit::RtlUnit(const RunGeometry& g, const AsicConfig& c, const core::MergeSchedule&) {
  throw config::ConfigError(rtl_unit_mismatch(g, c, {}));
}
RtlUnit::~RtlUnit() = default;
RtlFullCheck RtlUnit::compare(const EdgeLog&) { return {}; }

#else

struct RtlUnit::Impl {
  const RunGeometry g;
  const AsicConfig c;
  const core::MergeSchedule merge;
  Vrtl_unit dut{"rtl_unit"};
  sc_core::sc_signal<bool> clk;
#define NORMSIM_PORT(p) decltype(bind_signal(dut.p))& p = bind_signal(dut.p);
  NORMSIM_PORT(rst) NORMSIM_PORT(rate_num) NORMSIM_PORT(rate_den) NORMSIM_PORT(latency) NORMSIM_PORT(sram_rate)
  NORMSIM_PORT(sram_latency) NORMSIM_PORT(sram_dual) NORMSIM_PORT(rows) NORMSIM_PORT(chunks) NORMSIM_PORT(chunk_elems) NORMSIM_PORT(last_elems)
  NORMSIM_PORT(stored_elems) NORMSIM_PORT(elem_bytes) NORMSIM_PORT(out_bytes) NORMSIM_PORT(lanes)
  NORMSIM_PORT(lanes_latency) NORMSIM_PORT(merge_latency) NORMSIM_PORT(merge_occupancy)
  NORMSIM_PORT(finish_latency) NORMSIM_PORT(stats_bytes) NORMSIM_PORT(param_bytes) NORMSIM_PORT(window_bytes)
  NORMSIM_PORT(row_buffers) NORMSIM_PORT(lanes_fifo) NORMSIM_PORT(residual_bytes) NORMSIM_PORT(sum_all)
  NORMSIM_PORT(reread_depth) NORMSIM_PORT(issued) NORMSIM_PORT(tokens) NORMSIM_PORT(buffers_taken) NORMSIM_PORT(taken)
  NORMSIM_PORT(sram_writes) NORMSIM_PORT(rows_out) NORMSIM_PORT(sum_writes) NORMSIM_PORT(sums_out)
  NORMSIM_PORT(reread_issued) NORMSIM_PORT(reread_tokens) NORMSIM_PORT(norm_rows) NORMSIM_PORT(norm_rereads)
  NORMSIM_PORT(sram_reads) NORMSIM_PORT(outputs) NORMSIM_PORT(buffers_back) NORMSIM_PORT(overflow)
  NORMSIM_PORT(port_full) NORMSIM_PORT(port_done) NORMSIM_PORT(sram_done) NORMSIM_PORT(adder_r_bytes)
  NORMSIM_PORT(adder_reads) NORMSIM_PORT(adder_writes) NORMSIM_PORT(params_reads) NORMSIM_PORT(residual_reads)
  NORMSIM_PORT(stats_writes) NORMSIM_PORT(kind_bytes)
#undef NORMSIM_PORT

  Impl(const RunGeometry& geometry, const AsicConfig& cfg, const core::MergeSchedule& m) : g(geometry), c(cfg), merge(m) {
    dut.clk(clk);
  }

  void settle() {
    sc_core::sc_start(sc_core::sc_time::from_value(static_cast<sc_core::sc_time::value_type>(kTicksPerCycle / 2)));
  }
  void cycle() {  // a rising edge, then the registers' outputs settle
    clk.write(false);
    settle();
    clk.write(true);
    settle();
  }

  void start() {
    const DramPort port = c.dram.port(c.clock_ghz);
    const auto [rn, rd] = *exact_rate(port.sustained_bytes_per_cycle.value());
    rate_num.write(rn);
    rate_den.write(rd);
    latency.write(static_cast<uint32_t>(port.latency_cycles.value()));
    sram_rate.write(static_cast<uint32_t>(c.sram.banks * c.sram.access_bytes));
    sram_latency.write(static_cast<uint32_t>(c.sram.latency_cycles));
    sram_dual.write(c.sram.ports == 2);
    rows.write(static_cast<uint32_t>(g.rows));
    chunks.write(static_cast<uint32_t>(g.chunks));
    chunk_elems.write(static_cast<uint32_t>(g.chunk_elems));
    last_elems.write(static_cast<uint32_t>(g.chunk_size(g.chunks - 1)));
    stored_elems.write(static_cast<uint32_t>(std::min(g.stored_elems, g.hidden)));
    elem_bytes.write(static_cast<uint32_t>(g.in_bytes));
    out_bytes.write(static_cast<uint32_t>(g.out_bytes));
    lanes.write(static_cast<uint32_t>(g.lanes));
    const StatsLatencies l = stats_latencies(c, merge);
    lanes_latency.write(static_cast<uint32_t>(l.lanes));
    merge_latency.write(static_cast<uint32_t>(l.merge));
    merge_occupancy.write(static_cast<uint32_t>(l.merge_occupancy));
    finish_latency.write(static_cast<uint32_t>(l.finish));
    stats_bytes.write(static_cast<uint32_t>(c.write_stats ? g.stats_bytes_per_row : 0));
    param_bytes.write(static_cast<uint32_t>(g.param_bytes));
    window_bytes.write(static_cast<uint32_t>(c.dram.window_bytes()));
    row_buffers.write(static_cast<uint32_t>(c.rows_in_flight));
    lanes_fifo.write(static_cast<uint32_t>(accelerator_channel("input_to_lanes").depth(g, c)));
    residual_bytes.write(static_cast<uint32_t>(g.fusion == Fusion::fused ? g.residual_bytes : 0));
    adder_r_bytes.write(static_cast<uint32_t>(g.fusion == Fusion::separate_adder ? g.residual_bytes : 0));
    sum_all.write(g.sum_written_all);
    reread_depth.write(static_cast<uint32_t>(g.reread_fifo_transactions));
    rst.write(true);
    cycle();
    rst.write(false);
  }

  // The RTL's acts at the edge just settled, by the model's stream names.
  void log_edge(EdgeLog& log, int64_t e) {
    const std::pair<const char*, uint32_t> counts[] = {
        {"dram.input", issued.read()},          {"free_row_buffers.read", buffers_taken.read()},
        {"input_to_lanes.write", tokens.read()}, {"input_to_lanes.read", taken.read()},
        {"sram.write", sram_writes.read()},     {"dram.sum", sum_writes.read()},
        {"sum_in_dram.write", sums_out.read()}, {"stats_to_normalize.write", rows_out.read()},
        {"dram.input_reread", reread_issued.read()}, {"reread_fifo.write", reread_tokens.read()},
        {"stats_to_normalize.read", norm_rows.read()}, {"reread_fifo.read", norm_rereads.read()},
        {"sram.read", sram_reads.read()},        {"dram.output", outputs.read()},
        {"free_row_buffers.write", buffers_back.read()}, {"dram.done", port_done.read()},
        {"sram.done", sram_done.read()},        {"dram.adder_read", adder_reads.read()},
        {"dram.adder_write", adder_writes.read()}, {"dram.params", params_reads.read()},
        {"dram.residual", residual_reads.read()}, {"dram.stats", stats_writes.read()}};
    for (const auto& [stream, n] : counts) log.add(stream, e, n);
    // The bytes are registered: those of the edge before (an sc_bv, 32 bits a kind).
    const auto& by_kind = kind_bytes.read();
    for (const ActDecl& d : kActs)
      if (d.bytes() && e > 0)
        log.add_bytes(d.stream, e - 1, static_cast<int64_t>(by_kind.range(32 * d.kind_bytes + 31, 32 * d.kind_bytes).to_uint()));
  }
};

RtlUnit::RtlUnit(const RunGeometry& g, const AsicConfig& c, const core::MergeSchedule& merge)
    : impl_(std::make_unique<Impl>(g, c, merge)) {}
RtlUnit::~RtlUnit() = default;

RtlFullCheck RtlUnit::compare(const EdgeLog& model) {
  Impl& b = *impl_;
  const auto t0 = std::chrono::steady_clock::now();
  EdgeLog rtl;
  b.start();
  // Past the model's last act: an act the RTL makes later still shows.
  const int64_t until = model.last_edge() + 2;
  for (int64_t e = 0; e <= until; ++e) {
    b.settle();
    b.log_edge(rtl, e);
    if (b.overflow.read() || b.port_full.read())
      throw config::CheckFailure("--rtl-full: at cycle " + std::to_string(e) + " the RTL had more to do at one edge than it " +
                               "was built for (" + (b.overflow.read() ? "a unit's lanes" : "a port's queue") + ")");
    b.cycle();
  }
  RtlFullCheck out = compare_edge_logs(model, rtl, b.g.rows);
  out.rtl_cycles = until + 1;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

#endif

}  // namespace normsim::asic
