#include "sim/core/reuse_curve.hpp"

#include <algorithm>
#include <cmath>

namespace normsim::core {

ReuseCurve with_rows_in_flight(const ReuseCurve& c, double per_doubling, double reference_rows, double rows) {
  return {c.half_bytes, std::max(1.0, c.steepness + per_doubling * std::log2(std::max(1.0, rows) / reference_rows))};
}

ReuseCurve L2Reuse::steady_curve(double rows_in_flight) const {
  return with_rows_in_flight(steady, steady_steepness_per_doubling, steady_steepness_rows, rows_in_flight);
}

double reuse_hit_fraction(double distance_bytes, const ReuseCurve& c) {
  if (distance_bytes <= 0) return 1.0;
  return 1.0 / (1.0 + std::pow(distance_bytes / c.half_bytes, c.steepness));
}

double mean_hit_between_passes(const std::vector<double>& a, const std::vector<double>& b, double pool_bytes,
                               const ReuseCurve& curve) {
  if (a.size() < 2) return 1.0;
  constexpr int kSteps = 64;
  double hit = 0;
  for (size_t j = 1; j < a.size(); ++j)
    for (int s = 0; s < kSteps; ++s) {
      const double f = (s + 0.5) / kSteps;
      const double evict_first = (1 - f) * b[j - 1] + f * b[j];
      hit += reuse_hit_fraction((1 - f) * a[j - 1] + f * a[j] + std::min(pool_bytes, evict_first), curve);
    }
  return hit / (kSteps * static_cast<double>(a.size() - 1));
}

namespace {
std::vector<double> scaled(const std::vector<double>& v, double by) {
  std::vector<double> out;
  out.reserve(v.size());
  for (double x : v) out.push_back(x * by);
  return out;
}
double sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}
}  // namespace

double lockstep_reread_hit(const PassInsertions& p, double x_bytes, double pool_bytes, const ReuseCurve& sweep) {
  return mean_hit_between_passes(scaled(p.normal, x_bytes), scaled(p.evict_first, x_bytes), pool_bytes, sweep);
}

double out_of_phase_reread_hit(const PassInsertions& p, double x_bytes, const std::vector<double>& pass_time,
                               double pool_bytes, const ReuseCurve& steady) {
  const double total = sum(pass_time);
  if (!(total > 0)) return 1.0;
  // bytes per time unit the rows in flight insert, at each priority
  const double rate_normal = x_bytes * sum(p.normal) / total, rate_evict_first = x_bytes * sum(p.evict_first) / total;
  return mean_hit_between_passes(scaled(pass_time, rate_normal), scaled(pass_time, rate_evict_first), pool_bytes,
                                 steady);
}

double rounds_reread_hit(double lockstep_hit, double out_of_phase_hit, double rows, double rows_in_flight) {
  if (rows <= rows_in_flight) return lockstep_hit;
  const double first_round = rows_in_flight / rows;
  return first_round * lockstep_hit + (1 - first_round) * out_of_phase_hit;
}

}  // namespace normsim::core
