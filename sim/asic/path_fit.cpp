#include "sim/asic/path_fit.hpp"

#include <algorithm>
#include <cmath>

#include "sim/asic/traffic_identity.hpp"

namespace normsim::asic {

namespace {
constexpr int kMaxRowsInFlight = 65536;  // the key's range

config::Arch candidate(const config::Arch& a, InputPath path, int rows, double f, uint64_t capacity) {
  config::Arch c = a;
  c.asic->path = path;
  c.asic->rows_in_flight = rows;
  if (path == InputPath::partial_replay) c.asic->replay_fraction = f;
  c.asic->sram.capacity_bytes = capacity;
  return c;
}

// Row buffers are all the SRAM that grows with the rows in flight.
int most_rows(const config::Workload& w, const config::Arch& a, InputPath path, double f, uint64_t budget) {
  const uint64_t one = path_onchip_bytes(w, a, path, 1, f);
  if (one > budget) return 0;
  const uint64_t per_row = path_onchip_bytes(w, a, path, 2, f) - one;
  const int64_t useful = std::min<int64_t>(w.rows, kMaxRowsInFlight);
  if (per_row == 0) return static_cast<int>(useful);
  return static_cast<int>(std::min<int64_t>(useful, 1 + static_cast<int64_t>((budget - one) / per_row)));
}

std::string bytes(uint64_t b) { return std::to_string(b) + " B"; }

PathFit chosen(InputPath path, const config::Arch& a, int rows, double f, uint64_t need, double cycles, int runs) {
  PathFit p;
  p.path = path;
  p.feasible = true;
  p.arch = a;
  p.rows_in_flight = rows;
  p.replay_fraction = path == InputPath::partial_replay ? f : 0;
  p.sram_bytes = need;
  p.cycles = cycles;
  p.candidates_run = runs;
  return p;
}

PathFit infeasible(InputPath path, std::string why, int runs) {
  PathFit p;
  p.path = path;
  p.reason = std::move(why);
  p.candidates_run = runs;
  return p;
}
}  // namespace

std::vector<double> partial_replay_fractions() {
  std::vector<double> f;
  for (int i = 1; i < 16; ++i) f.push_back(i / 16.0);
  return f;
}

uint64_t path_onchip_bytes(const config::Workload& w, const config::Arch& a, InputPath path, int rows, double f) {
  const config::Arch c = candidate(a, path, rows, f, a.asic->sram.capacity_bytes);
  return traffic_identity(w, c, *c.asic).onchip_bytes();
}

PathFit fit_sram_budget(const config::Workload& w, const config::Arch& a, InputPath path, uint64_t budget,
                        const CyclesOf& cycles_of) {
  if (path == InputPath::dram_reread) {
    const int rows = a.asic->rows_in_flight;
    const uint64_t need = path_onchip_bytes(w, a, path, rows, 0);
    if (need > budget)
      return infeasible(path, "needs " + bytes(need) + " (re-read FIFO and parameters), the budget is " + bytes(budget), 0);
    const config::Arch c = candidate(a, path, rows, 0, budget);
    return chosen(path, c, rows, 0, need, cycles_of(c), 1);
  }
  const std::vector<double> fractions = path == InputPath::partial_replay ? partial_replay_fractions() : std::vector<double>{1.0};
  PathFit best;
  int runs = 0;
  for (double f : fractions) {
    const int rows = most_rows(w, a, path, f, budget);
    if (rows < 1) continue;
    const config::Arch c = candidate(a, path, rows, f, budget);
    const double cycles = cycles_of(c);
    ++runs;
    const uint64_t need = path_onchip_bytes(w, a, path, rows, f);
    if (!best.feasible || cycles < best.cycles || (cycles == best.cycles && need < best.sram_bytes))
      best = chosen(path, c, rows, f, need, cycles, 0);
  }
  if (!best.feasible) {
    const double f = fractions.front();
    return infeasible(path,
                      "one row buffer" + std::string(path == InputPath::partial_replay ? " at the smallest fraction 1/16" : "") +
                          " and the parameters need " + bytes(path_onchip_bytes(w, a, path, 1, f)) + ", the budget is " +
                          bytes(budget),
                      0);
  }
  best.candidates_run = runs;
  return best;
}

PathFit fit_target_cycles(const config::Workload& w, const config::Arch& a, InputPath path, double target,
                          const CyclesOf& cycles_of) {
  auto at = [&](int rows, double f) {
    const uint64_t need = path_onchip_bytes(w, a, path, rows, f);
    return std::pair{candidate(a, path, rows, f, need), need};
  };
  if (path == InputPath::dram_reread) {
    const int rows = a.asic->rows_in_flight;
    const auto [c, need] = at(rows, 0);
    const double cycles = cycles_of(c);
    if (cycles > target)
      return infeasible(path, "takes " + std::to_string(std::llround(cycles)) + " cycles at " + std::to_string(rows) +
                                  " rows in flight (the target is " + std::to_string(std::llround(target)) + ")", 1);
    return chosen(path, c, rows, 0, need, cycles, 1);
  }
  const std::vector<double> fractions = path == InputPath::partial_replay ? partial_replay_fractions() : std::vector<double>{1.0};
  const int hi_rows = static_cast<int>(std::min<int64_t>(w.rows, kMaxRowsInFlight));
  PathFit best;
  int runs = 0;
  double fastest = 0;
  for (double f : fractions) {
    // The fewest rows in flight that meet the target, if the most do.
    const double most = cycles_of(at(hi_rows, f).first);
    ++runs;
    if (fastest == 0 || most < fastest) fastest = most;
    if (most > target) continue;
    int lo = 1, hi = hi_rows;
    double hi_cycles = most;
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      const double c = cycles_of(at(mid, f).first);
      ++runs;
      if (c <= target) {
        hi = mid;
        hi_cycles = c;
      } else {
        lo = mid + 1;
      }
    }
    const auto [c, need] = at(hi, f);
    if (!best.feasible || need < best.sram_bytes || (need == best.sram_bytes && hi_cycles < best.cycles))
      best = chosen(path, c, hi, f, need, hi_cycles, 0);
  }
  if (!best.feasible)
    return infeasible(path, "its fastest design takes " + std::to_string(std::llround(fastest)) + " cycles (" +
                                std::to_string(hi_rows) + " rows in flight), the target is " +
                                std::to_string(std::llround(target)),
                      runs);
  best.candidates_run = runs;
  return best;
}

}  // namespace normsim::asic
