#include "sim/asic/steady_state.hpp"

#include <bit>
#include <algorithm>
#include <cmath>

namespace normsim::asic {

namespace {
// The k of the finest 2^-k that `v` is a multiple of (0 for integers).
int fraction_bits(double v) {
  if (v == 0 || !std::isfinite(v)) return 0;
  int e = 0;
  const double f = std::frexp(std::fabs(v), &e);
  const auto m = static_cast<uint64_t>(std::ldexp(f, 53));
  return std::max(0, 53 - e - std::countr_zero(m));
}
}  // namespace

bool SteadyStateDetector::looks_at(int64_t row) const {
  if (done_) return false;
  if (row < cfg_.dense_rows) return true;
  const int64_t window = static_cast<int64_t>(cfg_.repeats + 1) * cfg_.max_period_rows + 1;
  const int64_t power = int64_t{1} << (63 - std::countl_zero(static_cast<uint64_t>(row)));
  return row - power < window;
}

void SteadyStateDetector::stop(std::string reason) {
  if (done_) return;
  done_ = true;
  ff_.reason = std::move(reason);
  history_.clear();
}

bool SteadyStateDetector::periodic(int p, const std::vector<bool>& peak) const {
  const size_t n = history_.size();
  const size_t span = static_cast<size_t>(p) * static_cast<size_t>(cfg_.repeats);
  if (n < span + 1) return false;
  const Snapshot& last = history_[n - 1];
  const Snapshot& prev = history_[n - 1 - static_cast<size_t>(p)];
  const double period = last.state.now - prev.state.now;
  if (!(period > 0)) return false;
  for (size_t j = 1; j <= static_cast<size_t>(cfg_.repeats); ++j) {
    const Snapshot& a = history_[n - 1 - (j - 1) * static_cast<size_t>(p)];
    const Snapshot& b = history_[n - 1 - j * static_cast<size_t>(p)];
    if (a.state.values != b.state.values) return false;
    if (a.state.now - b.state.now != period) return false;
    if (a.counters.size() != last.counters.size() || b.counters.size() != last.counters.size()) return false;
    for (size_t i = 0; i < last.counters.size(); ++i) {
      const double d = a.counters[i] - b.counters[i];
      if (d != last.counters[i] - prev.counters[i]) return false;
      if (peak[i] && d != 0) return false;  // a maximum still rising: not steady
    }
  }
  return true;
}

int64_t SteadyStateDetector::observe(PeriodState&& state, std::vector<double>&& counters, const std::vector<bool>& peak,
                                     int64_t issued_rows) {
  if (done_) return -1;
  const int64_t row = state.row;
  // A gap since the last row looked at: the history starts again.
  if (!history_.empty() && history_.back().state.row + 1 != row) history_.clear();
  history_.push_back(Snapshot{std::move(state), std::move(counters)});
  const size_t keep = static_cast<size_t>(cfg_.max_period_rows) * static_cast<size_t>(cfg_.repeats) + 1;
  while (history_.size() > keep) history_.pop_front();
  if (row + 1 < cfg_.first_row) return -1;

  for (int p = 1; p <= cfg_.max_period_rows; ++p) {
    if (!periodic(p, peak)) continue;
    // Cut as many whole periods as leave the end of the input unseen:
    // every unit has issued fewer than `issued_rows` rows.
    const int64_t m = (cfg_.rows - issued_rows - 1) / p;
    if (m < 1) {
      stop("the period (" + std::to_string(p) + " rows) leaves no whole period to skip before the last rows");
      return -1;
    }
    const Snapshot& last = history_.back();
    const Snapshot& prev = history_[history_.size() - 1 - static_cast<size_t>(p)];
    const double period = last.state.now - prev.state.now;
    // Exactness: every value a multiple of 2^-k, the largest the run can
    // reach below 2^(53-k) with a factor of two to spare.
    int k = fraction_bits(period);
    double largest = last.state.now + period * static_cast<double>(m + cfg_.rows / p + 2);
    std::vector<double> delta(last.counters.size());
    for (size_t i = 0; i < delta.size(); ++i) {
      delta[i] = last.counters[i] - prev.counters[i];
      k = std::max({k, fraction_bits(delta[i]), fraction_bits(last.counters[i])});
      largest = std::max(largest, std::fabs(last.counters[i]) + std::fabs(delta[i]) * static_cast<double>(m + cfg_.rows / p + 2));
    }
    for (const Snapshot& s : history_) {
      k = std::max(k, fraction_bits(s.state.now));
      for (double v : s.state.values) k = std::max(k, fraction_bits(v));
    }
    if (std::log2(2 * largest) + k >= 53) {
      stop("the times are not exact in doubles over the run (multiples of 2^-" + std::to_string(k) + ")");
      return -1;
    }
    ff_.applied = true;
    ff_.period_rows = p;
    ff_.period_cycles = period;
    ff_.periods_skipped = m;
    ff_.cut_cycle = last.state.now;
    ff_.counter_delta = std::move(delta);
    done_ = true;
    history_.clear();
    return cfg_.rows - m * p;
  }
  return -1;
}

}  // namespace normsim::asic
