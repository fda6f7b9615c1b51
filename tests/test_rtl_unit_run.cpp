// `normsim run --rtl-full` can fail: the verilated forward unit built from
// a design one resource short of the model's -- a re-read FIFO one entry
// shallower, an SRAM bank fewer, a row buffer fewer, a merge unit fewer --
// must disagree with
// the clocked model at some act, and the unchanged design must agree. The
// model and the RTL are put together as run_asic does (NormAccelerator
// logging its acts, RtlUnit after it); each case is a process of its own
// (SystemC elaborates once).
#include <gtest/gtest.h>
#include <systemc.h>

#include <functional>
#include <string>
#include <vector>

#include "sim/asic/asic_run.hpp"
#include "sim/asic/norm_accelerator.hpp"
#include "sim/asic/rtl_unit.hpp"
#include "sim/asic/run_geometry.hpp"
#include "sim/asic/sim_time.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/yaml_reader.hpp"

int sc_main(int, char**) { return 0; }  // libsystemc wants one; gtest's main runs the tests

namespace {
using namespace normsim;

using Mutation = std::function<void(asic::RunGeometry&, asic::AsicConfig&, core::MergeSchedule&)>;

// The model of `workload` (64 rows, on `path`, with the arch's `sets`), and
// the RTL of the same design changed by `mutate`: "" when the two agree act
// for act, else the comparison's line.
std::string run_against(const std::string& workload, const char* path, const Mutation& mutate,
                        const std::vector<std::string>& sets = {}) {
  std::vector<config::Override> wo{config::parse_override("workload.rows=64")};
  std::vector<config::Override> ao{config::parse_override(std::string("arch.asic.input_path=") + path)};
  for (const std::string& s : sets) {
    const config::Override o = config::parse_override(s);
    (o.target == "workload" ? wo : ao).push_back(o);
  }
  const config::Workload w = config::load_workload(workload, wo);
  const config::Arch a = config::load_arch("asic-default", ao);
  asic::AsicOptions o;
  o.numerics = false;
  o.rtl_full = true;
  const asic::AsicConfig c = asic::resolve_asic_config(w, a, o);
  EXPECT_EQ(c.timing, config::UnitTiming::cycle) << "--rtl-full runs the clocked model";
  const asic::RunGeometry g = asic::make_run_geometry(w, a, c);
  const core::MergeSchedule merge{a.lanes, a.merge.units};
  asic::RunGeometry rtl_g = g;
  asic::AsicConfig rtl_c = c;
  core::MergeSchedule rtl_merge = merge;
  mutate(rtl_g, rtl_c, rtl_merge);
  asic::set_cycle_resolution();
  asic::g_whole_cycles = true;
  asic::NormAccelerator top("norm_accelerator", w, a, g, c, merge, nullptr);
  asic::RtlUnit rtl(rtl_g, rtl_c, rtl_merge);
  asic::EdgeLog log;
  top.log_edges(log);
  sc_core::sc_start();
  EXPECT_EQ(top.output().rows_done(), 64);
  try {
    const asic::RtlFullCheck check = rtl.compare(log);
    EXPECT_EQ(check.rows, 64);
    EXPECT_GT(check.acts_compared, 64 * 8);
  } catch (const config::CheckFailure& e) {
    return e.what();
  }
  return "";
}

void expect_disagreement(const std::string& line, const char* what) {
  std::printf("%s: %s\n", what, line.c_str());
  EXPECT_EQ(line.rfind("--rtl-full: ", 0), 0u) << what << " agreed with the model: the comparison cannot fail";
}

TEST(RtlUnitRun, TheSameDesignAgrees) {
  EXPECT_EQ(run_against("llama2-7b", "partial-replay", [](asic::RunGeometry&, asic::AsicConfig&, core::MergeSchedule&) {}), "");
}

TEST(RtlUnitRun, AReReadFifoOneEntryShallowerDisagrees) {
  expect_disagreement(run_against("llama2-7b", "dram-reread",
                                  [](asic::RunGeometry& g, asic::AsicConfig&, core::MergeSchedule&) { g.reread_fifo_transactions -= 1; }),
                      "a re-read FIFO one entry shallower");
}

TEST(RtlUnitRun, AnSramBankFewerDisagrees) {
  expect_disagreement(run_against("llama2-7b", "sram-replay", [](asic::RunGeometry&, asic::AsicConfig& c, core::MergeSchedule&) { c.sram.banks -= 1; }),
                      "an SRAM bank fewer");
}

TEST(RtlUnitRun, ARowBufferFewerDisagrees) {
  expect_disagreement(run_against("llama2-7b", "partial-replay", [](asic::RunGeometry&, asic::AsicConfig& c, core::MergeSchedule&) { c.rows_in_flight -= 1; }),
                      "a row buffer fewer");
}

// Rows of 128 (8 cycles each) on two shared merge units (about 18 cycles a
// row): each waits for them, and with one fewer it waits longer.
TEST(RtlUnitRun, AMergeUnitFewerDisagrees) {
  expect_disagreement(run_against("gpt2-small", "sram-replay",
                                  [](asic::RunGeometry&, asic::AsicConfig&, core::MergeSchedule& m) { m.units -= 1; },
                                  {"workload.hidden=128", "arch.merge.units=2"}),
                      "a merge unit fewer");
}

}  // namespace
