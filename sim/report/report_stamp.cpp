#include "sim/report/report_stamp.hpp"

namespace normsim::report {

ReportStamp& current_stamp() {
  static ReportStamp s;
  return s;
}

void record_config(ConfigDigest d) {
  auto& configs = current_stamp().configs;
  for (const auto& c : configs)
    if (c.role == d.role) return;
  configs.push_back(std::move(d));
}

nlohmann::json configs_json(const std::vector<ConfigDigest>& configs) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& c : configs)
    j[c.role] = {{"name", c.name}, {"source", c.source}, {"sha256", c.sha256}, {"overrides", c.overrides}};
  return j;
}

std::vector<ConfigDigest> configs_from_json(const nlohmann::json& j) {
  std::vector<ConfigDigest> out;
  if (!j.is_object()) return out;
  for (const auto& [role, c] : j.items()) {
    if (!c.is_object()) continue;
    ConfigDigest d{role, c.value("name", ""), c.value("source", ""), c.value("sha256", ""), {}};
    if (c.contains("overrides") && c["overrides"].is_array())
      for (const auto& o : c["overrides"])
        if (o.is_string()) d.overrides.push_back(o.get<std::string>());
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<ConfigDigest> study_configs(const nlohmann::json& sweep) {
  if (!sweep.is_object() || !sweep.contains("study") || !sweep["study"].is_object()) return {};
  const nlohmann::json& study = sweep["study"];
  if (!study.contains("inputs") || !study["inputs"].is_object() || !study["inputs"].contains("configs")) return {};
  return configs_from_json(study["inputs"]["configs"]);
}

namespace {
// `j` node by node as an ordered_json, its objects' keys in j's (sorted) order.
nlohmann::ordered_json ordered(const nlohmann::json& j) {
  using T = nlohmann::json::value_t;
  switch (j.type()) {
    case T::object: {
      nlohmann::ordered_json o = nlohmann::ordered_json::object();
      for (const auto& [k, v] : j.items()) o[k] = ordered(v);
      return o;
    }
    case T::array: {
      nlohmann::ordered_json a = nlohmann::ordered_json::array();
      for (const auto& v : j) a.push_back(ordered(v));
      return a;
    }
    case T::string: return j.get<std::string>();
    case T::boolean: return j.get<bool>();
    case T::number_integer: return j.get<int64_t>();
    case T::number_unsigned: return j.get<uint64_t>();
    case T::number_float: return j.get<double>();
    case T::binary: return nlohmann::ordered_json::binary(j.get_binary());
    case T::null:
    case T::discarded: break;
  }
  return nullptr;
}
}  // namespace

nlohmann::ordered_json stamped(const nlohmann::json& report, const ReportStamp& stamp) {
  nlohmann::ordered_json out;
  out["normsim_version"] = stamp.normsim_version;
  out["schema_version"] = kReportSchemaVersion;
  out["report"] = stamp.report;
  out["command"] = stamp.command;
  out["configs"] = ordered(configs_json(stamp.configs));
  // The report's own keys after the stamp's; a report never carries them itself.
  for (const auto& [k, v] : report.items())
    if (!out.contains(k)) out[k] = ordered(v);
  return out;
}

std::string report_text(const nlohmann::json& report, int indent) { return stamped(report, current_stamp()).dump(indent); }

}  // namespace normsim::report
