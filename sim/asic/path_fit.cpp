#include "sim/asic/path_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
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

// The designs of one path, each evaluated once: (rows, steps kept) -> cost.
// A path without a fraction has one "step" (k = 0).
class Designs {
 public:
  Designs(const config::Workload& w, const config::Arch& a, InputPath path, const CostsOf& costs_of)
      : w_(w), a_(a), path_(path), costs_of_(costs_of),
        steps_(path == InputPath::partial_replay ? partial_replay_steps(w, a) : ReplaySteps{}) {}

  double fraction(int k) const { return path_ == InputPath::partial_replay ? steps_.fraction(k) : 1.0; }
  int steps() const { return steps_.steps; }
  uint64_t bytes_at(int rows, int k) const { return path_onchip_bytes(w_, a_, path_, rows, fraction(k)); }

  /// Evaluates every (rows, k) of `want` not yet evaluated, in one batch.
  void evaluate(const std::vector<std::pair<int, int>>& want) {
    std::vector<std::pair<int, int>> todo;
    for (const auto& d : want)
      if (!index_.count(d) && std::find(todo.begin(), todo.end(), d) == todo.end()) todo.push_back(d);
    if (todo.empty()) return;
    std::vector<config::Arch> archs;
    for (const auto& [rows, k] : todo) {
      PathCandidate c;
      c.rows_in_flight = rows;
      c.replay_fraction = path_ == InputPath::partial_replay ? fraction(k) : 0;
      c.sram_bytes = bytes_at(rows, k);
      c.arch = candidate_arch(a_, path_, rows, fraction(k), c.sram_bytes);
      archs.push_back(c.arch);
      cands_.push_back(std::move(c));
    }
    const std::vector<CandidateCost> costs = costs_of_(archs);
    for (size_t i = 0; i < todo.size(); ++i) {
      index_[todo[i]] = costs_.size();
      costs_.push_back(costs[i]);
    }
  }
  const PathCandidate& candidate(int rows, int k) const { return cands_[index_.at({rows, k})]; }
  const CandidateCost& cost(int rows, int k) const { return costs_[index_.at({rows, k})]; }
  int evaluated() const { return static_cast<int>(costs_.size()); }
  /// The least of `key` over every design evaluated that `keep` accepts,
  /// (rows, k); false when none is.
  template <class Key, class Keep>
  bool least(const Key& key, const Keep& keep, std::pair<int, int>& best) const {
    bool any = false;
    for (const auto& [d, i] : index_)
      if (keep(d.first, d.second) && (!any || key(d.first, d.second) < key(best.first, best.second))) best = d, any = true;
    return any;
  }
  /// The fastest design evaluated (for the reason a target is missed).
  std::pair<int, int> fastest() const {
    std::pair<int, int> best{};
    double c = 0;
    for (const auto& [d, i] : index_)
      if (c == 0 || costs_[i].cycles < c) c = costs_[i].cycles, best = d;
    return best;
  }

 private:
  const config::Workload& w_;
  const config::Arch& a_;
  InputPath path_;
  const CostsOf& costs_of_;
  ReplaySteps steps_;
  std::map<std::pair<int, int>, size_t> index_;
  std::vector<PathCandidate> cands_;
  std::vector<CandidateCost> costs_;
};

// The least of `key` over k in [lo, hi] for each rows of `ranges`, the key
// falling then rising in k (one valley): an integer ternary search, every
// row count's probes evaluated in one batch a step. Returns rows -> k.
template <class Key>
std::map<int, int> valleys(Designs& d, std::map<int, std::pair<int, int>> ranges, const Key& key) {
  for (;;) {
    std::vector<std::pair<int, int>> probes;
    for (const auto& [rows, r] : ranges)
      if (r.second - r.first > 2) {
        probes.push_back({rows, r.first + (r.second - r.first) / 3});
        probes.push_back({rows, r.second - (r.second - r.first) / 3});
      }
    if (probes.empty()) break;
    d.evaluate(probes);
    for (auto& [rows, r] : ranges) {
      auto& [lo, hi] = r;
      if (hi - lo <= 2) continue;
      const int m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
      // Keys never tie (fewer steps are smaller): the valley is left of m2, or right of m1.
      if (key(rows, m1) < key(rows, m2)) hi = m2 - 1;
      else lo = m1 + 1;
    }
  }
  std::vector<std::pair<int, int>> rest;  // the last two or three steps of each
  for (const auto& [rows, r] : ranges)
    for (int k = r.first; k <= r.second; ++k) rest.push_back({rows, k});
  d.evaluate(rest);
  std::map<int, int> best;
  for (const auto& [rows, r] : ranges) {
    int b = r.first;
    for (int k = r.first + 1; k <= r.second; ++k)
      if (key(rows, k) < key(rows, b)) b = k;
    best[rows] = b;
  }
  return best;
}

// The row counts that can hold the best design of each step k of `top`
// (k -> the most rows it may have): a design at the most rows tells, probed
// at kFirstRowsProbe and then 4x up until it saturates or reaches the most.
// Returns the largest count any step needs; every count below it is searched.
int rows_to_search(Designs& d, const std::map<int, int>& top) {
  std::map<int, int> probe;  // k -> rows probed now
  for (const auto& [k, most] : top) probe[k] = std::min(most, kFirstRowsProbe);
  int rows = 0;
  while (!probe.empty()) {
    std::vector<std::pair<int, int>> batch;
    for (const auto& [k, r] : probe) batch.push_back({r, k});
    d.evaluate(batch);
    std::map<int, int> next;
    for (const auto& [k, r] : probe) {
      const CandidateCost& c = d.cost(r, k);
      if (c.saturating_rows(r) < r || r == top.at(k)) rows = std::max(rows, c.saturating_rows(r));
      else next[k] = static_cast<int>(std::min<int64_t>(top.at(k), 4LL * r));
    }
    probe = std::move(next);
  }
  return rows;
}

PathFit chosen(InputPath path, const Designs& d, int rows, int k) {
  PathFit fit;
  fit.path = path;
  fit.feasible = true;
  const PathCandidate& c = d.candidate(rows, k);
  fit.arch = c.arch;
  fit.rows_in_flight = c.rows_in_flight;
  fit.replay_fraction = c.replay_fraction;
  fit.sram_bytes = c.sram_bytes;
  fit.cost = d.cost(rows, k);
  fit.candidates_run = d.evaluated();
  return fit;
}
}  // namespace

double ReplaySteps::fraction(int k) const {
  return std::min(1.0, static_cast<double>(k) * static_cast<double>(step_elems) / static_cast<double>(hidden));
}

ReplaySteps partial_replay_steps(const config::Workload& w, const config::Arch& a) {
  const int64_t elem = row_elem_bytes(w);
  const int64_t burst_elems = std::max<int64_t>(1, a.asic->dram.burst_bytes / elem);
  const int64_t bursts = (w.hidden + burst_elems - 1) / burst_elems;
  const int64_t per_step = (bursts + kMaxReplaySteps - 1) / kMaxReplaySteps;  // bursts a step
  ReplaySteps s;
  s.hidden = w.hidden;
  s.step_elems = std::min<int64_t>(w.hidden, per_step * burst_elems);
  s.steps = static_cast<int>((w.hidden + s.step_elems - 1) / s.step_elems);
  return s;
}

std::vector<double> partial_replay_fractions(const config::Workload& w, const config::Arch& a) {
  const ReplaySteps s = partial_replay_steps(w, a);
  std::vector<double> f;
  for (int k = 1; k < s.steps; ++k) f.push_back(s.fraction(k));
  return f;
}

uint64_t path_onchip_bytes(const config::Workload& w, const config::Arch& a, InputPath path, int rows, double f) {
  const config::Arch c = candidate_arch(a, path, rows, f, a.asic->sram.capacity_bytes);
  return traffic_identity(w, c, *c.asic).onchip_bytes();
}

PathFit fit_sram_budget(const config::Workload& w, const config::Arch& a, InputPath path, uint64_t budget,
                        const CostsOf& costs_of) {
  Designs d(w, a, path, costs_of);
  const bool partial = path == InputPath::partial_replay;
  const int k_min = partial ? 1 : 0;
  if (partial && d.steps() < 2)
    return infeasible(path, "a row of " + std::to_string(w.hidden) + " elements is one step; nothing to split", 0);
  if (d.bytes_at(1, k_min) > budget) {
    if (path == InputPath::dram_reread)
      return infeasible(path,
                        "needs " + bytes(d.bytes_at(1, 0)) + " (re-read FIFO and parameters), the budget is " + bytes(budget), 0);
    return infeasible(path,
                      "one row buffer" +
                          std::string(partial ? " at the smallest fraction (one step of " +
                                                    std::to_string(partial_replay_steps(w, a).step_elems) + " elements)"
                                              : "") +
                          " and the parameters need " + bytes(d.bytes_at(1, k_min)) + ", the budget is " + bytes(budget),
                      0);
  }
  // Partial replay: the most steps that fit at `rows` (on-chip bytes grow with both), 0 if none.
  auto most_steps = [&](int rows) {
    if (d.bytes_at(rows, 1) > budget) return 0;
    int lo = 1, top = d.steps() - 1;
    while (lo < top) {
      const int mid = (lo + top + 1) / 2;
      if (d.bytes_at(rows, mid) <= budget) lo = mid;
      else top = mid - 1;
    }
    return lo;
  };
  std::map<int, int> top;  // each step that fits: the most rows it fits at
  for (int k = k_min; k <= (partial ? most_steps(1) : 0); ++k) top[k] = most_rows(w, a, path, d.fraction(k), budget);
  const int rows = rows_to_search(d, top);
  auto key = [&](int r, int k) {
    const CandidateCost& c = d.cost(r, k);
    return std::tuple{c.cycles, c.area_mm2, c.energy_uj, d.candidate(r, k).sram_bytes, k};
  };
  // At each rows: the steps that fit, searched for the valley.
  std::map<int, std::pair<int, int>> ranges;
  for (int r = 1; r <= rows; ++r)
    if (!partial) ranges[r] = {0, 0};
    else if (const int hi = most_steps(r); hi >= 1) ranges[r] = {1, hi};
  (void)valleys(d, ranges, key);
  // The best of every design evaluated (each fits): the valleys' bottoms and the probes.
  std::pair<int, int> best{};
  d.least(key, [](int, int) { return true; }, best);
  PathFit fit = chosen(path, d, best.first, best.second);
  fit.rows_searched = rows;
  fit.rows_that_fit = most_rows(w, a, path, d.fraction(best.second), budget);
  return fit;
}

PathFit fit_target_cycles(const config::Workload& w, const config::Arch& a, InputPath path, double target,
                          const CostsOf& costs_of) {
  Designs d(w, a, path, costs_of);
  const bool partial = path == InputPath::partial_replay;
  const int k_min = partial ? 1 : 0;
  if (partial && d.steps() < 2)
    return infeasible(path, "a row of " + std::to_string(w.hidden) + " elements is one step; nothing to split", 0);
  const int k_max = partial ? d.steps() - 1 : k_min;
  std::map<int, int> top;  // every step: up to the useful rows
  for (int k = k_min; k <= k_max; ++k) top[k] = useful_rows(w);
  const int rows = rows_to_search(d, top);
  auto key = [&](int r, int k) {
    const CandidateCost& c = d.cost(r, k);
    return std::tuple{d.candidate(r, k).sram_bytes, c.cycles, c.area_mm2, c.energy_uj, r, k};
  };
  // Row counts in batches, fewest first: once a design meets the target, a
  // count whose smallest design holds more bytes cannot win (the on-chip
  // bytes grow with the rows), so the search stops there.
  constexpr int kRowsABatch = 16;
  bool any = false;
  std::pair<int, int> best{};
  int searched = 0;
  for (int r0 = 1; r0 <= rows; r0 += kRowsABatch) {
    std::map<int, std::pair<int, int>> ranges;
    for (int r = r0; r <= std::min(rows, r0 + kRowsABatch - 1); ++r)
      if (!any || d.bytes_at(r, k_min) <= d.candidate(best.first, best.second).sram_bytes) ranges[r] = {k_min, k_max};
    if (ranges.empty()) break;
    searched = ranges.rbegin()->first;
    // At each rows: the fastest steps (the valley of cycles, fewer steps on a tie) ...
    const std::map<int, int> fastest =
        valleys(d, ranges, [&](int r, int k) { return std::tuple{d.cost(r, k).cycles, k}; });
    // ... then the fewest steps left of it that meet the target (the cycles fall towards the valley).
    std::map<int, std::pair<int, int>> search;  // rows -> [lo, hi] with hi meeting the target
    for (const auto& [r, k] : fastest)
      if (d.cost(r, k).cycles <= target) search[r] = {k_min, k};
    for (;;) {
      std::vector<std::pair<int, int>> probes;
      for (const auto& [r, s] : search)
        if (s.first < s.second) probes.push_back({r, (s.first + s.second) / 2});
      if (probes.empty()) break;
      d.evaluate(probes);
      for (auto& [r, s] : search)
        if (s.first < s.second) {
          const int mid = (s.first + s.second) / 2;
          if (d.cost(r, mid).cycles <= target) s.second = mid;
          else s.first = mid + 1;
        }
    }
    any = d.least(key, [&](int r, int k) { return d.cost(r, k).cycles <= target; }, best);
  }
  if (any) {
    PathFit fit = chosen(path, d, best.first, best.second);
    fit.rows_searched = searched;
    return fit;
  }
  const auto [fr, fk] = d.fastest();
  const std::string cycles = std::to_string(std::llround(d.cost(fr, fk).cycles));
  const std::string goal = std::to_string(std::llround(target));
  std::string at = std::to_string(fr) + " rows in flight";
  if (partial) at += ", replay fraction " + std::to_string(d.fraction(fk)).substr(0, 6);
  return infeasible(path, "its fastest design takes " + cycles + " cycles (" + at + "), the target is " + goal, d.evaluated());
}

}  // namespace normsim::asic
