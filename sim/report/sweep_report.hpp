// The `sweep` result: every point of the grid with its status, its report
// (run's JSON) and, when objectives are given, whether it is on the Pareto
// front; as JSON, CSV and a console table. Names are the run report's own
// (snake_case, the unit as suffix): `cycles`, `dram_bytes_read`,
// `sram_required_bytes`, `total_mm2`, `total_uj`, `stall_cycles.<cause>`,
// `utilization.<unit>`, ... -- the same in run, compare and sweep.
//
// The JSON is {"study": {keys, objectives, mode, points}, "points": [{index,
// point: {key: typed value}, status: "ok" | "infeasible", reason?, pareto?,
// report?}]}: a function of the study alone (no times, no shard), so a
// sharded sweep merged is byte-identical to the sweep run whole.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace normsim::report {

/// The figures of a run report a sweep tabulates, by name, in column order
/// (`numerics`: the error columns too).
std::vector<std::pair<std::string, double>> sweep_metrics(const nlohmann::json& report, bool numerics);

/// The column an objective names: a metric name, or an alias (area: total_mm2,
/// energy: total_uj, error: rel_l2_error, time: time_us). ConfigError naming
/// the allowed ones otherwise.
std::string objective_column(const std::string& name, bool numerics);

/// Marks every ok point "pareto": true/false over the study's objectives (all
/// minimised; a point is off the front when another is no worse in every
/// objective and better in one).
void mark_pareto(nlohmann::json& sweep);

/// The whole sweep, from its points in index order.
nlohmann::json sweep_json(const std::vector<std::string>& keys, const std::vector<std::string>& objectives, bool numerics,
                          std::vector<nlohmann::json> points);

std::string sweep_csv(const nlohmann::json& sweep);
std::string sweep_table(const nlohmann::json& sweep);

}  // namespace normsim::report
