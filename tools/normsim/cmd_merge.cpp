// `normsim merge DIR...`: a sharded sweep's shard files (sweep --shard i/n
// --out DIR) into exactly what the sweep run whole writes. Every shard of one
// study must be there once; anything else is exit 2 naming the file.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "command.hpp"
#include "sim/config/config_error.hpp"
#include "sim/report/sweep_report.hpp"

namespace normsim::cli {

namespace {

struct MergeArgs {
  std::vector<std::string> dirs;
  std::string out_dir, plot;
  bool json = false;
};

nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw config::ConfigError(p.string() + ": not a sweep shard (" + std::string(e.what()) + ")");
  }
}

int merge(const MergeArgs& a) {
  std::vector<std::filesystem::path> files;
  for (const auto& d : a.dirs) {
    if (!std::filesystem::is_directory(d)) throw config::ConfigError("merge: '" + d + "': no such directory (allowed: a sweep --shard --out DIR)");
    for (const auto& e : std::filesystem::directory_iterator(d)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("sweep-shard-", 0) == 0 && e.path().extension() == ".json") files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw config::ConfigError("merge: no sweep-shard-*.json in " + a.dirs.front() + " (allowed: the --out of sweep --shard)");
  nlohmann::json study;
  size_t count = 0;
  std::map<size_t, std::string> seen;  // shard index -> file
  std::map<size_t, nlohmann::json> points;
  for (const auto& f : files) {
    nlohmann::json s = read_json(f);
    if (!s.contains("shard") || !s.contains("study") || !s.contains("points"))
      throw config::ConfigError(f.string() + ": not a sweep shard (allowed: files sweep --shard writes)");
    if (study.is_null()) {
      study = s["study"];
      count = s["shard"]["count"].get<size_t>();
    } else if (s["study"] != study || s["shard"]["count"].get<size_t>() != count) {
      throw config::ConfigError(f.string() + ": a shard of another study than " + seen.begin()->second +
                                " (allowed: the shards of one sweep)");
    }
    const size_t i = s["shard"]["index"].get<size_t>();
    if (seen.count(i)) throw config::ConfigError(f.string() + ": shard " + std::to_string(i) + " again (also " + seen[i] + ")");
    seen[i] = f.string();
    for (auto& p : s["points"]) {
      const size_t index = p["index"].get<size_t>();
      points[index] = std::move(p);
    }
  }
  for (size_t i = 0; i < count; ++i)
    if (!seen.count(i))
      throw config::ConfigError("merge: shard " + std::to_string(i) + " of " + std::to_string(count) +
                                " is missing (allowed: all shards 0.." + std::to_string(count - 1) + ")");
  const size_t total = study["points"].get<size_t>();
  if (points.size() != total)
    throw config::ConfigError("merge: the shards hold " + std::to_string(points.size()) + " points, the study " +
                              std::to_string(total));
  std::vector<nlohmann::json> rows;
  for (auto& [i, p] : points) rows.push_back(std::move(p));
  std::vector<std::string> keys = study["keys"].get<std::vector<std::string>>();
  std::vector<std::string> objectives = study["objectives"].get<std::vector<std::string>>();
  nlohmann::json all = report::sweep_json(keys, objectives, study["mode"] == "bit-accurate", std::move(rows));
  all["study"]["inputs"] = study["inputs"];
  return write_sweep_outputs(all, a.out_dir, a.json, a.plot);
}

}  // namespace

Command add_merge(CLI::App& app) {
  auto a = std::make_shared<MergeArgs>();
  auto* c = app.add_subcommand("merge", "merge a sharded sweep's shards into the whole sweep's outputs");
  c->fallthrough();
  c->add_option("dirs", a->dirs, "directories holding sweep-shard-*.json (the shards' --out)")->required();
  c->add_option("--out", a->out_dir, "directory for sweep.json and sweep.csv");
  c->add_option("--plot", a->plot, "draw the Pareto front of the first two objectives into FILE.png");
  c->add_flag("--json", a->json, "print the sweep as one JSON object on stdout");
  return {c, [a] { return merge(*a); }};
}

}  // namespace normsim::cli
