// What every JSON report starts with (docs/REPORTS.md, schema in
// docs/schema/report.schema.json): the normsim that wrote it, the schema
// version of its layout, the command line, and the SHA-256 of each resolved
// config it ran -- enough to tell whether two reports can be compared and to
// run the one again.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace normsim::report {

/// Bumped when a key of a report is renamed, removed or changes its unit;
/// adding keys keeps it.
inline constexpr int kReportSchemaVersion = 1;

struct ConfigDigest {
  std::string role;    ///< "workload", "arch", "gpu", "study"
  std::string name;    ///< the config's own name
  std::string source;  ///< the file, or "<shipped: ...>" / "<embedded default: ...>"
  std::string sha256;  ///< of the resolved config (its YAML with every --set applied)
  std::vector<std::string> overrides;  ///< the --set texts applied
};

struct ReportStamp {
  std::string normsim_version;
  std::string report;                ///< the subcommand: "run", "compare", ...
  std::vector<std::string> command;  ///< argv, exactly as given
  std::vector<ConfigDigest> configs;
};

/// The stamp of this process's reports: one process runs one command, which
/// sets it up (tools/normsim/main.cpp) and records each config it loads.
ReportStamp& current_stamp();
/// Records a config; the first of each role stays (the command's own: a
/// sweep's points, loaded after it, are derived from it).
void record_config(ConfigDigest d);

/// The configs as the report's "configs" object, and back (a sweep's shards
/// carry them to `normsim merge`).
nlohmann::json configs_json(const std::vector<ConfigDigest>& configs);
std::vector<ConfigDigest> configs_from_json(const nlohmann::json& j);
/// The configs a (merged) sweep report's study.inputs names; none where it names none.
std::vector<ConfigDigest> study_configs(const nlohmann::json& sweep);

/// `report` with the stamp's keys first, then its own (in its order).
nlohmann::ordered_json stamped(const nlohmann::json& report, const ReportStamp& stamp);
/// stamped(report, current_stamp()) as text; `indent` as json::dump's.
std::string report_text(const nlohmann::json& report, int indent = -1);

}  // namespace normsim::report
