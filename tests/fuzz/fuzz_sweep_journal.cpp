// The files normsim reads back: a sweep's journals (JSON Lines), parsed,
// checked as one set and written out as `normsim merge` does (the layout
// pass and every row). The input holds up to four journals, split at lines
// "#SHARD".
#include <sstream>

#include "fuzz_target.hpp"
#include "sim/config/config_error.hpp"
#include "sim/report/report_stamp.hpp"
#include "sim/report/sweep_journal.hpp"

std::vector<std::string> fuzz_seeds() {
  const std::string study = R"("study": {"keys": ["arch.lanes"], "objectives": ["cycles"], "mode": "timing-only", "points": 2, "inputs": {"configs": {"arch": {"name": "a", "source": "a.yaml", "sha256": "00", "overrides": ["arch.lanes=4"]}}}})";
  const std::string figures = R"({"timing.cycles": 100, "timing.time_us": 0.1, "traffic.dram_bytes_read": 64, "area.total_mm2": 0.1})";
  const std::string sweep = R"("sweep": {"arguments": {}, "command": ["normsim", "sweep"]})";
  return {R"({"sweep_journal": 1, )" + study + R"(, "shard": {"index": 0, "count": 2}, )" + sweep + "}\n" +
              R"({"index": 0, "point": {"arch.lanes": 4}, "status": "ok", "figures": )" + figures + "}\n#SHARD\n" +
              R"({"sweep_journal": 1, )" + study + R"(, "shard": {"index": 1, "count": 2}, )" + sweep + "}\n" +
              R"({"index": 1, "point": {"arch.lanes": 8}, "status": "infeasible", "reason": "x"})" + "\n",
          R"({"sweep_journal": 1, )" + study + R"(, "shard": {"index": 0, "count": 1}, )" + sweep + "}\n" +
              R"({"index": 1, "point": {"arch.lanes": 8}, "status": "ok", "report": {"timing": {"cycles": 5}}})" + "\n" +
              R"({"index": 0, "point": {"arch.lanes": 4}, "status": "ok", "figu)"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace normsim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts;
  for (size_t start = 0; parts.size() < 4;) {
    const size_t at = text.find("\n#SHARD\n", start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start + 1));
    if (at == std::string::npos) break;
    start = at + 8;
  }
  try {
    std::vector<report::SweepJournal> journals;
    for (size_t i = 0; i < parts.size(); ++i) {
      std::istringstream in(parts[i]);
      journals.push_back(report::read_sweep_journal(in, "shard" + std::to_string(i) + ".jsonl"));
    }
    const report::SweepJournalSet set = report::check_journal_set(std::move(journals), parts);
    // As `normsim merge` writes them: the layout, then every row.
    (void)report::study_configs({{"study", set.study}});
    const report::SweepLayout l = report::scan_sweep(set.study, set.points());
    size_t position = 0;
    set.points()([&](const nlohmann::json& p) {
      nlohmann::json point = p;
      report::with_pareto(set.study, l, position++, point);
      (void)report::sweep_csv_row(set.study, l, point);
      (void)report::sweep_table_row(set.study, l, point);
    });
  } catch (const config::ConfigError&) {
  } catch (const std::out_of_range&) {  // a point without an objective's figure: merge's one line
  }
  return 0;
}
