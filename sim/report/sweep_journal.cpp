#include "sim/report/sweep_journal.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "sim/config/config_error.hpp"

namespace normsim::report {

using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& file, size_t line, const std::string& key, const std::string& problem,
                       const std::string& allowed) {
  throw config::ConfigError(config::format_config_error(file, static_cast<int>(line), key, problem, allowed));
}

const json& member(const json& o, const std::string& key, const std::string& path, const std::string& file, size_t line) {
  if (!o.is_object() || !o.contains(key)) fail(file, line, path, "missing", "a journal normsim sweep writes");
  return o[key];
}

size_t count_of(const json& v, const std::string& path, const std::string& file, size_t line, size_t lo, size_t hi) {
  if (!v.is_number_unsigned() || v.get<uint64_t>() < lo || v.get<uint64_t>() > hi)
    fail(file, line, path, "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " + v.dump(),
         std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<size_t>(v.get<uint64_t>());
}

void strings(const json& v, const std::string& path, const std::string& file, size_t line) {
  bool ok = v.is_array();
  if (ok)
    for (const auto& e : v) ok = ok && e.is_string();
  if (!ok) fail(file, line, path, "expected a list of names, got " + v.dump(), "a list of strings");
}

json parse_line(const std::string& text, const std::string& file, size_t line) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    fail(file, line, "", std::string("not a journal line (") + e.what() + ")", "a journal normsim sweep writes");
  }
}

// A point line: its index in this shard, its status and what that status carries.
size_t check_point(const json& p, const SweepJournal& j, size_t total, size_t line) {
  const std::string& f = j.file;
  const size_t index = count_of(member(p, "index", "index", f, line), "index", f, line, 0, total - 1);
  if (index % j.shards != j.shard)
    fail(f, line, "index", std::to_string(index) + " is not a point of shard " + std::to_string(j.shard) + "/" + std::to_string(j.shards),
         "index mod count == shard index");
  if (!member(p, "point", "point", f, line).is_object()) fail(f, line, "point", "expected an object", "{key: value}");
  const json& st = member(p, "status", "status", f, line);
  if (st != "ok" && st != "infeasible") fail(f, line, "status", "unknown value " + st.dump(), "ok, infeasible");
  if (st == "infeasible" && !member(p, "reason", "reason", f, line).is_string())
    fail(f, line, "reason", "expected a string", "why the point cannot be built");
  if (st == "ok") {
    const bool figures = p.contains("figures"), report = p.contains("report");
    if (!figures && !report) fail(f, line, "figures", "missing", "the point's figures, or its run report");
    if (figures) {
      if (!p["figures"].is_object()) fail(f, line, "figures", "expected an object", "{figure: number}");
      for (const auto& [k, v] : p["figures"].items())
        if (!v.is_number()) fail(f, line, "figures." + k, "expected a number, got " + v.dump(), "a number");
    }
    if (report && !p["report"].is_object()) fail(f, line, "report", "expected a run report", "a run report object");
  }
  return index;
}

}  // namespace

std::string journal_name(size_t shard, size_t shards) {
  return shards == 1 ? "sweep.jsonl" : "sweep-shard-" + std::to_string(shard) + "-of-" + std::to_string(shards) + ".jsonl";
}

std::vector<size_t> SweepJournal::missing() const {
  std::vector<size_t> m;
  const size_t total = study["points"].get<size_t>();
  for (size_t i = shard; i < total; i += shards)
    if (!lines.count(i)) m.push_back(i);
  return m;
}

json journal_header(const json& study, size_t shard, size_t shards, const json& sweep) {
  return {{"sweep_journal", 1}, {"study", study}, {"shard", {{"index", shard}, {"count", shards}}}, {"sweep", sweep}};
}

SweepJournal read_sweep_journal(std::istream& in, const std::string& file) {
  SweepJournal j;
  j.file = file;
  std::string text;
  uint64_t offset = 0;
  size_t line = 0;
  // One line: false at the end; a last line without its newline was cut short.
  auto next = [&](uint64_t& at, bool& whole) {
    at = offset;
    text.clear();
    if (!std::getline(in, text)) return false;
    whole = !in.eof();
    offset += text.size() + (whole ? 1 : 0);
    ++line;
    if (text.size() > kMaxJournalLineBytes)
      fail(file, line, "", "a line of " + std::to_string(text.size()) + " bytes", "at most 64 MiB a line");
    return true;
  };
  uint64_t at = 0;
  bool whole = false;
  if (!next(at, whole) || !whole) fail(file, 1, "", "no header line", "a journal normsim sweep writes");
  j.header = parse_line(text, file, line);
  if (!j.header.is_object() || !j.header.contains("sweep_journal") || j.header["sweep_journal"] != 1)
    fail(file, 1, "sweep_journal", "not a sweep journal", "a journal normsim sweep writes (sweep_journal: 1)");
  j.study = member(j.header, "study", "study", file, 1);
  const size_t total = count_of(member(j.study, "points", "study.points", file, 1), "study.points", file, 1, 1, SIZE_MAX >> 1);
  strings(member(j.study, "keys", "study.keys", file, 1), "study.keys", file, 1);
  strings(member(j.study, "objectives", "study.objectives", file, 1), "study.objectives", file, 1);
  if (!member(j.study, "mode", "study.mode", file, 1).is_string())
    fail(file, 1, "study.mode", "expected a string", "bit-accurate, timing-only");
  const json& shard = member(j.header, "shard", "shard", file, 1);
  j.shards = count_of(member(shard, "count", "shard.count", file, 1), "shard.count", file, 1, 1, 100000);
  j.shard = count_of(member(shard, "index", "shard.index", file, 1), "shard.index", file, 1, 0, j.shards - 1);
  const json& sweep = member(j.header, "sweep", "sweep", file, 1);
  if (!member(sweep, "arguments", "sweep.arguments", file, 1).is_object())
    fail(file, 1, "sweep.arguments", "expected an object", "the sweep's arguments");
  strings(member(sweep, "command", "sweep.command", file, 1), "sweep.command", file, 1);
  j.complete_bytes = offset;
  while (next(at, whole)) {
    if (!whole) {  // the process died writing this line
      j.torn_bytes = offset - at;
      break;
    }
    const json p = parse_line(text, file, line);
    const size_t index = check_point(p, j, total, line);
    if (!j.lines.emplace(index, at).second)
      fail(file, line, "index", "point " + std::to_string(index) + " twice", "each point once");
    j.complete_bytes = offset;
  }
  return j;
}

SweepJournal read_sweep_journal_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw config::ConfigError(path + ": is not a regular file (allowed: a journal normsim sweep writes)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw config::ConfigError(path + ": cannot read (allowed: a journal normsim sweep writes)");
  return read_sweep_journal(in, path);
}

SweepJournalWriter::SweepJournalWriter(const std::string& path, const json& header, const SweepJournal* resume) : path_(path) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path().empty() ? "." : std::filesystem::path(path).parent_path(), ec);
  if (resume) {
    if (resume->torn_bytes) std::filesystem::resize_file(path, resume->complete_bytes, ec);
    if (ec) throw std::runtime_error(path + ": cannot cut its torn last line: " + ec.message());
    out_.open(path, std::ios::binary | std::ios::app);
  } else {
    out_.open(path, std::ios::binary | std::ios::trunc);
    if (out_) out_ << header.dump() << "\n" << std::flush;
  }
  if (!out_) throw std::runtime_error(path + ": cannot write");
}

void SweepJournalWriter::add(const json& point) {
  out_ << point.dump() << "\n" << std::flush;
  if (!out_) throw std::runtime_error(path_ + ": write failed");
}

SweepJournalSet check_journal_set(std::vector<SweepJournal> journals, std::vector<std::string> texts) {
  if (journals.empty()) throw config::ConfigError("merge: no journals (allowed: the --out of sweep --shard)");
  const SweepJournal& first = journals.front();
  std::map<size_t, std::string> seen;  // shard index -> file
  for (const auto& j : journals) {
    if (j.study != first.study || j.shards != first.shards)
      throw config::ConfigError(j.file + ": a shard of another study than " + first.file + " (allowed: the shards of one sweep)");
    if (seen.count(j.shard)) throw config::ConfigError(j.file + ": shard " + std::to_string(j.shard) + " again (also " + seen[j.shard] + ")");
    seen[j.shard] = j.file;
  }
  std::string shards_missing;
  size_t n_shards_missing = 0;
  for (size_t i = 0; i < first.shards; ++i)
    if (!seen.count(i)) shards_missing += (n_shards_missing++ ? ", " : "") + std::to_string(i);
  if (n_shards_missing)
    throw config::ConfigError("merge: " + std::to_string(n_shards_missing) + " of " + std::to_string(first.shards) +
                              " shards are missing: " + shards_missing + " (allowed: all shards 0.." + std::to_string(first.shards - 1) + ")");
  // The points not there yet, named (the first 20) and counted.
  std::vector<size_t> missing;
  std::string where;
  for (const auto& j : journals)
    for (size_t i : j.missing()) missing.push_back(i);
  if (!missing.empty()) {
    std::sort(missing.begin(), missing.end());
    std::string list;
    for (size_t k = 0; k < std::min<size_t>(missing.size(), 20); ++k) list += (k ? ", " : "") + std::to_string(missing[k]);
    if (missing.size() > 20) list += ", ...";
    throw config::ConfigError("merge: " + std::to_string(missing.size()) + " of " + first.study["points"].dump() +
                              " points are missing: " + list + " (allowed: complete shards; `normsim sweep --resume DIR --shard i/n` finishes one)");
  }
  SweepJournalSet s;
  s.study = first.study;
  s.journals = std::move(journals);
  s.texts = std::move(texts);
  return s;
}

PointSource SweepJournalSet::points() const {
  return [this](const PointVisitor& visit) {
    std::vector<std::unique_ptr<std::istream>> in;
    for (size_t k = 0; k < journals.size(); ++k)
      in.push_back(texts.empty() ? std::unique_ptr<std::istream>(std::make_unique<std::ifstream>(journals[k].file, std::ios::binary))
                                 : std::make_unique<std::istringstream>(texts.at(k)));
    // Shard i holds the points i, i + n, ...: index order takes them in turn.
    const size_t total = study["points"].get<size_t>(), n = journals.front().shards;
    std::vector<size_t> of_shard(n);
    for (size_t k = 0; k < journals.size(); ++k) of_shard[journals[k].shard] = k;
    std::string text;
    for (size_t i = 0; i < total; ++i) {
      const size_t k = of_shard[i % n];
      std::istream& f = *in[k];
      f.clear();
      f.seekg(static_cast<std::streamoff>(journals[k].lines.at(i)));
      if (!std::getline(f, text)) throw config::ConfigError(journals[k].file + ": changed while it was read (allowed: a journal no sweep writes to)");
      json p;
      try {
        p = json::parse(text);
      } catch (const json::exception& e) {
        fail(journals[k].file, 0, "", std::string("changed while it was read (") + e.what() + ")", "a journal no sweep writes to");
      }
      visit(p);
    }
  };
}

}  // namespace normsim::report
