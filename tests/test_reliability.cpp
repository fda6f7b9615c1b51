// The pure pieces behind the CLI's reliability (docs/RELIABILITY.md): the
// strict YAML loader, printable(), the report check, the golden-index and
// sweep-shard readers, and the fixed-point quantiser at the ends of i128.
#include <gtest/gtest.h>

#include <sstream>

#include <cmath>
#include <limits>

#include "sim/config/config_error.hpp"
#include "sim/config/printable.hpp"
#include "sim/config/workload.hpp"
#include "sim/config/yaml_reader.hpp"
#include "sim/core/fixed_point.hpp"
#include "sim/report/report_check.hpp"
#include "sim/report/sweep_journal.hpp"
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

namespace {
const std::string kJournalStudy = R"("study": {"keys": ["arch.lanes"], "objectives": ["cycles"], "mode": "timing-only", "points": 4})";
std::string journal_head(int shard, int count) {
  return R"({"sweep_journal": 1, )" + kJournalStudy + R"(, "shard": {"index": )" + std::to_string(shard) + R"(, "count": )" +
         std::to_string(count) + R"(}, "sweep": {"arguments": {}, "command": []}})" + "\n";
}
std::string ok_point(int i, double cycles) {
  return R"({"index": )" + std::to_string(i) + R"(, "point": {"arch.lanes": 4}, "status": "ok", "figures": {"timing.cycles": )" +
         std::to_string(cycles) + "}}\n";
}
normsim::report::SweepJournal read_journal(const std::string& text) {
  std::istringstream in(text);
  return normsim::report::read_sweep_journal(in, "s.jsonl");
}
}  // namespace

TEST(SweepJournal, MalformedJournalsAreOneLineErrorsNamingTheLineAndKey) {
  auto err = [&](const std::string& text) { return error_of([&] { (void)read_journal(text); }); };
  EXPECT_EQ(err(journal_head(0, 2) + ok_point(0, 5) + ok_point(2, 6)), "no error");
  EXPECT_NE(err(journal_head(2, 2)).find("s.jsonl:1: key 'shard.index'"), std::string::npos);
  EXPECT_NE(err("{\"sweep_journal\": 2}\n").find("not a sweep journal"), std::string::npos);
  EXPECT_NE(err("").find("no header line"), std::string::npos);
  EXPECT_NE(err(journal_head(0, 2) + ok_point(1, 5)).find("s.jsonl:2: key 'index': 1 is not a point of shard 0/2"), std::string::npos);
  EXPECT_NE(err(journal_head(0, 1) + ok_point(0, 5) + ok_point(0, 5)).find("s.jsonl:3: key 'index': point 0 twice"), std::string::npos);
  EXPECT_NE(err(journal_head(0, 1) + R"({"index": 0, "point": {}, "status": "done"})" "\n").find("s.jsonl:2: key 'status'"),
            std::string::npos);
  EXPECT_NE(err(journal_head(0, 1) + R"({"index": 0, "point": {}, "status": "ok", "figures": {"timing.cycles": "5"}})" "\n")
                .find("key 'figures.timing.cycles': expected a number"),
            std::string::npos);
  EXPECT_NE(err(journal_head(0, 1) + R"({"index": 0, "point": {}, "status": "ok"})" "\n").find("key 'figures': missing"),
            std::string::npos);
}

// A process killed while writing a line leaves it without its newline: not a
// point; resume cuts it off and runs the point again.
TEST(SweepJournal, ALastLineCutShortIsNotAPoint) {
  const std::string whole = journal_head(0, 1) + ok_point(0, 5) + ok_point(1, 6);
  const auto j = read_journal(whole + R"({"index": 2, "point": {"arch.la)");
  EXPECT_EQ(j.lines.size(), 2u);
  EXPECT_EQ(j.complete_bytes, whole.size());
  EXPECT_GT(j.torn_bytes, 0u);
  EXPECT_EQ(j.missing(), (std::vector<size_t>{2, 3}));
}

TEST(SweepJournal, MergeNamesTheMissingShardsAndPoints) {
  using namespace normsim::report;
  std::vector<SweepJournal> one{read_journal(journal_head(0, 2) + ok_point(0, 5))};
  EXPECT_NE(error_of([&] { (void)check_journal_set(one); }).find("merge: 1 of 2 shards are missing: 1"), std::string::npos);
  std::vector<SweepJournal> both{read_journal(journal_head(0, 2) + ok_point(0, 5)), read_journal(journal_head(1, 2) + ok_point(3, 6))};
  EXPECT_NE(error_of([&] { (void)check_journal_set(both); }).find("merge: 2 of 4 points are missing: 1, 2"), std::string::npos);
}

// Found by fuzzing the shard reader: a point without a figure the study
// ranks escaped as std::out_of_range from std::map::at; the layout pass
// names it (the CLI turns it into its one line).
TEST(SweepJournal, APointWithoutTheStudysObjectiveIsNamed) {
  using namespace normsim::report;
  const std::string text = journal_head(0, 1) + ok_point(0, 5) + ok_point(1, 6) + ok_point(2, 7) +
                           R"({"index": 3, "point": {"arch.lanes": 4}, "status": "ok", "figures": {"timing.time_us": 1}})" "\n";
  std::vector<SweepJournal> j{read_journal(text)};
  const SweepJournalSet set = check_journal_set(std::move(j), {text});
  try {
    (void)scan_sweep(set.study, set.points());
    ADD_FAILURE() << "no error";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("point 3 has no timing.cycles"), std::string::npos) << e.what();
  }
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
