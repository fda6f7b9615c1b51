// The width search: targets parsed strictly; the choice meets every target
// with no overflow on all rows, costs no more area than the start, writes an
// arch that reads back to it, does not depend on the thread count, and moves
// the input range with the data (LLM activations need more integer bits).
#include <gtest/gtest.h>

#include "sim/config/arch.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/config/workload.hpp"
#include "sim/core/backward_run.hpp"
#include "sim/core/functional_run.hpp"
#include "sim/explore/width_search.hpp"

// libsystemc (linked through sim/explore's sweep engine) calls sc_main, declared extern "C"; gtest's main runs the tests.
extern "C" int sc_main(int, char**) { return 0; }

using namespace normsim;

namespace {
core::StageFormats as_stages(const explore::SearchFormats& f) {
  core::StageFormats a{};
  std::copy(f.begin(), f.end(), a.begin());
  return a;
}
std::string src() { return std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR; }
config::Workload workload(const std::string& n, int64_t rows) {
  return config::load_workload(src() + "/workloads/" + n + ".yaml", {config::parse_override("workload.rows=" + std::to_string(rows))});
}
config::Arch arch(const std::string& n) { return config::load_arch(src() + "/workloads/arch/" + n + ".yaml"); }
std::string target_error(const std::string& t) {
  try {
    explore::parse_width_target(t);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}
explore::WidthSearchOptions options(std::initializer_list<const char*> targets, int threads = 2,
                                    const std::string& guard = "none") {
  explore::WidthSearchOptions o;
  o.guards = explore::parse_width_guards(guard);
  for (const char* t : targets) o.targets.push_back(explore::parse_width_target(t));
  o.sample_rows = 16;
  o.threads = threads;
  return o;
}
}  // namespace

TEST(WidthTarget, ParsesAndRefuses) {
  const auto t = explore::parse_width_target("rel_l2<=1e-3");
  EXPECT_EQ(t.metric, explore::WidthTarget::Metric::rel_l2);
  EXPECT_TRUE(t.at_most);
  EXPECT_EQ(t.value, 1e-3);
  EXPECT_TRUE(t.met(1e-3));
  EXPECT_FALSE(t.met(1.1e-3));
  EXPECT_FALSE(explore::parse_width_target("frac_within_1ulp>=0.99").at_most);
  for (const char* bad : {"max_ulp", "max_ulp<1", "speed<=1", "max_ulp>=1", "frac_within_1ulp<=0.5", "max_ulp<=x", "max_ulp<=-1",
                          "frac_within_1ulp>=2", "max_ulp<=inf"}) {
    const std::string e = target_error(bad);
    EXPECT_NE(e.find(std::string("--target '") + bad + "'"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("allowed: max_ulp<=V"), std::string::npos) << e;
  }
}

TEST(WidthSearch, ChoiceMeetsTheTargetsOnAllRowsForLessArea) {
  const auto w = workload("llama2-7b", 96);
  const auto a = arch("asic-default");
  const auto r = explore::search_widths(w, a, options({"max_ulp<=1", "rel_l2<=2e-3"}));
  EXPECT_LE(r.chosen_um2, r.start_um2);
  EXPECT_LT(r.chosen_um2, 0.9 * r.start_um2);  // the default arch has slack on Gaussian data
  EXPECT_EQ(r.chosen_all_rows.overflow_total(), 0u);
  EXPECT_LE(r.chosen_all_rows.max_ulp, 1.0);
  EXPECT_LE(r.chosen_all_rows.rel_l2, 2e-3);
  // The last evaluation is the confirmation on all rows, and it is the choice.
  const auto& last = r.evaluations.back();
  EXPECT_EQ(last.phase, "confirm");
  EXPECT_EQ(last.rows, w.rows);
  EXPECT_TRUE(last.meets);
  EXPECT_EQ(last.formats, r.chosen);
  for (size_t i = 0; i < r.evaluations.size(); ++i) EXPECT_EQ(r.evaluations[i].index, static_cast<int>(i));
  // The output's fraction bits are the yardstick, kept; so the chosen datapath
  // run as `run` runs it (its own output lsb) reports what the search measured.
  const int out = static_cast<int>(core::Stage::output);
  EXPECT_EQ(r.chosen[out].frac_bits, r.start[out].frac_bits);
  auto cfg = config::datapath_config(w, a);
  cfg.formats = as_stages(r.chosen);
  const auto f = core::run_functional(w, cfg, false);
  EXPECT_EQ(f.numerics.output_error.max_ulp(), r.chosen_all_rows.max_ulp);
  EXPECT_EQ(f.numerics.output_error.rel_l2(), r.chosen_all_rows.rel_l2);
  // The arch it writes reads back to the choice.
  std::vector<config::Override> ov;
  for (const auto& s : explore::format_overrides(r)) ov.push_back(config::parse_override(s));
  EXPECT_FALSE(ov.empty());
  const auto back = config::parse_arch_text(config::arch_yaml_with(src() + "/workloads/arch/asic-default.yaml", ov), "<back>");
  EXPECT_EQ(explore::searched_formats(r, back), r.chosen);
  EXPECT_EQ(r.key, "formats");
  // The thread count changes nothing.
  const auto one = explore::search_widths(w, a, options({"max_ulp<=1", "rel_l2<=2e-3"}, 1));
  EXPECT_EQ(one.chosen, r.chosen);
  EXPECT_EQ(one.evaluations.size(), r.evaluations.size());
}

TEST(WidthSearch, LlmActivationsNeedAWiderInputRange) {
  const auto gauss = explore::search_widths(workload("llama2-7b", 64), arch("asic-default"), options({"max_ulp<=1"}));
  const auto llm = explore::search_widths(workload("llama2-7b-acts", 64), arch("asic-default"), options({"max_ulp<=1"}));
  const int in = static_cast<int>(core::Stage::input);
  EXPECT_FALSE(llm.start_meets);  // the massive activations saturate the default input stage
  EXPECT_GT(llm.start_all_rows.overflows[in], 0u);
  EXPECT_GE(llm.chosen[in].int_bits(), 15);  // +-1e4
  EXPECT_LE(gauss.chosen[in].int_bits(), 5);
  EXPECT_EQ(llm.chosen_all_rows.overflow_total(), 0u);
}

TEST(WidthSearch, RefusesWhatItCannotSearch) {
  auto error = [](const config::Arch& a, explore::WidthSearchOptions o) {
    try {
      explore::search_widths(workload("llama2-7b", 8), a, o);
    } catch (const config::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error(arch("fp32"), options({"max_ulp<=1"})).find("arithmetic: fixed"), std::string::npos);
  EXPECT_NE(error(arch("asic-default"), options({})).find("--target: missing"), std::string::npos);
  auto o = options({"max_ulp<=1"});
  o.stages = {"m2"};
  EXPECT_NE(error(arch("asic-default"), o).find("--stages 'm2': not a stage of this datapath"), std::string::npos);
  EXPECT_NE(error(arch("asic-default"), options({"max_abs<=0"})).find("not met even with every searched stage at 64 bits"),
            std::string::npos);
}

TEST(WidthGuards, ParsesAndRefuses) {
  EXPECT_TRUE(explore::parse_width_guards("auto").automatic);
  const auto none = explore::parse_width_guards("none");
  EXPECT_FALSE(none.automatic);
  EXPECT_TRUE(none.hidden.empty());
  EXPECT_FALSE(none.llm);
  const auto g = explore::parse_width_guards("hidden=3000,llm,hidden=5120");
  EXPECT_EQ(g.hidden, (std::vector<int64_t>{3000, 5120}));
  EXPECT_TRUE(g.llm);
  for (const char* bad : {"", "hidden=", "hidden=0", "hidden=3e3", "hidden=99999999999", "gauss", "llm,", "auto,llm"}) {
    try {
      explore::parse_width_guards(bad);
      ADD_FAILURE() << bad;
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("--guard '") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

// The choice holds off the sample: at the guard set's row lengths (one not a
// power of two) and on LLM activations, every row of each within the target.
TEST(WidthSearch, TheChoiceHoldsOnTheGuardSet) {
  const auto w = workload("llama2-7b", 64);
  const auto a = arch("asic-default");
  const auto r = explore::search_widths(w, a, options({"max_ulp<=1"}, 2, "auto"));
  // 2990, 5120, 11008 on the workload's inputs, and those and 4096 on each
  // shipped LLM-activation model.
  ASSERT_EQ(r.guards.size(), 11u);
  EXPECT_EQ(explore::automatic_guard_hidden(4096), (std::vector<int64_t>{2990, 5120, 11008}));
  EXPECT_EQ(r.guards[0].hidden, 2990);
  EXPECT_EQ(r.guards[0].model, "own");
  EXPECT_EQ(r.guards[2].hidden, 11008);
  EXPECT_EQ(r.guards[3].name, "hidden 4096, llama2-7b-acts inputs");
  EXPECT_EQ(r.guards[10].name, "hidden 11008, llama3-70b-acts inputs");
  // Each guard's figures for the choice: within the target, the reported worst at least as bad.
  for (const auto& g : r.guards) {
    EXPECT_LE(g.chosen.max_ulp, 1.0) << g.name;
    EXPECT_LE(g.chosen.max_ulp, r.chosen_all_rows.max_ulp) << g.name;
    EXPECT_EQ(g.chosen.overflow_total(), 0u) << g.name;
  }
  for (int64_t hidden : {int64_t(2990), int64_t(4096), int64_t(5120), int64_t(11008)}) {
    auto at = w;
    at.hidden = hidden;
    auto cfg = config::datapath_config(at, a);
    cfg.formats = as_stages(r.chosen);
    const auto f = core::run_functional(at, cfg, false);
    EXPECT_LE(f.numerics.output_error.max_ulp(), 1.0) << "hidden " << hidden;
    EXPECT_EQ(f.numerics.counters.overflows[static_cast<int>(core::Stage::input)], 0u) << "hidden " << hidden;
  }
  // RMSNorm at C = 4096: 1/C is a shift and the output's width costs no area:
  // neither is narrowed to what this one C needs.
  EXPECT_EQ(r.uncosted, (std::vector<int>{static_cast<int>(core::Stage::recip), static_cast<int>(core::Stage::output)}));
  const int rc = static_cast<int>(core::Stage::recip);
  EXPECT_EQ(r.chosen[rc], r.start[rc]);
}

// eps = 1e-5 rounds to 0 below 16 fraction bits of rsqrt_in: whatever the
// sample's accuracy, no such format is chosen.
TEST(WidthSearch, NoFormatInWhichEpsRoundsToZero) {
  const auto w = workload("llama2-7b", 32);
  const auto a = arch("asic-default");
  const auto r = explore::search_widths(w, a, options({"max_ulp<=2"}));
  const int in = static_cast<int>(core::Stage::rsqrt_in);
  EXPECT_GE(r.chosen[in].frac_bits, 16);
  bool refused = false;
  for (const auto& e : r.evaluations) {
    if (!e.refused.empty()) {
      refused = true;
      EXPECT_FALSE(e.meets);
      EXPECT_NE(e.refused.find("eps 1e-05 rounds to 0"), std::string::npos) << e.refused;
      EXPECT_LT(e.formats[in].frac_bits, 16);
    }
  }
  EXPECT_TRUE(refused) << "the search never tried a narrower rsqrt_in: the test shows nothing";
}

TEST(WidthSearch, MarginBitsWidenEverySearchedStage) {
  const auto w = workload("llama2-7b", 32);
  const auto a = arch("asic-default");
  auto o = options({"max_ulp<=1"});
  const auto plain = explore::search_widths(w, a, o);
  o.margin_bits = 2;
  const auto wide = explore::search_widths(w, a, o);
  EXPECT_EQ(wide.margin_bits, 2);
  for (int s : plain.stages) {
    const auto &p = plain.chosen[static_cast<size_t>(s)], &m = wide.chosen[static_cast<size_t>(s)];
    EXPECT_EQ(m.frac_bits, std::min(p.frac_bits + 2, core::kMaxFixedBits - (p.total_bits - p.frac_bits))) << plain.names[static_cast<size_t>(s)];
    EXPECT_EQ(m.total_bits, std::min(p.total_bits + 4, core::kMaxFixedBits)) << plain.names[static_cast<size_t>(s)];
  }
  EXPECT_GT(wide.chosen_um2, plain.chosen_um2);
  EXPECT_LE(wide.chosen_all_rows.max_ulp, 1.0);
}

// A backward workload: the backward's formats searched (the forward's, what it
// saved, as given); dx meets the target, dgamma and dbeta keep the start's
// accuracy, the yardsticks' fractions are kept, so the chosen arch's own run
// reports what the search measured; the arch it writes reads back.
TEST(WidthSearch, BackwardFormatsMeetTheTargetOnDxAndHoldTheParameterGradients) {
  const auto w = workload("bert-large-bwd", 96);
  const auto a = arch("asic-default");
  const auto r = explore::search_widths(w, a, options({"max_ulp<=1"}, 1, "none"));
  EXPECT_EQ(r.key, "backward_formats");
  EXPECT_EQ(r.held_names, (std::vector<std::string>{"dgamma_rel_l2_error", "dbeta_rel_l2_error"}));
  EXPECT_FALSE(r.start_meets);  // the default's dy and g fractions leave dx 1.5 ulps off
  EXPECT_LE(r.chosen_all_rows.max_ulp, 1.0);
  EXPECT_EQ(r.chosen_all_rows.overflow_total(), 0u);
  ASSERT_EQ(r.chosen_all_rows.held.size(), 2u);
  for (size_t k = 0; k < 2; ++k) EXPECT_LE(r.chosen_all_rows.held[k], 1.05 * r.start_all_rows.held[k]) << r.held_names[k];
  EXPECT_LT(r.chosen_um2, r.start_um2);
  using BS = core::BackwardStage;
  for (BS s : {BS::dx, BS::dgamma, BS::dbeta})
    EXPECT_EQ(r.chosen[static_cast<size_t>(s)].frac_bits, r.start[static_cast<size_t>(s)].frac_bits) << core::kBackwardStages.name(s);
  // `run`'s numbers: the arch written, read back, through the backward run.
  std::vector<config::Override> ov;
  for (const auto& s : explore::format_overrides(r)) {
    EXPECT_EQ(s.rfind("arch.backward_formats.", 0), 0u) << s;
    ov.push_back(config::parse_override(s));
  }
  const auto back = config::parse_arch_text(config::arch_yaml_with(src() + "/workloads/arch/asic-default.yaml", ov), "<back>");
  EXPECT_EQ(explore::searched_formats(r, back), r.chosen);
  EXPECT_EQ(back.formats, a.formats);
  const auto n = core::run_backward_functional(w, config::datapath_config(w, back), config::backward_config(w, back));
  EXPECT_EQ(n.dx_error.max_ulp(), r.chosen_all_rows.max_ulp);
  EXPECT_EQ(n.dx_error.rel_l2(), r.chosen_all_rows.rel_l2);
  EXPECT_EQ(n.dgamma_error.rel_l2(), r.chosen_all_rows.held[0]);
  EXPECT_EQ(n.dbeta_error.rel_l2(), r.chosen_all_rows.held[1]);
  // Its stages are the backward's, by name.
  auto o = options({"max_ulp<=1"}, 1, "none");
  o.stages = {"mean"};
  try {
    explore::search_widths(w, a, o);
    ADD_FAILURE() << "a forward stage searched on a backward workload";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--stages 'mean': not a stage of this datapath's backward_formats (allowed: dy, g, xhat"),
              std::string::npos) << e.what();
  }
}
