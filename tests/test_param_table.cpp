// The key tables (sim/config/param_table.hpp) and the files they read: one
// row per key drives reading, the range check of a struct built in code,
// the echo and the units; mutated shipped files are refused with one line
// or read, never anything else.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "sim/config/arch.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/workload.hpp"
#include "sim/simt/gpu_arch.hpp"

using namespace normsim;
using namespace normsim::config;

namespace {

struct Box {
  int n = 4;
  double x = 0.5;
  bool on = true;
  struct Inner {
    double bytes = 64;
  } inner;
};

const ParamTable<Box>& box_params() {
  static const ParamTable<Box> t = [] {
    auto inner = std::make_shared<ParamTable<Box::Inner>>();
    inner->add(real_param<Box::Inner>("bytes", NORMSIM_MEMBER(bytes), positive(), "bytes", "inner size"));
    ParamTable<Box> b;
    b.add(integer_param<Box>("n", NORMSIM_MEMBER(n), 1, 8, "lanes", "a count"));
    b.add(real_param<Box>("x", NORMSIM_MEMBER(x), open_unit(), "1", "a fraction"));
    b.add(bool_param<Box>("on", NORMSIM_MEMBER(on), "a switch"));
    b.add(section_param<Box>("inner", NORMSIM_MEMBER(inner), std::shared_ptr<const ParamTable<Box::Inner>>(inner)));
    return b;
  }();
  return t;
}

std::string read_error(const std::string& text) {
  try {
    YamlReader r = YamlReader::from_text(text, "b.yaml");
    Box b;
    box_params().read(r, b);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

std::string src() { return std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR; }

}  // namespace

TEST(ParamTable, ReadsTypesRangesAndUnknownKeysWithOneLine) {
  YamlReader r = YamlReader::from_text("n: 8\nx: 0.25\ninner: {bytes: 128}\n", "b.yaml");
  Box b;
  box_params().read(r, b);
  EXPECT_EQ(b.n, 8);
  EXPECT_EQ(b.x, 0.25);
  EXPECT_TRUE(b.on);  // absent: the struct's default
  EXPECT_EQ(b.inner.bytes, 128);
  EXPECT_EQ(read_error("n: 9\n"), "b.yaml:1: key 'n': value 9 out of range (allowed: 1..8)");
  EXPECT_EQ(read_error("n: two\n"), "b.yaml:1: key 'n': expected an integer, got 'two' (allowed: 1..8)");
  EXPECT_EQ(read_error("x: 1\n"), "b.yaml:1: key 'x': value 1 must be strictly between 0 and 1 (allowed: (0, 1))");
  EXPECT_EQ(read_error("on: yes\n"), "b.yaml:1: key 'on': expected a boolean, got 'yes' (allowed: true, false)");
  EXPECT_EQ(read_error("n: 2\ninner:\n  bytes: 0\n"), "b.yaml:3: key 'inner.bytes': value 0 must be > 0 (allowed: > 0)");
  EXPECT_EQ(read_error("n: 2\nm: 3\n"), "b.yaml:2: key 'm': unknown key (allowed: n, x, on, inner)");
  EXPECT_EQ(read_error("inner: {size: 3}\n"), "b.yaml:1: key 'inner.size': unknown key (allowed: bytes)");
}

TEST(ParamTable, ChecksAStructBuiltInCodeWithTheSameRanges) {
  Box b;
  EXPECT_FALSE(box_params().check(b));
  b.inner.bytes = -1;
  const auto e = box_params().check(b);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->key_path, "inner.bytes");
  EXPECT_EQ(e->problem.problem, "value -1 must be > 0");
  b.inner.bytes = 1;
  b.n = 0;
  EXPECT_EQ(box_params().check(b)->key_path, "n");
}

TEST(ParamTable, EchoUnitsAndDocsComeFromTheRows) {
  const Box b;
  const auto j = box_params().echo(b);
  EXPECT_EQ(j["n"], 4);
  EXPECT_EQ(j["x"], 0.5);
  EXPECT_EQ(j["on"], true);
  EXPECT_EQ(j["inner"]["bytes"], 64.0);
  EXPECT_EQ(box_params().unit_of("n"), "lanes");
  EXPECT_EQ(box_params().unit_of("inner.bytes"), "bytes");
  EXPECT_EQ(box_params().unit_of("nope"), "");
  const auto rows = box_params().document();
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].key, "n");
  EXPECT_EQ(rows[0].type, "int 1..8");
  EXPECT_EQ(rows[0].default_value, "4");
  EXPECT_EQ(rows[3].key, "inner.bytes");
  EXPECT_EQ(rows[3].unit, "bytes");
}

TEST(ParamTable, ShippedArchsEchoEveryKeyTheyRead) {
  // The ASIC section's echo has a value for every documented key: the
  // report shows the config the run used, whole.
  const Arch a = load_arch(src() + "/workloads/arch/asic-default.yaml");
  ASSERT_TRUE(a.asic);
  const auto j = asic_params().echo(*a.asic);
  for (const auto& row : asic_params().document()) {
    const auto dot = row.key.find('.');
    const std::string head = row.key.substr(0, dot);
    ASSERT_TRUE(j.contains(head)) << row.key;  // (a const json's [] on a missing key is undefined)
    const auto& v = dot == std::string::npos ? j.at(head) : j.at(head).value(row.key.substr(dot + 1), nlohmann::json());
    EXPECT_FALSE(v.is_null()) << row.key;
  }
  EXPECT_FALSE(asic_params().check(*a.asic));
  EXPECT_EQ(arch_params().unit_of("asic.dram.peak_bytes_per_s"), "bytes/s");
  EXPECT_EQ(arch_params().unit_of("formats.sum.bits"), "bits");
  EXPECT_EQ(workload_params().unit_of("hidden"), "elements");
  EXPECT_EQ(simt::gpu_arch_params().unit_of("l2.bytes"), "bytes");
}

TEST(ParamTable, MutatedShippedFilesAreReadOrRefusedWithOneLine) {
  // Every shipped file with one value, key or line changed at random:
  // parsed, or a ConfigError of one line naming the file -- never another
  // exception, never a crash (a deterministic stand-in for the fuzz targets).
  std::mt19937_64 rng(20261201);
  const char* values[] = {"0", "-1", "1e309", "nan", "[1, 2]", "{a: 1}", "true", "\"\"", "99999999999999999999", "0.5", "x"};
  int files = 0, refused = 0, read = 0;
  for (const char* dir : {"/workloads", "/workloads/arch"}) {
    for (const auto& e : std::filesystem::directory_iterator(src() + dir)) {
      if (e.path().extension() != ".yaml") continue;
      ++files;
      std::ifstream in(e.path());
      std::stringstream ss;
      ss << in.rdbuf();
      std::vector<std::string> lines;
      for (std::string l; std::getline(ss, l);) lines.push_back(l);
      for (int trial = 0; trial < 60; ++trial) {
        auto mutated = lines;
        auto& l = mutated[rng() % mutated.size()];
        const auto colon = l.find(':');
        switch (rng() % 3) {
          case 0: if (colon != std::string::npos) l = l.substr(0, colon + 1) + " " + values[rng() % std::size(values)]; break;
          case 1: if (colon != std::string::npos) l.insert(colon, "_x"); break;
          default: l = l.substr(0, rng() % (l.size() + 1)); break;
        }
        std::string text;
        for (const auto& m : mutated) text += m + "\n";
        const std::string file = e.path().filename().string();
        try {
          if (e.path().parent_path().filename() == "arch") {
            if (file == "h200.yaml") {
              const std::string tmp = ::testing::TempDir() + "/gpu.yaml";
              std::ofstream(tmp) << text;
              (void)simt::load_gpu_arch(tmp);
            } else {
              (void)parse_arch_text(text, file);
            }
          } else {
            (void)parse_workload_text(text, file);
          }
          ++read;
        } catch (const ConfigError& err) {
          ++refused;
          EXPECT_EQ(std::string(err.what()).find('\n'), std::string::npos) << err.what();
        }
      }
    }
  }
  EXPECT_GE(files, 16);
  EXPECT_GT(refused, 100);
  EXPECT_GT(read, 100);
}

// Quantities carry their unit: the memory configs of both models use them,
// mixing two units does not compile, and the one conversion is exact.
template <class A, class B>
concept Addable = requires(A a, B b) { a + b; };
template <class A, class B>
concept Assignable = requires(A a, B b) { a = b; };
static_assert(Addable<core::Bytes, core::Bytes>);
static_assert(!Addable<core::Bytes, core::Cycles>);
static_assert(!Addable<core::BytesPerCycle, core::BytesPerSecond>);
static_assert(!Assignable<core::Bytes&, double>);
static_assert(!Assignable<simt::GpuDramConfig&, config::DramConfig>);
static_assert(std::is_same_v<decltype(config::DramConfig{}.peak_bytes_per_s), core::BytesPerSecond>);
static_assert(std::is_same_v<decltype(config::DramConfig{}.latency_ns), core::Nanoseconds>);
static_assert(std::is_same_v<decltype(simt::GpuDramConfig{}.bytes_per_s), core::BytesPerSecond>);
static_assert(std::is_same_v<decltype(config::L2Config{}.capacity_bytes), decltype(simt::GpuL2Config{}.bytes)>);

TEST(Units, ConversionsAndTheKeyTablesUnitsComeFromTheType) {
  // The H200's DRAM at its SM clock, per cycle and back.
  const core::BytesPerSecond bw(3.976e12);
  const core::BytesPerCycle per = core::per_cycle(bw, core::mhz(1980));
  EXPECT_EQ(per.value(), 3.976e12 / (1980 * 1e6));
  EXPECT_DOUBLE_EQ(core::per_second(per, core::mhz(1980)).value(), 3.976e12);
  EXPECT_EQ((core::BytesPerCycle(64) * core::Cycles(200)).value(), 12800.0);
  EXPECT_EQ((core::Bytes(12800) / core::BytesPerCycle(64)).value(), 200.0);
  EXPECT_EQ(core::Bytes(6) / core::Bytes(4), 1.5);
  EXPECT_EQ(core::ghz(1.5).value(), 1.5e9);
  // A key's unit in the tables and CSV headers is its member type's.
  EXPECT_EQ(arch_params().unit_of("asic.dram.latency_ns"), core::Nanoseconds::unit());
  EXPECT_EQ(arch_params().unit_of("asic.l2.capacity_bytes"), core::Bytes::unit());
  EXPECT_EQ(simt::gpu_arch_params().unit_of("dram.bytes_per_s"), core::BytesPerSecond::unit());
  EXPECT_EQ(simt::gpu_arch_params().unit_of("dram.latency_cycles"), "cycles");
  EXPECT_EQ(simt::gpu_arch_params().unit_of("l1.smem_carveout_bytes"), "bytes");
}
