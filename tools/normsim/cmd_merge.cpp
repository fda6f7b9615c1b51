// `normsim merge DIR...`: a sharded sweep's journals (sweep --shard i/n
// --out DIR) into exactly what the sweep run whole writes. Every shard of one
// study must be there once with every point; anything else is exit 2 naming
// the file, or the shards and points missing. `--incomplete-of N` only lists
// the shards of N not complete yet (the Slurm finishing job's test).
#include <filesystem>
#include <iostream>

#include "command.hpp"
#include "sim/config/config_error.hpp"
#include "sim/report/report_stamp.hpp"
#include "sim/report/sweep_journal.hpp"

namespace normsim::cli {

namespace {

struct MergeArgs {
  std::vector<std::string> dirs;
  std::string out_dir, plot;
  bool json = false;
  int incomplete_of = 0;
};

std::vector<report::SweepJournal> read_journals(const std::vector<std::string>& dirs) {
  std::vector<std::filesystem::path> files;
  for (const auto& d : dirs) {
    if (!std::filesystem::is_directory(d)) throw config::ConfigError("merge: '" + d + "': no such directory (allowed: a sweep --shard --out DIR)");
    for (const auto& e : std::filesystem::directory_iterator(d)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("sweep-shard-", 0) == 0 && e.path().extension() == ".jsonl") files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<report::SweepJournal> journals;
  for (const auto& f : files) journals.push_back(report::read_sweep_journal_file(f.string()));
  return journals;
}

int merge(const MergeArgs& a) {
  if (a.incomplete_of) {
    // Shards with no journal yet, or one that lacks points.
    std::vector<char> complete(static_cast<size_t>(a.incomplete_of), 0);
    for (const auto& j : read_journals(a.dirs)) {
      if (j.shards != static_cast<size_t>(a.incomplete_of))
        throw config::ConfigError(j.file + ": a shard of " + std::to_string(j.shards) + ", not " + std::to_string(a.incomplete_of) +
                                  " (allowed: --incomplete-of the sweep's shard count)");
      complete[j.shard] = j.missing().empty();
    }
    std::string list;
    for (size_t i = 0; i < complete.size(); ++i)
      if (!complete[i]) list += (list.empty() ? "" : ",") + std::to_string(i);
    std::cout << list << "\n";
    return kExitOk;
  }
  check_out_dir(a.out_dir);
  if (!a.plot.empty()) check_output_file("--plot", a.plot, ".png", "pareto.png", a.out_dir);
  std::vector<report::SweepJournal> journals = read_journals(a.dirs);
  if (journals.empty())
    throw config::ConfigError("merge: no sweep-shard-*.jsonl in " + a.dirs.front() + " (allowed: the --out of sweep --shard)");
  const report::SweepJournalSet set = report::check_journal_set(std::move(journals));
  // The merged report names the configs the sweep ran, as the whole sweep's does.
  for (auto& c : report::study_configs({{"study", set.study}})) report::record_config(std::move(c));
  return write_sweep_outputs(set, a.out_dir, a.json, a.plot);
}

}  // namespace

Command add_merge(CLI::App& app) {
  auto a = std::make_shared<MergeArgs>();
  auto* c = app.add_subcommand("merge", "merge a sharded sweep's shards into the whole sweep's outputs");
  c->fallthrough();
  c->add_option("dirs", a->dirs, "directories holding sweep-shard-*.jsonl (the shards' --out)")->required();
  c->add_option("--out", a->out_dir, "directory for sweep.json and sweep.csv");
  c->add_option("--plot", a->plot, "draw the Pareto front of the first two objectives into FILE.png");
  c->add_flag("--json", a->json, "print the sweep as one JSON object on stdout");
  add_int_option(c, "--incomplete-of", a->incomplete_of, 1, 100000,
                 "only print the shards of N (comma-separated) whose journal is missing or lacks points");
  return {c, [a] { return merge(*a); }};
}

}  // namespace normsim::cli
