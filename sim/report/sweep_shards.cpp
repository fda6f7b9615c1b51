#include "sim/report/sweep_shards.hpp"

#include <map>

#include "sim/config/config_error.hpp"
#include "sim/report/sweep_report.hpp"

namespace normsim::report {

using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& file, const std::string& key, const std::string& problem, const std::string& allowed) {
  throw config::ConfigError(config::format_config_error(file, 0, key, problem, allowed));
}

const json& member(const json& o, const std::string& key, const std::string& path, const std::string& file) {
  if (!o.is_object() || !o.contains(key)) fail(file, path, "missing", "a file sweep --shard writes");
  return o[key];
}

size_t count_of(const json& v, const std::string& path, const std::string& file, size_t lo, size_t hi) {
  if (!v.is_number_unsigned() || v.get<uint64_t>() < lo || v.get<uint64_t>() > hi)
    fail(file, path, "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " + v.dump(),
         std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<size_t>(v.get<uint64_t>());
}

void strings(const json& v, const std::string& path, const std::string& file) {
  if (!v.is_array()) fail(file, path, "expected a list of names, got " + v.dump(), "a list of strings");
  for (const auto& e : v)
    if (!e.is_string()) fail(file, path, "expected a list of names, got " + v.dump(), "a list of strings");
}

}  // namespace

SweepShard parse_sweep_shard(const std::string& text, const std::string& file) {
  if (text.size() > kMaxShardFileBytes) fail(file, "", "is " + std::to_string(text.size()) + " bytes", "at most 1 GiB");
  json s;
  try {
    s = json::parse(text);
  } catch (const json::exception& e) {
    fail(file, "", std::string("not a sweep shard (") + e.what() + ")", "a file sweep --shard writes");
  }
  if (!s.is_object()) fail(file, "", "not a sweep shard (expected an object)", "a file sweep --shard writes");
  SweepShard sh;
  sh.file = file;
  sh.study = member(s, "study", "study", file);
  const size_t total = count_of(member(sh.study, "points", "study.points", file), "study.points", file, 1, SIZE_MAX >> 1);
  strings(member(sh.study, "keys", "study.keys", file), "study.keys", file);
  strings(member(sh.study, "objectives", "study.objectives", file), "study.objectives", file);
  if (!member(sh.study, "mode", "study.mode", file).is_string()) fail(file, "study.mode", "expected a string", "bit-accurate, timing-only");
  const json& shard = member(s, "shard", "shard", file);
  sh.count = count_of(member(shard, "count", "shard.count", file), "shard.count", file, 1, 100000);
  sh.index = count_of(member(shard, "index", "shard.index", file), "shard.index", file, 0, sh.count - 1);
  const json& points = member(s, "points", "points", file);
  if (!points.is_array()) fail(file, "points", "expected a list of points", "a file sweep --shard writes");
  for (size_t k = 0; k < points.size(); ++k) {
    const json& p = points[k];
    const std::string at = "points." + std::to_string(k);
    const size_t index = count_of(member(p, "index", at + ".index", file), at + ".index", file, 0, total - 1);
    if (index % sh.count != sh.index)
      fail(file, at + ".index", std::to_string(index) + " is not a point of shard " + std::to_string(sh.index) + "/" +
               std::to_string(sh.count), "index mod count == shard index");
    if (!member(p, "point", at + ".point", file).is_object()) fail(file, at + ".point", "expected an object", "{key: value}");
    const json& st = member(p, "status", at + ".status", file);
    if (st != "ok" && st != "infeasible") fail(file, at + ".status", "unknown value " + st.dump(), "ok, infeasible");
    if (st == "ok" && !member(p, "report", at + ".report", file).is_object())
      fail(file, at + ".report", "expected a run report", "a run report object");
    if (st == "infeasible" && !member(p, "reason", at + ".reason", file).is_string())
      fail(file, at + ".reason", "expected a string", "why the point cannot be built");
    sh.points.push_back(p);
  }
  return sh;
}

json merge_sweep_shards(const std::vector<SweepShard>& shards) {
  if (shards.empty()) throw config::ConfigError("merge: no shards (allowed: the --out of sweep --shard)");
  const SweepShard& first = shards.front();
  std::map<size_t, std::string> seen;  // shard index -> file
  std::map<size_t, json> points;
  for (const auto& s : shards) {
    if (s.study != first.study || s.count != first.count)
      throw config::ConfigError(s.file + ": a shard of another study than " + first.file + " (allowed: the shards of one sweep)");
    if (seen.count(s.index))
      throw config::ConfigError(s.file + ": shard " + std::to_string(s.index) + " again (also " + seen[s.index] + ")");
    seen[s.index] = s.file;
    for (const auto& p : s.points) {
      const size_t index = p["index"].get<size_t>();
      if (!points.emplace(index, p).second)
        throw config::ConfigError(s.file + ": point " + std::to_string(index) + " twice (allowed: each point once)");
    }
  }
  for (size_t i = 0; i < first.count; ++i)
    if (!seen.count(i))
      throw config::ConfigError("merge: shard " + std::to_string(i) + " of " + std::to_string(first.count) +
                                " is missing (allowed: all shards 0.." + std::to_string(first.count - 1) + ")");
  const size_t total = first.study["points"].get<size_t>();
  if (points.size() != total)
    throw config::ConfigError("merge: the shards hold " + std::to_string(points.size()) + " points, the study " +
                              std::to_string(total));
  std::vector<json> rows;
  for (auto& [i, p] : points) rows.push_back(p);
  try {
    json all = sweep_json(first.study["keys"].get<std::vector<std::string>>(),
                          first.study["objectives"].get<std::vector<std::string>>(), first.study["mode"] == "bit-accurate",
                          std::move(rows));
    all["study"]["inputs"] = first.study.value("inputs", json());
    return all;
  } catch (const config::ConfigError&) {
    throw;
  } catch (const std::exception& e) {  // a json type error, or std::map::at of a figure the report lacks
    throw config::ConfigError(first.file + ": a point's report lacks a figure the study tabulates (" + std::string(e.what()) +
                              ") (allowed: files sweep --shard writes)");
  }
}

}  // namespace normsim::report
