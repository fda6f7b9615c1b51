// `normsim merge DIR...`: a sharded sweep's shard files (sweep --shard i/n
// --out DIR) into exactly what the sweep run whole writes. Every shard of one
// study must be there once; anything else is exit 2 naming the file.
#include <filesystem>
#include <iostream>

#include "command.hpp"
#include "sim/config/bounded_file.hpp"
#include "sim/config/config_error.hpp"
#include "sim/report/report_stamp.hpp"
#include "sim/report/sweep_shards.hpp"

namespace normsim::cli {

namespace {

struct MergeArgs {
  std::vector<std::string> dirs;
  std::string out_dir, plot;
  bool json = false;
};

int merge(const MergeArgs& a) {
  check_out_dir(a.out_dir);
  if (!a.plot.empty()) check_output_file("--plot", a.plot, ".png", "pareto.png", a.out_dir);
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
  std::vector<report::SweepShard> shards;
  for (const auto& f : files) {
    const std::string text = config::read_bounded_file(f.string(), {report::kMaxShardFileBytes, "a file sweep --shard writes"});
    shards.push_back(report::parse_sweep_shard(text, f.string()));
  }
  const nlohmann::json all = report::merge_sweep_shards(shards);
  // The merged report names the configs the sweep ran, as the whole sweep's does.
  for (auto& c : report::study_configs(all))
    report::record_config(std::move(c));
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
