#include "sim/asic/traffic_identity.hpp"

#include <algorithm>
#include <cmath>

#include "sim/asic/replay_path.hpp"

namespace normsim::asic {

namespace {
int stats_bytes_per_row(const config::Workload& w) { return w.norm == core::NormKind::layernorm ? 8 : 4; }
}  // namespace

int64_t param_bytes(const config::Workload& w) { return w.hidden * 4 * (w.beta ? 2 : 1); }

TrafficIdentity traffic_identity(const config::Workload& w, const AsicConfig& c, int lanes) {
  TrafficIdentity t;
  const auto path = make_replay_path(c);
  const uint64_t in = static_cast<uint64_t>(core::elem_bytes(w.input.dtype));
  const uint64_t out = static_cast<uint64_t>(core::elem_bytes(w.output.dtype));
  const uint64_t N = static_cast<uint64_t>(w.rows), C = static_cast<uint64_t>(w.hidden);
  const uint64_t reread = C - static_cast<uint64_t>(path->stored_elems(w.hidden));
  t.dram_bytes_read = N * C * in + N * reread * in + static_cast<uint64_t>(param_bytes(w));
  t.dram_bytes_written = N * C * out + (c.write_stats ? N * static_cast<uint64_t>(stats_bytes_per_row(w)) : 0);
  t.sram_row_buffer_bytes = path->sram_row_bytes(w.hidden, static_cast<int>(in), c.rows_in_flight);
  t.param_bytes = static_cast<uint64_t>(param_bytes(w));
  if (reread > 0) {
    // As RereadStream sizes it: whole transactions covering max_outstanding x burst bytes.
    const uint64_t chunk = static_cast<uint64_t>(std::min<int64_t>(w.hidden, c.transaction_elems)) * in;
    const uint64_t want = static_cast<uint64_t>(c.dram.max_outstanding) * static_cast<uint64_t>(c.dram.burst_bytes);
    t.reread_fifo_bytes = std::max<uint64_t>(1, want / chunk) * chunk;
  }
  const double dram_cycles = static_cast<double>(t.dram_bytes_read + t.dram_bytes_written) / c.dram.sustained_bytes_per_cycle();
  const double lane_cycles = static_cast<double>(N) * std::ceil(static_cast<double>(C) / lanes) / c.datapaths;
  t.lower_bound_cycles = std::max(dram_cycles, lane_cycles);
  return t;
}

}  // namespace normsim::asic
