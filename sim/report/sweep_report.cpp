#include "sim/report/sweep_report.hpp"

#include <cstdio>
#include <cstdlib>

namespace normsim::report {

namespace {

struct Column {
  const char* table;  // table heading
  const char* csv;    // CSV heading
  const char* group;  // report section
  const char* key;
  const char* format;
};

std::vector<Column> columns(bool numerics) {
  std::vector<Column> cols = {{"cycles", "cycles", "timing", "cycles", "%-13.0f"},
                              {"time_us", "time_us", "timing", "time_us", "%-8.1f"},
                              {"DRAM_read_bytes", "dram_bytes_read", "traffic", "dram_bytes_read", "%-16.0f"},
                              {"DRAM_written_bytes", "dram_bytes_written", "traffic", "dram_bytes_written", "%-19.0f"},
                              {"DRAM_GB/s", "dram_gbps", "traffic", "dram_gbps", "%-10.2f"},
                              {"SRAM_req_bytes", "sram_required_bytes", "area", "sram_required_bytes", "%-15.0f"},
                              {"area_mm2", "area_total_mm2", "area", "total_mm2", "%-10.4f"},
                              {"energy_uJ", "energy_total_uj", "energy", "total_uj", "%-10.4g"}};
  if (numerics) {
    cols.push_back({"rel_l2_error", "rel_l2_error", "numerics", "rel_l2_error", "%-12.4g"});
    cols.push_back({"max_ulp", "max_ulp_error", "numerics", "max_ulp_error", "%-8.4g"});
  }
  return cols;
}

}  // namespace

std::string sweep_table(const std::vector<std::string>& keys, const std::vector<nlohmann::json>& rows, bool numerics) {
  const std::vector<Column> cols = columns(numerics);
  std::string table;
  char b[512];
  for (const auto& k : keys) {
    std::snprintf(b, sizeof b, "%-24s ", k.c_str());
    table += b;
  }
  for (const auto& c : cols) {
    std::snprintf(b, sizeof b, "%-*s ", std::atoi(c.format + 2), c.table);
    table += b;
  }
  table += "\n";
  for (const auto& r : rows) {
    for (const auto& k : keys) {
      std::snprintf(b, sizeof b, "%-24s ", r["point"][k].get<std::string>().c_str());
      table += b;
    }
    for (const auto& c : cols) {
      std::snprintf(b, sizeof b, c.format, r["report"][c.group][c.key].get<double>());
      table += b;
      table += " ";
    }
    table += "\n";
  }
  return table;
}

std::string sweep_csv(const std::vector<std::string>& keys, const std::vector<nlohmann::json>& rows, bool numerics) {
  const std::vector<Column> cols = columns(numerics);
  std::string csv;
  char b[64];
  for (const auto& k : keys) csv += k + ",";
  for (size_t c = 0; c < cols.size(); ++c) csv += std::string(cols[c].csv) + (c + 1 < cols.size() ? "," : "\n");
  for (const auto& r : rows) {
    for (const auto& k : keys) csv += r["point"][k].get<std::string>() + ",";
    for (size_t c = 0; c < cols.size(); ++c) {
      std::snprintf(b, sizeof b, "%.15g", r["report"][cols[c].group][cols[c].key].get<double>());  // integers (cycles, bytes) exactly
      csv += std::string(b) + (c + 1 < cols.size() ? "," : "\n");
    }
  }
  return csv;
}

}  // namespace normsim::report
