// The workload parser (with `input.file`, `{kind: llm}` and `residual`) and the sweep's
// study-file parser, on the same text.
#include "fuzz_target.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/sweep_grid.hpp"
#include "sim/config/workload.hpp"

std::vector<std::string> fuzz_seeds() {
  return shipped_files("workloads", ".yaml") + shipped_files("workloads/studies", ".yaml") + std::vector<std::string>{
      "name: t\nnorm: rmsnorm\nrows: 4\nhidden: 64\ninput: {dtype: bf16, distribution: {kind: llm, outlier_channels: 3, massive_every: 2}}\n",
      "norm: layernorm\nbatch: 2\nseq: 3\nhidden: 8\ninput: {dtype: int8, scale: 0.5}\noutput: {dtype: fp16}\nbeta: none\n",
      "norm: rmsnorm\nhidden: 5\ninput: {file: /nonexistent.npy}\n",
      "norm: layernorm\nrows: 3\nhidden: 16\ninput: {dtype: bf16}\nresidual: {dtype: fp32, distribution: {kind: uniform, low: -2, high: 2}, "
      "dropout: 0.5, write_sum: true, dataflow: post_norm}\n",
      "norm: rmsnorm\nrows: 2\nhidden: 8\nresidual: {dataflow: pre_norm, file: /nonexistent.npy}\n",
      "objectives: [cycles, area]\nset: {arch.lanes: 8}\naxes:\n  - grid: {arch.lanes: [4, 16]}\n"
      "  - zip: {arch.asic.rows_in_flight: [2, 8], arch.asic.sram.capacity_bytes: [65536, 262144]}\n"
      "  - grid: {arch.asic.replay_fraction: [0.25]}\n    if: {arch.lanes: [4]}\n",
      "hidden: 64\nhidden: 128\n", "norm: rmsnorm\n---\nrows: 2\n", "name: !!binary aGVsbG8=\n", "a: &x 1\nb: *x\n",
  };
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)normsim::config::parse_workload_text(text, "fuzz.yaml");
  } catch (const normsim::config::ConfigError&) {
  }
  try {
    const auto study = normsim::config::parse_study_text(text, "/tmp/fuzz-study.yaml");
    normsim::config::Grid g = study.grid;
    normsim::config::check_grid(g);
  } catch (const normsim::config::ConfigError&) {
  }
  return 0;
}
