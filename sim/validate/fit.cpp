#include "sim/validate/fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/validate/simt_regress.hpp"

namespace normsim::validate {

namespace {
struct Param {
  const char* name;
  double simt::GpuArch::*top;
  double simt::L2Config::*l2;
  double simt::DramConfig::*dram;
  double lo, hi;
  double simt::L1Config::*l1 = nullptr;
};
const std::vector<Param>& fit_params() {
  static const std::vector<Param> params = {
      {"fdiv_latency_cycles", &simt::GpuArch::fdiv_latency_cycles, nullptr, nullptr, 10, 2000},
      {"l2.dirty_resident_bytes", nullptr, &simt::L2Config::dirty_resident_bytes, nullptr, 1e6, 62.9e6},
      {"l2.atomic_ns_per_sector", nullptr, &simt::L2Config::atomic_ns_per_sector, nullptr, 0.05, 100},
      {"l2.scattered_store_sectors_per_ns", nullptr, &simt::L2Config::scattered_store_sectors_per_ns, nullptr, 1, 1000},
      {"shuffle_latency_cycles", &simt::GpuArch::shuffle_latency_cycles, nullptr, nullptr, 10, 200},
      {"barrier_latency_cycles", &simt::GpuArch::barrier_latency_cycles, nullptr, nullptr, 10, 2000},
      {"kernel_tail_cycles", &simt::GpuArch::kernel_tail_cycles, nullptr, nullptr, 0, 20000},
      {"dram.fill_weight", nullptr, nullptr, &simt::DramConfig::fill_weight, 0.01, 1},
      {"round_overhead_cycles", &simt::GpuArch::round_overhead_cycles, nullptr, nullptr, 0, 20000},
      {"dependent_issue_cycles", &simt::GpuArch::dependent_issue_cycles, nullptr, nullptr, 1, 64},
      {"memory_overlap_exponent", &simt::GpuArch::memory_overlap_exponent, nullptr, nullptr, 1, 64},
      {"bound_overlap_exponent", &simt::GpuArch::bound_overlap_exponent, nullptr, nullptr, 1, 64},
      {"l1.miss_requests_per_cycle", nullptr, nullptr, nullptr, 0.05, 4, &simt::L1Config::miss_requests_per_cycle},
      {"l1.reuse_steepness", nullptr, nullptr, nullptr, 1, 20, &simt::L1Config::reuse_steepness},
  };
  return params;
}

double& param_ref(simt::GpuArch& g, const Param& p) {
  if (p.top) return g.*(p.top);
  if (p.l2) return g.l2.*(p.l2);
  if (p.l1) return g.l1.*(p.l1);
  return g.dram.*(p.dram);
}
}  // namespace

simt::GpuArch fit_arch(const std::vector<GoldenCase>& cases, const simt::GpuArch& start, std::string* log) {
  const std::vector<bool> held = held_out_mask(cases);
  // Launch plans do not depend on the fitted parameters: plan each case once.
  std::vector<std::pair<const GoldenCase*, simt::LaunchPlan>> train;
  for (size_t i = 0; i < cases.size(); ++i)
    if (!held[i])
      train.emplace_back(&cases[i], simt::plan_launch(cases[i].kernel, cases[i].rows, cases[i].hidden, cases[i].dtype,
                                                cases[i].block, start));
  auto objective = [&](const simt::GpuArch& g) {
    double dur = 0, rd = 0, wr = 0, rd_max = 0;
    size_t nwr = 0;
    for (const auto& [c, plan] : train) {
      const simt::Prediction p = simt::predict(plan, g, /*with_elasticity=*/false);
      dur += std::fabs(rel_error(p.duration_us, c->duration_us));
      const double e = std::fabs(rel_error(p.dram_bytes_read, c->dram_bytes_read));
      rd += e;
      rd_max = std::max(rd_max, e);
      if (c->dram_bytes_written > 0) {
        wr += std::fabs(rel_error(p.dram_bytes_written, c->dram_bytes_written));
        ++nwr;
      }
    }
    // The DRAM-read target is per case: its worst case counts too.
    return dur / train.size() + rd / train.size() + (nwr ? wr / nwr : 0) + 0.5 * rd_max;
  };
  const auto& params = fit_params();
  auto ref = [](simt::GpuArch& g, const Param& p) -> double& { return param_ref(g, p); };
  simt::GpuArch best = start;
  double best_obj = objective(best);
  char line[256];
  for (int round = 0; round < 4; ++round) {
    for (const Param& p : params) {
      const double cur = ref(best, p);
      for (int step = -8; step <= 8; ++step) {
        simt::GpuArch trial = best;
        const double v = std::clamp(cur * std::pow(2.0, step / 4.0), p.lo, p.hi);
        ref(trial, p) = v;
        const double obj = objective(trial);
        if (obj < best_obj - 1e-9) {
          best_obj = obj;
          best = trial;
          if (log) {
            std::snprintf(line, sizeof line, "round %d: %s = %.6g (objective %.4f)\n", round, p.name, v, obj);
            *log += line;
          }
        }
      }
    }
  }
  return best;
}

std::string fitted_parameters(const simt::GpuArch& g) {
  std::string out;
  char line[160];
  simt::GpuArch copy = g;
  for (const Param& p : fit_params()) {
    std::snprintf(line, sizeof line, "  %s: %.9g\n", p.name, param_ref(copy, p));
    out += line;
  }
  return out;
}

}  // namespace normsim::validate
