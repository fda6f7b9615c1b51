// A sweep's journal: its points on disk as they finish, so a study of any
// size runs in flat memory, survives its process (SIGINT, SIGKILL, a lost
// node) and resumes where it stopped. JSON Lines: the first line is the
// header {"sweep_journal": 1, "study": {keys, objectives, mode, points,
// inputs}, "shard": {index, count}, "sweep": {arguments, command}}, then one
// line per point in the order they finished: {index, point, status,
// reason? | figures, report?}. A sweep run whole keeps DIR/sweep.jsonl, shard
// i of n DIR/sweep-shard-i-of-n.jsonl; `normsim merge` reads the shards'.
// A journal is read like a config: every key it must have, of its type and
// range, or exit 2 naming the file, the line and the key. A last line cut
// short (the process died writing it) is not a point: resume drops it.
#pragma once

#include <cstdint>
#include <fstream>
#include <istream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/report/sweep_report.hpp"

namespace normsim::report {

/// A journal line longer than this is refused (a point with its whole report is ~20 KB).
inline constexpr uint64_t kMaxJournalLineBytes = 64ull << 20;

std::string journal_name(size_t shard, size_t shards);  ///< "sweep.jsonl" or "sweep-shard-i-of-n.jsonl"

/// A journal read back: its header and where each point's line is.
struct SweepJournal {
  std::string file;
  nlohmann::json header;  ///< the first line
  nlohmann::json study;   ///< header["study"]
  size_t shard = 0, shards = 1;
  std::map<size_t, uint64_t> lines;  ///< point index -> byte offset of its line
  uint64_t complete_bytes = 0;       ///< up to the end of the last whole line
  uint64_t torn_bytes = 0;           ///< a last line cut short, after complete_bytes
  /// The points of this shard the journal lacks, in index order.
  std::vector<size_t> missing() const;
};

/// Reads and checks a journal from `in` (`file` names it in errors);
/// ConfigError naming the file, line and key otherwise.
SweepJournal read_sweep_journal(std::istream& in, const std::string& file);
SweepJournal read_sweep_journal_file(const std::string& path);

/// The header line of a journal.
nlohmann::json journal_header(const nlohmann::json& study, size_t shard, size_t shards, const nlohmann::json& sweep);

/// Appends points to a journal, each line flushed to the OS as it is
/// written (a killed process loses at most the line it was writing).
class SweepJournalWriter {
 public:
  /// A new journal (the header written), or, with `resume`, an existing one
  /// cut back to its last whole line.
  SweepJournalWriter(const std::string& path, const nlohmann::json& header, const SweepJournal* resume = nullptr);
  void add(const nlohmann::json& point);

 private:
  std::string path_;
  std::ofstream out_;
};

/// Several journals' points as one sweep, in index order: the study of all
/// of them (one study, each shard once, every point there -- else
/// ConfigError naming the file, or the missing points).
struct SweepJournalSet {
  std::vector<SweepJournal> journals;
  nlohmann::json study;
  /// The journals' texts, where they were read from memory (else their files).
  std::vector<std::string> texts;
  /// Visits every point, in index order, reading each line again.
  PointSource points() const;
};
SweepJournalSet check_journal_set(std::vector<SweepJournal> journals, std::vector<std::string> texts = {});

}  // namespace normsim::report
