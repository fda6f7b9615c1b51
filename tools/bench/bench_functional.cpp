// Elements per second of the functional pipeline, measured side by side in
// one run: fp32 Welford datapath, fixed-point datapath, and a plain fp32
// two-pass LayerNorm loop (the practical limit of any per-element C++ loop);
// then a whole bit-accurate run's numerics (generation, the default arch's
// datapath, the fp64 reference; core::run_functional) on 1..all cores.
// Usage: bench_functional [WORKLOAD] [ROWS]   (default llama3-70b, 1024 rows)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/config/arch.hpp"
#include "sim/config/workload.hpp"
#include "sim/core/float_norm.hpp"
#include "sim/core/functional_run.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/output_checker.hpp"
#include "sim/core/row_inputs.hpp"

using namespace normsim;
using Clock = std::chrono::steady_clock;

namespace {

std::string source_dir() {
  const char* s = std::getenv("NORMSIM_SOURCE_DIR");
  return s ? s : NORMSIM_SOURCE_DIR_DEFAULT;
}

// Rows are generated once, outside the timed region, so every variant times
// arithmetic only.
struct Inputs {
  std::vector<std::vector<double>> rows;
  std::vector<float> gamma, beta;
};

double time_datapath(const config::Workload& w, const config::Arch& a, const Inputs& in, bool layernorm_override) {
  config::Workload wl = w;
  if (layernorm_override) wl.norm = core::NormKind::layernorm;
  const core::DatapathConfig cfg = config::datapath_config(wl, a);
  core::NormDatapath dp(cfg, in.gamma, in.beta);
  std::vector<double> y(static_cast<size_t>(w.hidden));
  core::StageCounters c;
  const auto t0 = Clock::now();
  double sink = 0;
  for (const auto& x : in.rows) {
    dp.process_row(x, y, c);
    sink += y[0];
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (sink == 12345.678) std::puts("");
  return static_cast<double>(in.rows.size()) * static_cast<double>(w.hidden) / s;
}

// The part of every bit-accurate run that is not the datapath: the fp64
// reference row, rounding to the output type and the error metrics.
double time_checker(const config::Workload& w, const config::Arch& a, const Inputs& in) {
  core::NumericsResult num;
  (void)a;
  core::OutputChecker checker(w, 0.0, in.gamma, w.beta ? in.beta : std::vector<float>{});
  std::vector<double> y(static_cast<size_t>(w.hidden));
  const core::RowStats s{0.0, 1.0, 1.0};
  const auto t0 = Clock::now();
  int64_t r = 0;
  for (const auto& x : in.rows) {
    std::copy(x.begin(), x.end(), y.begin());
    checker.check_row(r++, x, y, s, num);
  }
  const double sec = std::chrono::duration<double>(Clock::now() - t0).count();
  return static_cast<double>(in.rows.size()) * static_cast<double>(w.hidden) / sec;
}

double time_plain_loop(const config::Workload& w, const Inputs& in) {
  const size_t C = static_cast<size_t>(w.hidden);
  std::vector<float> x(C), y(C);
  double sink = 0;
  const auto t0 = Clock::now();
  for (const auto& row : in.rows) {
    for (size_t i = 0; i < C; ++i) x[i] = static_cast<float>(row[i]);
    float sum = 0;
    for (float v : x) sum += v;
    const float mean = sum / static_cast<float>(C);
    float m2 = 0;
    for (float v : x) m2 += (v - mean) * (v - mean);
    const float rstd = 1.0f / std::sqrt(m2 / static_cast<float>(C) + 1e-5f);
    for (size_t i = 0; i < C; ++i) y[i] = (x[i] - mean) * rstd * in.gamma[i] + in.beta[i];
    sink += y[0];
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (sink == 12345.678) std::puts("");
  return static_cast<double>(in.rows.size()) * static_cast<double>(C) / s;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string src = source_dir();
  const std::string wpath = argc > 1 ? argv[1] : src + "/workloads/llama3-70b.yaml";
  config::Workload w = config::load_workload(wpath);
  const int64_t rows = argc > 2 ? std::stoll(argv[2]) : 1024;
  w.rows = std::min(w.rows, rows);
  const config::Arch fp32 = config::load_arch(src + "/workloads/arch/fp32.yaml");
  const config::Arch fixed = config::load_arch(src + "/workloads/arch/fixed16.yaml");

  Inputs in;
  for (int64_t r = 0; r < w.rows; ++r) {
    in.rows.emplace_back();
    core::generate_input_row(w, r, in.rows.back(), nullptr);
  }
  // Generation as a run does it: one reused row buffer.
  std::vector<double> row;
  const auto g0 = Clock::now();
  for (int64_t r = 0; r < w.rows; ++r) core::generate_input_row(w, r, row, nullptr);
  const double gen = static_cast<double>(w.elements()) / std::chrono::duration<double>(Clock::now() - g0).count();
  core::generate_params(w, in.gamma, in.beta);
  if (in.beta.empty()) in.beta.assign(in.gamma.size(), 0.0f);

  std::printf("bench_functional: %s, %lld rows x %lld hidden (%s), one run, one core\n", w.name.c_str(),
              static_cast<long long>(w.rows), static_cast<long long>(w.hidden), std::string(core::to_string(w.norm)).c_str());
  const double plain = time_plain_loop(w, in);
  const double checker = time_checker(w, fp32, in);
  const double f32 = time_datapath(w, fp32, in, true);
  const double f32_own = time_datapath(w, fp32, in, false);
  const double fx = time_datapath(w, fixed, in, true);
  const double fx_own = time_datapath(w, fixed, in, false);
  std::printf("%-44s %14s %10s\n", "variant", "Melem/s", "vs plain");
  auto line = [&](const char* n, double v) { std::printf("%-44s %14.2f %9.3fx\n", n, v / 1e6, v / plain); };
  line("plain fp32 two-pass LayerNorm loop", plain);
  line(("input generation (" + std::string(core::to_string(w.input.dtype)) + ", counter RNG)").c_str(), gen);
  line("fp64 reference + error metrics (OutputChecker)", checker);
  line("fp32 datapath, Welford 32 lanes (LayerNorm)", f32);
  line(("fp32 datapath, workload's own norm (" + std::string(core::to_string(w.norm)) + ")").c_str(), f32_own);
  line("fixed16 datapath, Welford 16 lanes (LayerNorm)", fx);
  line(("fixed16 datapath, workload's own norm (" + std::string(core::to_string(w.norm)) + ")").c_str(), fx_own);

  // A run's numerics end to end on 1..all cores (median of three each).
  const config::Arch dflt = config::load_arch(src + "/workloads/arch/asic-default.yaml");
  const core::DatapathConfig cfg = config::datapath_config(w, dflt);
  const int cores = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
  std::printf("\nwhole numerics of a run (core::run_functional: generation + asic-default datapath + fp64 reference)\n");
  std::printf("%-44s %14s %10s\n", "threads", "Melem/s", "vs 1");
  double one = 0;
  for (int t = 1; t <= cores; ++t) {
    std::vector<double> rates;
    for (int k = 0; k < 3; ++k) {
      const auto t0 = Clock::now();
      const auto r = core::run_functional(w, cfg, core::FunctionalOptions{false, false, t});
      rates.push_back(static_cast<double>(w.elements()) / std::chrono::duration<double>(Clock::now() - t0).count());
      if (r.numerics.output_error.elements() != static_cast<uint64_t>(w.elements())) return 1;
    }
    std::sort(rates.begin(), rates.end());
    if (t == 1) one = rates[1];
    std::printf("%-44d %14.2f %9.2fx\n", t, rates[1] / 1e6, rates[1] / one);
  }
  return 0;
}
