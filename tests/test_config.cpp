// Every class of bad input yields a ConfigError whose one line names the
// file, the key and what is allowed.
#include <algorithm>
#include <gtest/gtest.h>

#include <string>

#include "sim/config/arch.hpp"
#include "sim/config/config_error.hpp"
#include "sim/core/rsqrt_kind.hpp"
#include "sim/config/workload.hpp"
#include "tests/arch_text.hpp"

using namespace normsim::config;

namespace {
const char* kGoodWorkload = R"(name: t
norm: layernorm
rows: 4
hidden: 64
input: {dtype: fp32, distribution: {kind: normal, mean: 0, sigma: 1}}
)";

std::string workload_error(const std::string& text) {
  try {
    parse_workload_text(text, "w.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
void expect_has(const std::string& msg, std::initializer_list<const char*> parts) {
  ASSERT_FALSE(msg.empty()) << "no error raised";
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' missing in: " << msg;
}
}  // namespace

TEST(WorkloadConfig, GoodFileParses) {
  const Workload w = parse_workload_text(kGoodWorkload, "w.yaml");
  EXPECT_EQ(w.rows, 4);
  EXPECT_EQ(w.hidden, 64);
  ASSERT_TRUE(w.beta.has_value());  // LayerNorm default beta = 0
}

TEST(WorkloadConfig, UnknownKey) {
  expect_has(workload_error(std::string(kGoodWorkload) + "hiden: 5\n"), {"w.yaml:6", "hiden", "unknown key", "allowed"});
  expect_has(workload_error("norm: layernorm\nrows: 1\nhidden: 8\ninput: {dtype: fp32, dist: 3}\n"),
             {"input.dist", "unknown key", "distribution"});
}

TEST(WorkloadConfig, WrongType) {
  expect_has(workload_error("norm: layernorm\nrows: many\nhidden: 8\n"), {"w.yaml:2", "rows", "integer", "many"});
  expect_has(workload_error("norm: layernorm\nrows: 1.5\nhidden: 8\n"), {"rows", "integer"});
  expect_has(workload_error("norm: layernorm\nrows: 1\nhidden: 8\neps: small\n"), {"eps", "number"});
  expect_has(workload_error("norm: layernorm\nrows: [1, 2]\nhidden: 8\n"), {"rows", "single value"});
}

TEST(WorkloadConfig, UnknownChoice) {
  expect_has(workload_error("norm: batchnorm\nrows: 1\nhidden: 8\n"), {"norm", "batchnorm", "layernorm, rmsnorm"});
  expect_has(workload_error("norm: layernorm\nrows: 1\nhidden: 8\ninput: {dtype: fp8}\n"), {"input.dtype", "fp8", "bf16"});
}

TEST(WorkloadConfig, ZeroOrNegativeSizes) {
  expect_has(workload_error("norm: layernorm\nrows: 0\nhidden: 8\n"), {"rows", "out of range", "1.."});
  expect_has(workload_error("norm: layernorm\nrows: 4\nhidden: -8\n"), {"hidden", "out of range"});
  expect_has(workload_error("norm: layernorm\nrows: 4\nhidden: 99999999999\n"), {"hidden", "16777216"});
  expect_has(workload_error("norm: layernorm\nhidden: 8\n"), {"rows", "missing"});
}

TEST(WorkloadConfig, BadDistributionAndScale) {
  expect_has(workload_error("norm: layernorm\nrows: 1\nhidden: 8\ninput: {distribution: {kind: normal, sigma: 0}}\n"),
             {"input.distribution.sigma", "> 0"});
  expect_has(workload_error("norm: layernorm\nrows: 1\nhidden: 8\ninput: {dtype: int8}\n"), {"input.scale", "missing"});
  expect_has(workload_error("norm: layernorm\nrows: 1\nhidden: 8\ninput: {dtype: fp32, scale: 2}\n"),
             {"input.scale", "int8"});
}

TEST(WorkloadConfig, MalformedYamlNamesTheLine) {
  expect_has(workload_error("norm: layernorm\nrows: 1\nhidden: [8\n"), {"w.yaml:", "malformed YAML"});
}

TEST(WorkloadConfig, MissingFile) {
  try {
    load_workload("/no/such/workload.yaml");
    FAIL();
  } catch (const ConfigError& e) {
    expect_has(e.what(), {"/no/such/workload.yaml", "no such file"});
  }
}

TEST(ArchConfig, ImpossibleWidths) {
  const std::string head = "arithmetic: fixed\nformats:\n";
  expect_has(arch_error(head + "  input: {bits: 16, frac: 20}\n"), {"a.yaml:3", "formats.input.frac", "impossible", "0..16"});
  expect_has(arch_error(head + "  input: {bits: 80, frac: 2}\n"), {"formats.input.bits", "out of range", "1..64"});
  expect_has(arch_error(head + "  input: {bits: 0, frac: 0}\n"), {"formats.input.bits"});
  expect_has(arch_error(head + "  input: {bits: 16, frac: 4, rounding: nearest}\n"),
             {"formats.input.rounding", "nearest", "half-even"});
  expect_has(arch_error(head + "  input: {bits: 16, frac: 4}\n"), {"formats.sum", "missing"});
}

TEST(ArchConfig, ZeroAndNonPowerOfTwoLanes) {
  expect_has(arch_error("lanes: 0\n"), {"a.yaml:1", "lanes", "out of range", "1..4096"});
  expect_has(arch_error("lanes: 12\n"), {"lanes", "power of two"});
  expect_has(arch_error("lanes: 8\nformats: {}\n"), {"formats", "arithmetic: fixed"});
  expect_has(arch_error("lanes: 8\nalgorithm: kahan\n"), {"algorithm", "kahan", "welford, two-pass, single-pass"});
  expect_has(arch_error("lanes: 8\nvariance_clamp: maybe\n"), {"variance_clamp", "true, false"});
}

TEST(ArchConfig, GpuMappingKeys) {
  expect_has(arch_error("lanes: 32\nmerge_order: zigzag\n"), {"merge_order", "zigzag", "adjacent, butterfly"});
  expect_has(arch_error("lanes: 32\nmerge_group: 24\n"), {"merge_group", "power of two"});
  expect_has(arch_error("lanes: 32\nfma_contraction: sometimes\n"), {"fma_contraction", "true, false"});
  const std::string src = std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR;
  const std::string fixed = read_config_file(src + "/workloads/arch/fixed16.yaml");
  expect_has(arch_error(fixed + "merge_order: butterfly\n"), {"merge_order", "arithmetic: fp32"});
  expect_has(arch_error(fixed + "fma_contraction: true\n"), {"fma_contraction", "arithmetic: fp32"});
  const Arch a = parse_arch_text("lanes: 32\nmerge_order: butterfly\nfma_contraction: true\n", "a.yaml");
  EXPECT_EQ(a.merge_order, normsim::core::MergeOrder::butterfly);
  EXPECT_TRUE(a.fma_contraction);
  EXPECT_EQ(a.merge_group, 32);
}

TEST(ArchConfig, AsicDatapaths) {
  const std::string src = std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR;
  const std::string gpu = read_config_file(src + "/workloads/arch/gpu-warp.yaml");
  EXPECT_EQ(parse_arch_text(gpu, "g.yaml").asic->datapaths, 528);
  expect_has(arch_error("lanes: 8\nasic: {datapaths: 0}\n"), {"asic.datapaths", "out of range", "1..65536"});
  expect_has(arch_error("lanes: 8\nasic: {node: 5nm}\n"), {"asic.node", "5nm", "45nm, 28nm, 16nm, 7nm"});
}

TEST(ArchConfig, ShippedArchesParse) {
  const std::string src = std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR;
  for (const char* f : {"fp32", "fixed16", "int8-fixed", "asic-default", "edge-small-sram", "gpu-warp", "gpu-block"}) EXPECT_NO_THROW(load_arch(src + "/workloads/arch/" + f + ".yaml")) << f;
  for (const char* f : {"gpt2-small", "bert-large", "llama2-7b", "llama3-70b", "long-row", "cancellation", "int8",
                        "postnorm-7b", "llama2-7b-prenorm", "llama2-7b-bwd", "bert-large-bwd", "postnorm-7b-bwd"})
    EXPECT_NO_THROW(load_workload(src + "/workloads/" + f + ".yaml")) << f;
  EXPECT_EQ(default_arch().name, "asic-default");
  EXPECT_EQ(default_workload().name, "llama2-7b");
}

// A --set of an asic key on an arch without a timing model would build one
// from the defaults: refused, naming the file; a whole mapping is explicit.
TEST(ArchConfig, SetOfAnAsicKeyNeedsAnAsicSection) {
  const std::string src = std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR;
  try {
    load_arch(src + "/workloads/arch/fp32.yaml", {parse_override("arch.asic.clock_ghz=2")});
    ADD_FAILURE() << "an asic key was set on an arch without an asic section";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("fp32.yaml has no 'asic' section"), std::string::npos) << m;
    EXPECT_NE(m.find("arch.asic.clock_ghz=2"), std::string::npos) << m;
  }
  EXPECT_FALSE(load_arch(src + "/workloads/arch/fp32.yaml").asic.has_value());
  EXPECT_DOUBLE_EQ(load_arch(src + "/workloads/arch/asic-default.yaml", {parse_override("arch.asic.clock_ghz=2")}).asic->clock_ghz, 2.0);
}

TEST(WorkloadConfig, ResidualStreamKeys) {
  const Workload w = parse_workload_text(
      "norm: layernorm\nrows: 4\nhidden: 64\ninput: {dtype: bf16}\nresidual: {dtype: fp32, dropout: 0.1, write_sum: true}\n",
      "w.yaml");
  ASSERT_TRUE(w.residual.has_value());
  EXPECT_EQ(w.residual->tensor.dtype, normsim::core::ElemType::fp32);
  EXPECT_EQ(w.residual->dropout_p, 0.1);
  EXPECT_TRUE(w.residual->sum_written());
  const Workload pre = parse_workload_text(std::string(kGoodWorkload) + "residual: {dataflow: pre_norm}\n", "w.yaml");
  EXPECT_EQ(pre.residual->tensor.dtype, normsim::core::ElemType::fp32);  // the input's type
  EXPECT_TRUE(pre.residual->sum_written());  // the next block's residual stream
  EXPECT_EQ(workload_echo(pre)["residual"]["dataflow"], "pre_norm");
  EXPECT_EQ(workload_echo(parse_workload_text(kGoodWorkload, "w.yaml"))["residual"], "none");
  expect_has(workload_error(std::string(kGoodWorkload) + "residual: {dropout: -0.5}\n"), {"w.yaml", "residual.dropout", "0 <= p < 1"});
  expect_has(workload_error(std::string(kGoodWorkload) + "residual: {colour: red}\n"), {"w.yaml", "colour"});
  expect_has(workload_error(std::string(kGoodWorkload) + "residual: {file: a.npy, distribution: {kind: normal}}\n"),
             {"w.yaml", "residual.file", "not both"});
}

TEST(ArchConfig, FuseSection) {
  const Arch a = parse_arch_text("lanes: 4\nfuse: {mode: residual_dropout, add_format: {bits: 20, frac: 10}}\n", "a.yaml");
  EXPECT_EQ(a.fuse.mode, FuseMode::residual_dropout);
  ASSERT_TRUE(a.fuse.add.fixed);
  EXPECT_EQ(a.fuse.add.format.total_bits, 20);
  EXPECT_EQ(a.fuse.add.format.frac_bits, 10);
  EXPECT_FALSE(parse_arch_text("lanes: 4\n", "a.yaml").fuse.add.fixed);
  expect_has(arch_error("lanes: 4\nfuse: {mode: sideways}\n"), {"a.yaml", "fuse.mode", "residual_dropout"});
  expect_has(arch_error("lanes: 4\nfuse: {add_format: {bits: 8, frac: 9}}\n"), {"a.yaml", "frac"});
}

// The backward's keys (docs/ASIC.md, "Backward").
TEST(WorkloadConfig, BackwardPassAndItsGradient) {
  const Workload w = parse_workload_text(std::string(kGoodWorkload) + "pass: backward\noutput: {dtype: bf16}\n", "w.yaml");
  EXPECT_TRUE(w.is_backward());
  EXPECT_EQ(w.backward.dy.dtype, normsim::core::ElemType::bf16);  // the output's type by default
  const Workload u = parse_workload_text(
      std::string(kGoodWorkload) + "pass: backward\nbackward:\n  dy: {dtype: fp16, distribution: {kind: normal, mean: 0, sigma: 0.01}}\n",
      "w.yaml");
  EXPECT_EQ(u.backward.dy.dtype, normsim::core::ElemType::fp16);
  EXPECT_EQ(u.backward.dist.b, 0.01);
  EXPECT_FALSE(parse_workload_text(kGoodWorkload, "w.yaml").is_backward());
  expect_has(workload_error(std::string(kGoodWorkload) + "pass: sideways\n"), {"w.yaml:6", "pass", "sideways", "forward, backward"});
  expect_has(workload_error(std::string(kGoodWorkload) + "backward: {dy: {dtype: bf16}}\n"),
             {"w.yaml:6", "backward", "pass is forward", "pass: backward"});
  expect_has(workload_error(std::string(kGoodWorkload) + "pass: backward\nbackward: {dy: {dtype: int8}}\n"),
             {"backward.dy.dtype", "int8", "fp32"});
  expect_has(workload_error(std::string(kGoodWorkload) + "pass: backward\nbackward: {dy: {dtyp: bf16}}\n"),
             {"backward.dy.dtyp", "unknown key"});
  expect_has(workload_error(std::string(kGoodWorkload) + "pass: backward\nbackward: {dy: {file: none.npy, distribution: {kind: normal, mean: 0, sigma: 1}}}\n"),
             {"backward.dy.file", "not both"});
  expect_has(workload_error(std::string(kGoodWorkload) + "pass: backward\nbackward: {dy: {file: /nonexistent/dy.npy}}\n"),
             {"backward.dy.file", "/nonexistent/dy.npy"});
  // A Post-Norm backward is modelled (tests/test_postnorm_backward.cpp); a Pre-Norm one is refused.
  expect_has(workload_error(std::string(kGoodWorkload) + "pass: backward\nresidual: {dropout: 0.1, dataflow: pre_norm, write_sum: true}\n"),
             {"residual.dataflow", "pre_norm with pass backward", "post_norm"});
  EXPECT_EQ(workload_error(std::string(kGoodWorkload) + "pass: backward\nresidual: {dropout: 0.1}\nbackward: {dy: {dtype: fp32}}\n"), "");
  expect_has(workload_error("name: t\nnorm: layernorm\nrows: 4\nhidden: 64\ninput: {dtype: int8, scale: 0.1}\npass: backward\n"),
             {"pass", "int8"});
}

TEST(ArchConfig, BackwardFormatsAndAsicKeys) {
  const std::string fixed = "name: t\n" + kFixedArch;
  const std::string bf = R"(backward_formats:
  dy: {bits: 16, frac: 8}
  g: {bits: 16, frac: 8}
  xhat: {bits: 16, frac: 12}
  sum_g: {bits: 32, frac: 8}
  sum_gxhat: {bits: 32, frac: 12}
  row_mean: {bits: 24, frac: 16}
  dx: {bits: 16, frac: 8}
  dgamma: {bits: 40, frac: 12}
  dbeta: {bits: 40, frac: 12}
)";
  const Arch a = parse_arch_text(fixed + bf, "a.yaml");
  ASSERT_TRUE(a.backward_formats.has_value());
  EXPECT_EQ((*a.backward_formats)[static_cast<int>(normsim::core::BackwardStage::dgamma)].total_bits, 40);
  EXPECT_FALSE(parse_arch_text(fixed, "a.yaml").backward_formats.has_value());
  std::string missing = fixed + bf;
  missing.erase(missing.find("  dbeta:"));
  expect_has(arch_error(missing), {"a.yaml", "backward_formats", "dbeta", "missing"});
  expect_has(arch_error("name: t\nlanes: 4\narithmetic: fp32\n" + bf), {"backward_formats", "only applies to 'arithmetic: fixed'"});
  expect_has(arch_error(fixed + bf + "asic:\n  param_grad_accumulator: {path: sometimes}\n"),
             {"asic.param_grad_accumulator.path", "sometimes", "onchip, partials, dram_rmw"});
  expect_has(arch_error(fixed + bf + "asic:\n  backward: {xhat: cached}\n"), {"asic.backward.xhat", "cached", "recompute, stored"});
  expect_has(arch_error(fixed + bf + "asic:\n  param_grad_accumulator: {partial_rows: 0}\n"),
             {"asic.param_grad_accumulator.partial_rows", "0"});
  const Arch b = parse_arch_text(
      fixed + bf + "asic:\n  param_grad_accumulator: {path: partials, partial_rows: 64}\n  backward: {xhat: stored}\n", "a.yaml");
  EXPECT_EQ(b.asic->param_grad_accumulator.path, ParamGradPath::partials);
  EXPECT_EQ(b.asic->param_grad_accumulator.partial_rows, 64);
  EXPECT_EQ(b.asic->backward.xhat, XhatSource::stored);
}

// A unit's keys live in its own section (asic.<unit>); the old places are
// refused in one line naming the line, the value and the new key, in a file
// and in a --set.
TEST(ArchConfig, MovedUnitKeysNameTheirNewPlace) {
  const std::string head = "name: t\nlanes: 4\narithmetic: fp32\nasic:\n";
  const struct {
    const char *old_section, *old_key, *new_key;
  } moved[] = {{"latency", "welford_cycles", "asic.welford_lanes.latency_cycles"},
               {"latency", "merge_level_cycles", "asic.chan_merge_tree.level_cycles"},
               {"latency", "rsqrt_cycles", "asic.rsqrt.latency_cycles"},
               {"latency", "normalize_cycles", "asic.normalize.latency_cycles"},
               {"backward", "row_sum_lane_cycles", "asic.row_sum_lanes.latency_cycles"},
               {"backward", "row_sum_level_cycles", "asic.row_sum_tree.level_cycles"},
               {"backward", "row_mean_cycles", "asic.row_mean.latency_cycles"},
               {"backward", "dx_cycles", "asic.dx_unit.latency_cycles"},
               {"backward", "param_grad", "asic.param_grad_accumulator.path"},
               {"backward", "partial_rows", "asic.param_grad_accumulator.partial_rows"}};
  for (const auto& m : moved) {
    const std::string old_key = std::string("asic.") + m.old_section + "." + m.old_key;
    const std::string msg = arch_error(head + "  " + m.old_section + ":\n    " + m.old_key + ": 7\n");
    expect_has(msg, {"a.yaml:6", old_key.c_str(), "moved", "the value 7", m.new_key});
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    try {
      parse_arch_text(head + "  clock_ghz: 1\n", "a.yaml", {parse_override("arch." + old_key + "=7")});
      ADD_FAILURE() << old_key << " accepted by --set";
    } catch (const ConfigError& e) {
      expect_has(e.what(), {"--set", old_key.c_str(), "moved", m.new_key});
    }
  }
  // Their new places read the value.
  const Arch a = parse_arch_text(head + "  rsqrt: {latency_cycles: 21}\n  row_sum_tree: {level_cycles: 6}\n", "a.yaml");
  EXPECT_EQ(a.asic->rsqrt.latency_cycles, 21);
  EXPECT_EQ(a.asic->row_sum_tree.level_cycles, 6);
}

// rsqrt.unit names a unit of sim/core's table (newton the default); any
// other name is refused in one line listing them all. Each unit's own
// refusals are its test's (test_rsqrt_lut_step.cpp for lut_step).
TEST(ArchConfig, RsqrtUnitIsOneOfTheTablesUnits) {
  const std::string head = kFixedArch;
  const auto line = std::count(head.begin(), head.end(), '\n') + 1;  // the rsqrt section's
  const std::string at = "a.yaml:" + std::to_string(line) + ": ";
  EXPECT_EQ(parse_arch_text(head, "a.yaml").rsqrt.unit, 0);
  EXPECT_EQ(normsim::core::rsqrt_kinds().front().name, "newton");
  std::string all;
  for (const auto& n : normsim::core::rsqrt_kind_names()) all += (all.empty() ? "" : ", ") + n;
  expect_has(arch_error(head + "rsqrt: {unit: cordic}\n"), {at.c_str(), "rsqrt.unit", "cordic", all.c_str()});
  const auto& kinds = normsim::core::rsqrt_kinds();
  for (size_t i = 0; i < kinds.size(); ++i) {
    const auto& e = kinds[i].example;
    const Arch a = parse_arch_text(head + "rsqrt: {unit: " + std::string(kinds[i].name) + ", table_bits: " +
                                       std::to_string(e.table_bits) + ", iterations: " + std::to_string(e.iterations) +
                                       ", nr_frac_bits: " + std::to_string(e.nr_frac_bits) + "}\n",
                                   "a.yaml");
    EXPECT_EQ(a.rsqrt.unit, static_cast<int>(i));
    EXPECT_EQ(&a.rsqrt.kind(), &kinds[i]);
  }
}
