#include "sim/asic/path_fit.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "sim/asic/traffic_identity.hpp"

namespace normsim::asic {

namespace {
constexpr int kMaxRowsInFlight = 65536;  // the key's range

config::Arch candidate_arch(const config::Arch& a, InputPath path, int rows, double f, uint64_t capacity) {
  config::Arch c = a;
  c.asic->path = path;
  c.asic->rows_in_flight = rows;
  if (path == InputPath::partial_replay) c.asic->replay_fraction = f;
  c.asic->sram.capacity_bytes = capacity;
  return c;
}

PathCandidate make_candidate(const config::Workload& w, const config::Arch& a, InputPath path, int rows, double f) {
  const uint64_t need = path_onchip_bytes(w, a, path, rows, f);
  return {candidate_arch(a, path, rows, f, need), rows, path == InputPath::partial_replay ? f : 0, need};
}

std::vector<double> fractions_of(InputPath path) {
  return path == InputPath::partial_replay ? partial_replay_fractions() : std::vector<double>{1.0};
}

int useful_rows(const config::Workload& w) { return static_cast<int>(std::min<int64_t>(w.rows, kMaxRowsInFlight)); }

// Row buffers are all the SRAM that grows with the rows in flight.
int most_rows(const config::Workload& w, const config::Arch& a, InputPath path, double f, uint64_t budget) {
  const uint64_t one = path_onchip_bytes(w, a, path, 1, f);
  if (one > budget) return 0;
  const uint64_t per_row = path_onchip_bytes(w, a, path, 2, f) - one;
  if (per_row == 0) return useful_rows(w);
  return static_cast<int>(std::min<int64_t>(useful_rows(w), 1 + static_cast<int64_t>((budget - one) / per_row)));
}

std::string bytes(uint64_t b) { return std::to_string(b) + " B"; }

PathFit infeasible(InputPath path, std::string why, int runs) {
  PathFit p;
  p.path = path;
  p.reason = std::move(why);
  p.candidates_run = runs;
  return p;
}

// Evaluates every candidate and keeps the first that no other beats by `key`.
template <class Admit, class Key>
PathFit best_of(InputPath path, const std::vector<PathCandidate>& cands, const CostsOf& costs_of,
                std::vector<CandidateCost>& costs, const Admit& admit, const Key& key) {
  std::vector<config::Arch> archs;
  archs.reserve(cands.size());
  for (const auto& c : cands) archs.push_back(c.arch);
  costs = costs_of(archs);
  size_t best = cands.size();
  for (size_t i = 0; i < cands.size(); ++i)
    if (admit(costs[i]) && (best == cands.size() || key(cands[i], costs[i]) < key(cands[best], costs[best]))) best = i;
  PathFit fit;
  fit.path = path;
  fit.candidates_run = static_cast<int>(cands.size());
  if (best == cands.size()) return fit;
  fit.feasible = true;
  fit.arch = cands[best].arch;
  fit.rows_in_flight = cands[best].rows_in_flight;
  fit.replay_fraction = cands[best].replay_fraction;
  fit.sram_bytes = cands[best].sram_bytes;
  fit.cost = costs[best];
  return fit;
}
}  // namespace

std::vector<double> partial_replay_fractions() {
  std::vector<double> f;
  for (int i = 1; i < 16; ++i) f.push_back(i / 16.0);
  return f;
}

std::vector<int> rows_in_flight_candidates(int most) {
  std::vector<int> rows;
  for (int r = 1; r <= std::min(most, 16); ++r) rows.push_back(r);
  for (int r = 32; r < most; r *= 2) rows.push_back(r);
  if (most > 16) rows.push_back(most);
  return rows;
}

uint64_t path_onchip_bytes(const config::Workload& w, const config::Arch& a, InputPath path, int rows, double f) {
  const config::Arch c = candidate_arch(a, path, rows, f, a.asic->sram.capacity_bytes);
  return traffic_identity(w, c, *c.asic).onchip_bytes();
}

std::vector<PathCandidate> sram_budget_candidates(const config::Workload& w, const config::Arch& a, InputPath path,
                                                  uint64_t budget) {
  std::vector<PathCandidate> out;
  for (double f : fractions_of(path))
    for (int rows : rows_in_flight_candidates(most_rows(w, a, path, f, budget)))
      out.push_back(make_candidate(w, a, path, rows, f));
  return out;
}

std::vector<PathCandidate> target_cycles_candidates(const config::Workload& w, const config::Arch& a, InputPath path) {
  std::vector<PathCandidate> out;
  for (double f : fractions_of(path))
    for (int rows : rows_in_flight_candidates(useful_rows(w))) out.push_back(make_candidate(w, a, path, rows, f));
  return out;
}

PathFit fit_sram_budget(const config::Workload& w, const config::Arch& a, InputPath path, uint64_t budget,
                        const CostsOf& costs_of) {
  const std::vector<PathCandidate> cands = sram_budget_candidates(w, a, path, budget);
  if (cands.empty()) {
    if (path == InputPath::dram_reread)
      return infeasible(path,
                        "needs " + bytes(path_onchip_bytes(w, a, path, 1, 0)) +
                            " (re-read FIFO and parameters), the budget is " + bytes(budget),
                        0);
    return infeasible(path,
                      "one row buffer" + std::string(path == InputPath::partial_replay ? " at the smallest fraction 1/16" : "") +
                          " and the parameters need " + bytes(path_onchip_bytes(w, a, path, 1, fractions_of(path).front())) +
                          ", the budget is " + bytes(budget),
                      0);
  }
  std::vector<CandidateCost> costs;
  PathFit fit = best_of(
      path, cands, costs_of, costs, [](const CandidateCost&) { return true; },
      [](const PathCandidate& c, const CandidateCost& k) {
        return std::tuple{k.cycles, k.area_mm2, k.energy_uj, c.sram_bytes, c.rows_in_flight, c.replay_fraction};
      });
  if (fit.feasible)
    fit.rows_that_fit = most_rows(w, a, path, path == InputPath::partial_replay ? fit.replay_fraction : 1.0, budget);
  return fit;
}

PathFit fit_target_cycles(const config::Workload& w, const config::Arch& a, InputPath path, double target,
                          const CostsOf& costs_of) {
  const std::vector<PathCandidate> cands = target_cycles_candidates(w, a, path);
  std::vector<CandidateCost> costs;
  PathFit best = best_of(
      path, cands, costs_of, costs, [&](const CandidateCost& k) { return k.cycles <= target; },
      [](const PathCandidate& c, const CandidateCost& k) {
        return std::tuple{c.sram_bytes, k.cycles, k.area_mm2, k.energy_uj, c.rows_in_flight, c.replay_fraction};
      });
  if (best.feasible) return best;
  size_t fastest = 0;
  for (size_t i = 1; i < cands.size(); ++i)
    if (costs[i].cycles < costs[fastest].cycles) fastest = i;
  const PathCandidate& f = cands[fastest];
  const std::string cycles = std::to_string(std::llround(costs[fastest].cycles));
  const std::string goal = std::to_string(std::llround(target));
  std::string at = std::to_string(f.rows_in_flight) + " rows in flight";
  if (path == InputPath::partial_replay) at += ", replay fraction " + std::to_string(f.replay_fraction).substr(0, 6);
  return infeasible(path, "its fastest design takes " + cycles + " cycles (" + at + "), the target is " + goal,
                    best.candidates_run);
}

}  // namespace normsim::asic
