// The reports normsim reads back: a sharded sweep's shard files, parsed and
// merged (`normsim merge`). The input holds up to four shards, split at
// lines "#SHARD".
#include "fuzz_target.hpp"
#include "sim/config/config_error.hpp"
#include "sim/report/report_stamp.hpp"
#include "sim/report/sweep_shards.hpp"

std::vector<std::string> fuzz_seeds() {
  const std::string study = R"("study": {"keys": ["arch.lanes"], "objectives": ["cycles"], "mode": "timing-only", "points": 2, "inputs": {"configs": {"arch": {"name": "a", "source": "a.yaml", "sha256": "00", "overrides": ["arch.lanes=4"]}}}})";
  const std::string report = R"({"timing": {"cycles": 100, "time_us": 0.1}, "traffic": {"dram_bytes_read": 64}, "area": {"total_mm2": 0.1}})";
  return {"{" + study + R"(, "shard": {"index": 0, "count": 2}, "points": [{"index": 0, "point": {"arch.lanes": 4}, "status": "ok", "report": )" +
              report + "}]}\n#SHARD\n{" + study +
              R"(, "shard": {"index": 1, "count": 2}, "points": [{"index": 1, "point": {"arch.lanes": 8}, "status": "infeasible", "reason": "x"}]})",
          "{" + study + R"(, "shard": {"index": 0, "count": 1}, "points": [])"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace normsim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts;
  for (size_t start = 0; parts.size() < 4;) {
    const size_t at = text.find("\n#SHARD\n", start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 8;
  }
  try {
    std::vector<report::SweepShard> shards;
    for (size_t i = 0; i < parts.size(); ++i) shards.push_back(report::parse_sweep_shard(parts[i], "shard" + std::to_string(i) + ".json"));
    const nlohmann::json all = report::merge_sweep_shards(shards);
    // As `normsim merge` reads the study's configs back for its stamp.
    (void)report::study_configs(all);
  } catch (const config::ConfigError&) {
  }
  return 0;
}
