// The committed golden data is complete and consistent: every kernel at every
// required shape (or recorded as refused), counters present, outputs on disk,
// the cancellation story as recorded, and under the size budget.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "sim/core/npy.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
fs::path golden() {
  const char* s = std::getenv("NORMSIM_SOURCE_DIR");
  return fs::path(s ? s : NORMSIM_TEST_SOURCE_DIR) / "gpu_ref/golden/h200";
}
json load(const std::string& f) {
  std::ifstream in(golden() / f);
  return json::parse(in);
}
}  // namespace

TEST(GoldenIndex, EveryKernelAtEveryRequiredShape) {
  const json cases = load("index.json");
  const json env = load("env.json");
  std::set<std::string> have, refused;
  for (const auto& c : cases)
    have.insert(c["kernel"].get<std::string>() + "_" + c["dtype"].get<std::string>() + "_" +
                std::to_string(c["rows"].get<int64_t>()) + "x" + std::to_string(c["hidden"].get<int64_t>()));
  for (const auto& u : env["unsupported_cases"]) {
    std::string id = u["id"];
    refused.insert(id.substr(0, id.rfind("_b")));
    EXPECT_NE(u["reason"].get<std::string>().find("on-chip scheme"), std::string::npos) << id;
  }
  for (const char* k : {"v1", "v2", "v3", "v4", "v5", "v6", "welford_warp_reg", "welford_block_smem", "block_reread",
                        "rms_warp", "rms_block"})
    for (const char* s : {"8192x768", "32768x4096", "4096x8192", "1024x65536", "1024x4096", "8192x1000"}) {
      const std::string id = std::string(k) + "_fp32_" + s;
      EXPECT_TRUE(have.count(id) || refused.count(id)) << id;
    }
  for (const char* k : {"v6", "welford_block_smem", "rms_warp", "rms_block"})
    for (const char* s : {"8192x768", "32768x4096", "1024x65536"}) EXPECT_TRUE(have.count(std::string(k) + "_bf16_" + s)) << k << s;
}

TEST(GoldenIndex, CasesCarryTheContractFields) {
  const json cases = load("index.json");
  ASSERT_GT(cases.size(), 100u);
  for (const auto& c : cases) {
    for (const char* k : {"kernel", "rows", "hidden", "dtype", "block", "time_us", "copy_gbps", "registers_per_thread",
                          "seed", "dist"})
      ASSERT_TRUE(c.contains(k)) << c["id"] << " lacks " << k;
    ASSERT_TRUE(c["ncu"].is_object()) << c["id"];
    for (const char* k : {"dram_bytes_read", "dram_bytes_written", "lts_bytes", "duration_us", "sm_cycles"})
      ASSERT_TRUE(c["ncu"].contains(k)) << c["id"] << " ncu lacks " << k;
    EXPECT_GT(c["time_us"].get<double>(), 0.0);
    EXPECT_GT(c["copy_gbps"].get<double>(), 3000.0);  // same-run copy on an H200
    // Event timing and ncu's duration of the same kernel agree to 25% (launch gaps aside).
    const double t = c["time_us"], d = c["ncu"]["duration_us"];
    if (t > 50) {
      EXPECT_NEAR(d / t, 1.0, 0.25) << c["id"];
    }
    if (c["dist"] == "normal") {
      EXPECT_TRUE(c["valid"].get<bool>()) << c["id"];
    }
  }
}

TEST(GoldenIndex, OutputsExistAndMatchShapes) {
  int with_outputs = 0, partial = 0;
  for (const auto& c : load("index.json")) {
    if (c["outputs"].is_null()) continue;
    ++with_outputs;
    const std::vector<int64_t> tensor{c["rows"], c["hidden"]}, per_row{c["rows"]}, per_column{c["hidden"]};
    auto shape = [&](const char* part) {
      return normsim::core::read_npy((golden() / c["outputs"][part].get<std::string>()).string()).shape;
    };
    if (c["outputs"].contains("dx")) {  // the backward: dx (all rows, or a large case's first), whole dgamma, dbeta
      const auto dx = shape("dx");
      ASSERT_EQ(dx.size(), 2u) << c["id"];
      EXPECT_EQ(dx[1], c["hidden"].get<int64_t>()) << c["id"];
      EXPECT_TRUE(dx == tensor || (dx[0] >= 1 && dx[0] * dx[1] == 65536)) << c["id"] << " keeps " << dx[0] << " rows";
      EXPECT_EQ(shape("dgamma"), per_column) << c["id"];
      EXPECT_EQ(shape("dbeta"), per_column) << c["id"];
      continue;
    }
    // A forward case keeps all its rows, or (a long-row case, normref
    // --npy-max-elements) its first rows: y, rstd (and mean, z) agree on how many.
    const int64_t kept = shape("rstd").at(0);
    EXPECT_TRUE(kept == c["rows"].get<int64_t>() ||
                (kept >= 1 && kept * c["hidden"].get<int64_t>() <= (int64_t(1) << 20)))
        << c["id"] << " keeps " << kept << " rows";
    EXPECT_EQ(shape("y"), (std::vector<int64_t>{kept, c["hidden"]})) << c["id"];
    if (c["outputs"].contains("mean")) {
      EXPECT_EQ(shape("mean"), std::vector<int64_t>{kept}) << c["id"];
    }
    if (c["outputs"].contains("z")) {
      EXPECT_EQ(shape("z"), tensor) << c["id"];
    }
    if (kept < c["rows"].get<int64_t>()) ++partial;
  }
  EXPECT_GE(with_outputs, 63);
  // fast_ln / fast_rms, fp32 and bf16: the first 4 rows at 1024 x 65536, the
  // first 65536 values' rows at the other 7 shapes.
  EXPECT_EQ(partial, 32);
}

TEST(GoldenIndex, CancellationRecordedAsTheSeedsSay) {
  for (const auto& c : load("index.json")) {
    if (c["dist"] != "cancellation") continue;
    const std::string k = c["kernel"];
    const bool single_pass = k == "v4" || k == "v5";
    EXPECT_EQ(c["valid"].get<bool>(), !single_pass) << c["id"];
    if (single_pass) {
      EXPECT_GT(c["validation"]["nonfinite"].get<int64_t>(), 0) << c["id"];
    }
    else EXPECT_LT(c["validation"]["rel_l2_error"].get<double>(), 1e-3) << c["id"];
  }
}

TEST(GoldenIndex, UnderSizeBudget) {
  uintmax_t bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(golden()))
    if (e.is_regular_file()) bytes += e.file_size();
  EXPECT_LT(bytes, 40u << 20);
}

TEST(GoldenIndex, LatencyLadderIsOrdered) {
  std::ifstream in(golden() / "latency.jsonl");
  std::vector<std::pair<int64_t, double>> pts;
  std::string line;
  while (std::getline(in, line)) {
    const json j = json::parse(line);
    pts.emplace_back(j["footprint_kib"].get<int64_t>(), j["ns_per_load"].get<double>());
  }
  ASSERT_GE(pts.size(), 6u);
  for (size_t i = 1; i < pts.size(); ++i) EXPECT_GE(pts[i].second, 0.95 * pts[i - 1].second);  // never faster when larger
  EXPECT_LT(pts.front().second, 50.0);  // L1
  EXPECT_GT(pts.back().second, 250.0);  // DRAM
}
