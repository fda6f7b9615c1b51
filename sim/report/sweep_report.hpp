// The `sweep` result: every point of the grid with its status, its report
// (run's JSON) and, when objectives are given, whether it is on the Pareto
// front; as JSON, CSV and a console table. Names are the run report's own
// (snake_case, the unit as suffix) at their paths in it: `timing.cycles`,
// `traffic.dram_bytes_read`, `area.sram_required_bytes`, `area.total_mm2`,
// `energy.total_uj`, `timing.stall_cycles.<cause>`, `timing.utilization.<unit>`,
// ...; the CSV's headers are run's report.csv's ("timing.cycles [cycles]").
//
// The JSON is {"study": {keys, objectives, mode, points}, "points": [{index,
// point: {key: typed value}, status: "ok" | "infeasible", reason?, pareto?,
// figures?, report?}]}: a function of the study alone (no times, no shard),
// so a sharded sweep merged is byte-identical to the sweep run whole. A
// point holds its figures (point_figures: the columns' values), its whole
// run report with --full-reports, or both; compare's rows hold reports.
// Big sweeps are written in two passes over their points in index order
// (scan_sweep, then a row at a time), so no step holds every point.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace normsim::report {

/// The figures of a run report a sweep tabulates, by their path in it, in
/// column order (`numerics`: the error columns too).
/// A backward's gradients beside dx, each with dx's error figures under
/// numerics.<name> (numerics.dgamma.rel_l2_error, ...): sweep's and
/// compare's columns.
inline constexpr const char* kOtherGradients[] = {"dgamma", "dbeta", "dbranch"};

std::vector<std::pair<std::string, double>> sweep_metrics(const nlohmann::json& report, bool numerics);

/// A run report's figures as a point keeps them: {path: value}.
nlohmann::json point_figures(const nlohmann::json& report, bool numerics);
/// sweep_metrics of a point: from its figures, else from its report.
std::vector<std::pair<std::string, double>> point_metrics(const nlohmann::json& point, bool numerics);

/// The path of the figure an objective names: its name (cycles), its path
/// (timing.cycles) or an alias (area: area.total_mm2, energy: energy.total_uj,
/// error: numerics.rel_l2_error, time: timing.time_us). ConfigError naming
/// the allowed ones otherwise.
std::string objective_column(const std::string& name, bool numerics);

/// Marks every ok point "pareto": true/false over the study's objectives (all
/// minimised; a point is off the front when another is no worse in every
/// objective and better in one).
void mark_pareto(nlohmann::json& sweep);

/// A sweep's points, visited in index order (a source may be read twice).
using PointVisitor = std::function<void(const nlohmann::json& point)>;
using PointSource = std::function<void(const PointVisitor& visit)>;

/// What the rows need from all the points: the figure columns, each key's
/// width in the table, and (with objectives) which points are on the front,
/// by position in index order.
struct SweepLayout {
  std::vector<std::string> columns;
  std::vector<size_t> key_widths;
  std::vector<char> pareto;
  size_t points = 0;
};
/// One pass over the points; out_of_range when a point lacks an objective's figure.
SweepLayout scan_sweep(const nlohmann::json& study, const PointSource& points);
/// Sets the point's "pareto" (the `position`-th point in index order).
void with_pareto(const nlohmann::json& study, const SweepLayout& l, size_t position, nlohmann::json& point);
std::string sweep_csv_header(const nlohmann::json& study, const SweepLayout& l);
std::string sweep_csv_row(const nlohmann::json& study, const SweepLayout& l, const nlohmann::json& point);
std::string sweep_table_header(const nlohmann::json& study, const SweepLayout& l);
std::string sweep_table_row(const nlohmann::json& study, const SweepLayout& l, const nlohmann::json& point);

/// The whole sweep, from its points in index order.
nlohmann::json sweep_json(const std::vector<std::string>& keys, const std::vector<std::string>& objectives, bool numerics,
                          std::vector<nlohmann::json> points);

std::string sweep_csv(const nlohmann::json& sweep);
/// `compare`'s JSON ({"paths": [report or {"path", "infeasible"}]}) as CSV
/// with sweep.csv's columns, one row per path.
std::string compare_csv(const nlohmann::json& comparison);
/// The keys a comparison's rows vary beside the path, in this order: "fuse"
/// (a residual workload), "param_grad" (a backward); none, one or both.
std::vector<std::string> compare_leads(const nlohmann::json& comparison);
std::string sweep_table(const nlohmann::json& sweep);

}  // namespace normsim::report
