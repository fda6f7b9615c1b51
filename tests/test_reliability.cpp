// The pure pieces behind the CLI's reliability (docs/RELIABILITY.md): the
// strict YAML loader, printable(), the report check, the golden-index and
// sweep-shard readers, and the fixed-point quantiser at the ends of i128.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sim/config/config_error.hpp"
#include "sim/config/printable.hpp"
#include "sim/config/workload.hpp"
#include "sim/config/yaml_reader.hpp"
#include "sim/core/fixed_point.hpp"
#include "sim/report/report_check.hpp"
#include "sim/report/sweep_shards.hpp"
#include "sim/validate/golden.hpp"

namespace {

using normsim::config::ConfigError;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(StrictYaml, RefusesWhatTheLoaderWouldDropOrGuess) {
  using normsim::config::load_yaml_strict;
  EXPECT_EQ(error_of([] { load_yaml_strict("a: 1\nb: 2\na: 3\n", "f.yaml"); }),
            "f.yaml:3: key 'a': duplicate key (first given at line 1) (allowed: each key once per mapping)");
  EXPECT_EQ(error_of([] { load_yaml_strict("a:\n  b: 1\n  c: {d: 1, d: 2}\n", "f.yaml"); }).substr(0, 28),
            "f.yaml:3: key 'a.c.d': dupli");
  EXPECT_NE(error_of([] { load_yaml_strict("a: 1\n---\nb: 2\n", "f.yaml"); }).find("f.yaml:2: a second YAML document"),
            std::string::npos);
  EXPECT_NE(error_of([] { load_yaml_strict("a: !!binary aGk=\n", "f.yaml"); }).find("a YAML tag"), std::string::npos);
  EXPECT_NE(error_of([] { load_yaml_strict("a: !custom 1\n", "f.yaml"); }).find("a YAML tag"), std::string::npos);
  EXPECT_NE(error_of([] { load_yaml_strict("a: &x 1\nb: *x\n", "f.yaml"); }).find("an anchor"), std::string::npos);
  EXPECT_NE(error_of([] { load_yaml_strict("? [a, b]\n: 1\n", "f.yaml"); }).find("a key that is a list or a mapping"),
            std::string::npos);
  EXPECT_NE(error_of([] { load_yaml_strict(std::string(normsim::config::kMaxConfigFileBytes + 1, ' '), "f.yaml"); })
                .find("at most 16777216 bytes"),
            std::string::npos);
  // The same key in two mappings, in list items, and quoted strings are fine.
  EXPECT_EQ(error_of([] { load_yaml_strict("a: {x: 1}\nb: {x: 2}\nl: [{x: 1}, {x: 2}]\ns: \"q\"\n", "f.yaml"); }), "no error");
}

TEST(StrictYaml, AWorkloadWithADuplicateKeyIsRefused) {
  const std::string e = error_of([] { normsim::config::parse_workload_text("norm: layernorm\nrows: 2\nhidden: 64\nhidden: 128\n", "w.yaml"); });
  EXPECT_EQ(e.substr(0, 41), "w.yaml:4: key 'hidden': duplicate key (fi");
}

TEST(Printable, EscapesControlBytesAndInvalidUtf8Only) {
  using normsim::config::printable;
  EXPECT_EQ(printable("plain key"), "plain key");
  EXPECT_EQ(printable("a\nb\tc\r"), "a\\nb\\tc\\r");
  EXPECT_EQ(printable("\x1b[31mred\x7f"), "\\x1b[31mred\\x7f");
  EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80");
  EXPECT_EQ(printable("\xc2\x9b"), "\\xc2\\x9b");    // C1 CSI, a terminal control
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");    // overlong
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable("\xe2\x86"), "\\xe2\\x86");    // truncated
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
}

TEST(ReportCheck, NonFiniteAnywhereAndNegativeAmountsAreNamed) {
  using normsim::report::check_report_numbers;
  nlohmann::json r = {{"timing", {{"cycles", 100.0}, {"phase_cycles", {{"stream", -99.0}}}}},
                      {"energy", {{"total_uj", std::numeric_limits<double>::infinity()}}},
                      {"launches", {{{"duration_us", std::nan("")}}}},
                      {"prediction", {{"dram_read_elasticity", -0.2}}},
                      {"workload", {{"input", {{"distribution", {{"mean", -3.0}}}}}}}};
  const auto p = check_report_numbers(r);
  ASSERT_EQ(p.size(), 3u);
  std::map<std::string, std::string> by_field;
  for (const auto& x : p) by_field[x.field] = x.value;
  EXPECT_EQ(by_field["timing.phase_cycles.stream"], "-99.0");
  EXPECT_EQ(by_field["energy.total_uj"], "inf");
  EXPECT_EQ(by_field["launches.0.duration_us"], "nan");
  EXPECT_EQ(normsim::report::describe(p).rfind("report field '", 0), 0u);
  EXPECT_TRUE(check_report_numbers({{"timing", {{"cycles", 0}}}, {"traffic", {{"dram_bytes_read", 7}}}}).empty());
}

const char* kCase = R"({"id": "a", "kernel": "v1", "rows": 4, "hidden": 8, "dtype": "fp32", "block": 32, "time_us": 1.5,
  "ncu": {"dram_bytes_read": 1, "dram_bytes_written": 1, "lts_bytes": 1, "duration_us": 1, "sm_cycles": 1}})";

std::string golden_error(const std::string& text) {
  return error_of([&] { normsim::validate::parse_golden_index(text, "g/index.json", "/nonexistent"); });
}

TEST(GoldenIndex, ValidatedLikeAConfig) {
  const std::string c = kCase;
  EXPECT_EQ(golden_error("[" + c + "]"), "no error");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = c;
    t.replace(t.find(from), from.size(), to);
    return "[" + t + "]";
  };
  EXPECT_EQ(golden_error(with("\"rows\": 4", "\"rows\": -5")),
            "g/index.json: key 'rows': case 'a': value -5 out of range (allowed: 1..2147483648)");
  EXPECT_NE(golden_error(with("\"block\": 32", "\"block\": 0")).find("key 'block'"), std::string::npos);
  EXPECT_NE(golden_error(with("\"block\": 32", "\"block\": 48")).find("not a whole number of warps"), std::string::npos);
  EXPECT_NE(golden_error(with("\"lts_bytes\": 1", "\"lts_bytes\": -1")).find("key 'ncu.lts_bytes'"), std::string::npos);
  EXPECT_NE(golden_error(with("\"time_us\": 1.5", "\"time_us\": 0")).find("key 'time_us'"), std::string::npos);
  EXPECT_NE(golden_error("[" + c + ", " + c + "]").find("key 'id': case 1: 'a' is also case 0"), std::string::npos);
  EXPECT_NE(golden_error(with("\"block\": 32", "\"block\": 32, \"outputs\": {\"y\": \"/etc/passwd\"}")).find("not inside the golden folder"),
            std::string::npos);
  EXPECT_NE(golden_error(with("\"block\": 32", "\"block\": 32, \"outputs\": {\"y\": \"a/../../y.npy\"}")).find("not inside"),
            std::string::npos);
  EXPECT_NE(golden_error(with("\"block\": 32", "\"block\": 32, \"outputs\": {\"w\": \"y.npy\"}")).find("unknown output"),
            std::string::npos);
  EXPECT_NE(golden_error(with("\"rows\": 4", "\"rows\": 4, \"rows\": 5")).find("duplicate key"), std::string::npos);
  EXPECT_NE(golden_error(with("\"rows\": 4", "\"rows\": \"4\"")).find("expected an integer"), std::string::npos);
  EXPECT_NE(golden_error(with("\"rows\": 4", "\"rows\": 18446744073709551615")).find("out of range"), std::string::npos);
}

TEST(SweepShards, MalformedShardsAreOneLineErrorsNamingTheKey) {
  using normsim::report::parse_sweep_shard;
  const std::string study = R"("study": {"keys": ["arch.lanes"], "objectives": [], "mode": "timing-only", "points": 2})";
  auto err = [&](const std::string& rest) { return error_of([&] { parse_sweep_shard("{" + study + rest + "}", "s.json"); }); };
  EXPECT_EQ(err(R"(, "shard": {"index": 0, "count": 2}, "points": [])"), "no error");
  EXPECT_NE(err(R"(, "shard": {"index": 2, "count": 2}, "points": [])").find("key 'shard.index'"), std::string::npos);
  EXPECT_NE(err(R"(, "shard": {"index": 0, "count": "2"}, "points": [])").find("key 'shard.count'"), std::string::npos);
  EXPECT_NE(err(R"(, "shard": {"index": 0, "count": 2}, "points": [{"index": 1, "point": {}, "status": "ok", "report": {}}])")
                .find("is not a point of shard 0/2"),
            std::string::npos);
  EXPECT_NE(err(R"(, "shard": {"index": 0, "count": 2}, "points": [{"index": 0, "point": {}, "status": "done"}])")
                .find("key 'points.0.status'"),
            std::string::npos);
}

// Found by fuzz_sweep_shards: a point's report without a figure the study
// tabulates escaped merge as std::out_of_range from std::map::at.
TEST(SweepShards, AReportWithoutTheStudysFiguresIsAConfigError) {
  using namespace normsim::report;
  const std::string study = R"("study": {"keys": ["arch.lanes"], "objectives": ["cycles"], "mode": "timing-only", "points": 1})";
  const SweepShard s = parse_sweep_shard(
      "{" + study + R"(, "shard": {"index": 0, "count": 1}, "points": [{"index": 0, "point": {"arch.lanes": 4}, "status": "ok", "report": {"tyming": {}}}]})",
      "s.json");
  EXPECT_NE(error_of([&] { merge_sweep_shards({s}); }).find("s.json: a point's report lacks a figure"), std::string::npos);
}

TEST(FixedPoint, NegatingTwoToThe127IsDefined) {
  using namespace normsim::core;
  // -2^127 exactly, into a 128-bit wrapping format: the magnitude 2^127 is
  // negated as an unsigned value (UBSan flagged the signed negation).
  Exact v;
  v.neg = true;
  v.mag = static_cast<u128>(1) << 127;
  v.frac = 0;
  const FixedFormat f{64, 0, true, Rounding::half_even, Overflow::wrap};
  QuantFlags fl;
  const Fx q = quantize(v, f, &fl);
  EXPECT_EQ(q.raw, 0);  // -2^127 wraps to 0 in 64 bits
  EXPECT_TRUE(fl.overflow);
  const FixedFormat s{64, 0, true, Rounding::half_even, Overflow::saturate};
  EXPECT_EQ(quantize(v, s, &fl).raw, s.min_raw());
  EXPECT_EQ(quantize(-std::numeric_limits<double>::infinity(), s, &fl).raw, s.min_raw());
  EXPECT_TRUE(fl.overflow);
}

}  // namespace
