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
  double simt::GpuL2Config::*l2;
  double simt::GpuDramConfig::*dram;
  double lo, hi;
  double simt::GpuL1Config::*l1 = nullptr;
};
const std::vector<Param>& fit_params() {
  static const std::vector<Param> params = {
      {"fdiv_latency_cycles", &simt::GpuArch::fdiv_latency_cycles, nullptr, nullptr, 10, 2000},
      {"l2.dirty_resident_bytes", nullptr, &simt::GpuL2Config::dirty_resident_bytes, nullptr, 1e6, 62.9e6},
      {"l2.atomic_ns_per_sector", nullptr, &simt::GpuL2Config::atomic_ns_per_sector, nullptr, 0.05, 100},
      {"l2.scattered_store_sectors_per_ns", nullptr, &simt::GpuL2Config::scattered_store_sectors_per_ns, nullptr, 1, 1000},
      {"shuffle_latency_cycles", &simt::GpuArch::shuffle_latency_cycles, nullptr, nullptr, 10, 200},
      {"barrier_latency_cycles", &simt::GpuArch::barrier_latency_cycles, nullptr, nullptr, 10, 2000},
      {"kernel_tail_cycles", &simt::GpuArch::kernel_tail_cycles, nullptr, nullptr, 0, 20000},
      {"dram.fill_weight", nullptr, nullptr, &simt::GpuDramConfig::fill_weight, 0.01, 1},
      {"round_overhead_cycles", &simt::GpuArch::round_overhead_cycles, nullptr, nullptr, 0, 20000},
      {"dependent_issue_cycles", &simt::GpuArch::dependent_issue_cycles, nullptr, nullptr, 1, 64},
      {"memory_overlap_exponent", &simt::GpuArch::memory_overlap_exponent, nullptr, nullptr, 1, 64},
      {"bound_overlap_exponent", &simt::GpuArch::bound_overlap_exponent, nullptr, nullptr, 1, 64},
      {"l1.miss_requests_per_cycle", nullptr, nullptr, nullptr, 0.05, 4, &simt::GpuL1Config::miss_requests_per_cycle},
      {"l1.reuse_steepness", nullptr, nullptr, nullptr, 1, 20, &simt::GpuL1Config::reuse_steepness},
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
      const simt::Prediction p = simt::predict(plan, g, /*with_sensitivity=*/false);
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
      // A parameter at 0 (a mechanism switched off) starts its grid at a small value.
      const double cur = ref(best, p) > 0 ? ref(best, p) : (p.hi - p.lo) * 1e-2;
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
  best.range = fit_ranges(cases, best, log);
  return best;
}

namespace {

// The smallest h with h >= need on at least `share` of the needs.
double quantile_floor(std::vector<double> need, double share) {
  if (need.empty()) return 0;
  std::sort(need.begin(), need.end());
  const size_t k = static_cast<size_t>(std::ceil(share * static_cast<double>(need.size()))) - 1;
  return need[std::min(k, need.size() - 1)];
}

// The relative widening a range [lo, hi] needs to hold m: lo (1 - f) <= m <= hi (1 + f).
double needed_floor(const simt::Range& r, double m) {
  if (m < r.lo) return r.lo > 0 ? 1 - m / r.lo : 0;
  if (m > r.hi) return r.hi > 0 ? m / r.hi - 1 : INFINITY;
  return 0;
}

}  // namespace

simt::RangeConfig fit_ranges(const std::vector<GoldenCase>& cases, const simt::GpuArch& arch, std::string* log) {
  const std::vector<bool> held = held_out_mask(cases);
  std::vector<std::pair<const GoldenCase*, simt::LaunchPlan>> train;
  for (size_t i = 0; i < cases.size(); ++i)
    if (!held[i])
      train.emplace_back(&cases[i], simt::plan_launch(cases[i].kernel, cases[i].rows, cases[i].hidden, cases[i].dtype,
                                                cases[i].block, arch));
  // Every training case's prediction with the ranges' floors at 0.
  auto bare = [&](double spread, double dirty, double scattered_fill) {
    simt::GpuArch g = arch;
    g.range = {};
    g.range.in_flight_spread = spread;
    g.range.dirty_spread_bytes = dirty;
    g.range.scattered_store_fill = scattered_fill;
    g.range.dram_read_floor = g.range.dram_write_floor = g.range.l2_floor = 0;
    g.range.dram_read_floor_bytes = g.range.reread_miss_floor = 0;
    g.range.duration_floor_memory = g.range.duration_floor_latency = 0;
    std::vector<simt::Prediction> p;
    for (const auto& [c, plan] : train) p.push_back(simt::predict(plan, g));
    return p;
  };
  simt::RangeConfig best = arch.range;
  // Scattered stores: the most of their bytes a training case read on top.
  {
    const auto preds = bare(0, 0, 0);
    best.scattered_store_fill = 0;
    for (size_t j = 0; j < train.size(); ++j) {
      if (!preds[j].scattered_stores) continue;
      double out = 0;
      for (const auto& k : train[j].second.launches) out += k.uncoalesced ? static_cast<double>(k.output_bytes) : 0.0;
      if (out > 0)
        best.scattered_store_fill = std::max(best.scattered_store_fill,
                                             (train[j].first->dram_bytes_read - preds[j].dram_bytes_read) / out);
    }
    best.scattered_store_fill = std::ceil(best.scattered_store_fill * 100) / 100;
  }
  // DRAM read: the spread and floors that hold every training case at the
  // least mean relative width (the gate holds every case to its range).
  double best_width = INFINITY;
  for (int i = 0; i <= 25; ++i) {
    const double spread = 0.02 * i;
    const auto preds = bare(spread, 0, best.scattered_store_fill);
    for (int b = 0; b <= 20; ++b)
      for (int q = 0; q <= 20; ++q) {
        const double floor_bytes = 0.1e6 * b, miss_floor = 0.01 * q;
        double floor = 0;
        for (size_t j = 0; j < train.size(); ++j) {
          const simt::Range& r = preds[j].ranges.dram_bytes_read;
          const double m = train[j].first->dram_bytes_read, extra = floor_bytes + miss_floor * preds[j].reread_dram_bytes;
          if (m < r.lo - extra) floor = std::max(floor, (r.lo - extra - m) / r.lo);
          if (m > r.hi + extra) floor = std::max(floor, (m - extra - r.hi) / r.hi);
        }
        floor = std::ceil(floor * 1e4) / 1e4;
        double width = 0;
        for (const auto& p : preds) {
          const simt::Range& r = p.ranges.dram_bytes_read;
          const double extra = floor_bytes + miss_floor * p.reread_dram_bytes;
          width += ((r.hi * (1 + floor) + extra) - std::max(0.0, r.lo * (1 - floor) - extra)) / std::max(1.0, p.dram_bytes_read);
        }
        width /= static_cast<double>(preds.size());
        if (width < best_width - 1e-12) {
          best_width = width;
          best.in_flight_spread = spread;
          best.dram_read_floor = floor;
          best.dram_read_floor_bytes = floor_bytes;
          best.reread_miss_floor = miss_floor;
        }
      }
  }
  // The rest hold the coverage target's share of the training cases (reported, not gated).
  constexpr double kShare = 0.95;
  double best_write = INFINITY;
  for (double dirty : {0.0, 2e6, 4e6, 6e6, 8e6, 12e6, 16e6, 24e6}) {
    const auto preds = bare(best.in_flight_spread, dirty, best.scattered_store_fill);
    std::vector<double> need;
    for (size_t j = 0; j < train.size(); ++j)
      need.push_back(needed_floor(preds[j].ranges.dram_bytes_written, train[j].first->dram_bytes_written));
    const double floor = quantile_floor(need, kShare);
    double width = 0;
    for (const auto& p : preds) width += p.ranges.dram_bytes_written.relative_width(std::max(1.0, p.dram_bytes_written));
    width = width / static_cast<double>(preds.size()) + 2 * floor;
    if (width < best_write) {
      best_write = width;
      best.dirty_spread_bytes = dirty;
      best.dram_write_floor = floor;
    }
  }
  const auto preds = bare(best.in_flight_spread, best.dirty_spread_bytes, best.scattered_store_fill);
  std::vector<double> l2_need;
  std::vector<std::pair<double, double>> dur_need;  // (memory share, need)
  for (size_t j = 0; j < train.size(); ++j) {
    const auto& p = preds[j];
    l2_need.push_back(needed_floor(p.ranges.l2_bytes, train[j].first->l2_bytes));
    double dram_us = 0;
    for (const auto& l : p.launches) dram_us += l.dram_us;
    dur_need.emplace_back(p.duration_us > 0 ? std::clamp(dram_us / p.duration_us, 0.0, 1.0) : 0.0,
                          needed_floor(p.ranges.duration_us, train[j].first->duration_us));
  }
  best.l2_floor = quantile_floor(l2_need, kShare);
  double best_dur = INFINITY;
  for (int a = 0; a <= 100; ++a)
    for (int b = a; b <= 200; ++b) {
      const double fm = 0.005 * a, fl = 0.005 * b;
      size_t inside = 0;
      double width = 0;
      for (const auto& [m, need] : dur_need) {
        const double h = fm * m + fl * (1 - m);
        inside += need <= h;
        width += h;
      }
      if (static_cast<double>(inside) >= kShare * static_cast<double>(dur_need.size()) && width < best_dur) {
        best_dur = width;
        best.duration_floor_memory = fm;
        best.duration_floor_latency = fl;
      }
    }
  if (log) {
    char line[400];
    std::snprintf(line, sizeof line,
                  "ranges: in_flight_spread %.2f, DRAM read floor %.4f + %.0f bytes + %.2f of re-read misses, scattered stores +%.2f (every training case), dirty spread %.0f bytes, "
                  "write floor %.4f, L2 floor %.4f, duration floors %.3f (DRAM-bound) .. %.3f (latency-bound) (%.0f%% of training cases)\n",
                  best.in_flight_spread, best.dram_read_floor, best.dram_read_floor_bytes, best.reread_miss_floor, best.scattered_store_fill, best.dirty_spread_bytes, best.dram_write_floor,
                  best.l2_floor, best.duration_floor_memory, best.duration_floor_latency, 100 * kShare);
    *log += line;
  }
  return best;
}

std::vector<std::pair<std::string, double>> fitted_values(const simt::GpuArch& g) {
  std::vector<std::pair<std::string, double>> out;
  simt::GpuArch copy = g;
  for (const Param& p : fit_params()) out.emplace_back(p.name, param_ref(copy, p));
  const simt::RangeConfig& r = g.range;
  for (auto [name, v] : {std::pair{"range.in_flight_spread", r.in_flight_spread},
                         std::pair{"range.dirty_spread_bytes", r.dirty_spread_bytes},
                         std::pair{"range.dram_read_floor", r.dram_read_floor},
                         std::pair{"range.dram_read_floor_bytes", r.dram_read_floor_bytes},
                         std::pair{"range.reread_miss_floor", r.reread_miss_floor},
                         std::pair{"range.scattered_store_fill", r.scattered_store_fill},
                         std::pair{"range.dram_write_floor", r.dram_write_floor}, std::pair{"range.l2_floor", r.l2_floor},
                         std::pair{"range.duration_floor_memory", r.duration_floor_memory},
                         std::pair{"range.duration_floor_latency", r.duration_floor_latency}})
    out.emplace_back(name, v);
  return out;
}

std::string fitted_parameters(const simt::GpuArch& g) {
  std::string out;
  char line[160];
  for (const auto& [name, v] : fitted_values(g)) {
    std::snprintf(line, sizeof line, "  %s: %.9g\n", name.c_str(), v);
    out += line;
  }
  return out;
}

}  // namespace normsim::validate
