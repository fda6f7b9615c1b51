#include "sim/config/asic_params.hpp"

#include <algorithm>
#include <cmath>

namespace normsim::config {

std::string_view to_string(InputPath p) {
  switch (p) {
    case InputPath::sram_replay: return "sram-replay";
    case InputPath::dram_reread: return "dram-reread";
    case InputPath::partial_replay: return "partial-replay";
  }
  return "?";
}

std::optional<InputPath> parse_input_path(std::string_view s) {
  if (s == "sram-replay") return InputPath::sram_replay;
  if (s == "dram-reread") return InputPath::dram_reread;
  if (s == "partial-replay") return InputPath::partial_replay;
  return std::nullopt;
}

std::string DramConfig::validate() const {
  if (!(peak_bytes_per_cycle > 0) || !std::isfinite(peak_bytes_per_cycle))
    return "dram.peak_bytes_per_cycle: must be > 0";
  if (latency_cycles < 1) return "dram.latency_cycles: must be >= 1";
  if (max_outstanding < 1) return "dram.max_outstanding: must be >= 1";
  if (burst_bytes < 1) return "dram.burst_bytes: must be >= 1";
  if (capacity_bytes < 1) return "dram.capacity_bytes: must be >= 1";
  if (!(energy_pj_per_bit >= 0)) return "dram.energy_pj_per_bit: must be >= 0";
  return {};
}

double DramConfig::sustained_bytes_per_cycle() const {
  return std::min(peak_bytes_per_cycle, static_cast<double>(max_outstanding) * burst_bytes / latency_cycles);
}

std::string SramConfig::validate() const {
  if (capacity_bytes < 1) return "sram.capacity_bytes: must be >= 1";
  if (banks < 1) return "sram.banks: must be >= 1";
  if (ports < 1 || ports > 2) return "sram.ports: must be 1 or 2";
  if (access_bytes < 1) return "sram.access_bytes: must be >= 1";
  if (latency_cycles < 1) return "sram.latency_cycles: must be >= 1";
  return {};
}

std::string UnitLatencies::validate() const {
  if (welford_cycles < 1) return "latency.welford_cycles: must be >= 1";
  if (merge_level_cycles < 1) return "latency.merge_level_cycles: must be >= 1";
  if (rsqrt_cycles < 1) return "latency.rsqrt_cycles: must be >= 1";
  if (normalize_cycles < 1) return "latency.normalize_cycles: must be >= 1";
  return {};
}

std::string AsicConfig::validate() const {
  if (!(clock_ghz > 0) || clock_ghz > 100) return "clock_ghz: must be in (0, 100]";
  if (!(replay_fraction > 0 && replay_fraction < 1)) return "replay_fraction: must be in (0, 1)";
  if (rows_in_flight < 1 || rows_in_flight > 65536) return "rows_in_flight: must be in 1..65536";
  if (transaction_elems < 1) return "transaction_elems: must be >= 1";
  if (auto s = dram.validate(); !s.empty()) return s;
  if (auto s = sram.validate(); !s.empty()) return s;
  return latency.validate();
}

}  // namespace normsim::config
