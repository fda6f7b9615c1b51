#include "sim/config/l2_reuse_keys.hpp"

#include <cmath>

namespace normsim::config {

namespace {
double within(YamlReader& m, const std::string& key, double def, double lo, double hi, const std::string& range) {
  const double v = m.get_double(key).value_or(def);
  if (!(v >= lo && v <= hi)) m.fail(key, "out of range", range);
  return v;
}
}  // namespace

void read_l2_reuse(YamlReader& l2, core::L2Reuse& r, double capacity_bytes) {
  r.sweep.half_bytes = l2.get_positive("sweep_half_bytes", r.sweep.half_bytes);
  r.sweep.steepness = l2.get_positive("sweep_steepness", r.sweep.steepness);
  r.steady.half_bytes = l2.get_positive("reuse_half_bytes", r.steady.half_bytes);
  r.steady.steepness = l2.get_positive("reuse_steepness", r.steady.steepness);
  r.steady_steepness_per_doubling =
      within(l2, "reuse_steepness_per_doubling", r.steady_steepness_per_doubling, -16, 16, "[-16, 16]");
  r.steady_steepness_rows = l2.get_positive("reuse_steepness_rows", r.steady_steepness_rows);
  if (auto pool = l2.get_double("evict_first_pool_bytes")) {
    if (!(*pool >= 0 && *pool <= capacity_bytes))
      l2.fail("evict_first_pool_bytes", "must lie within the capacity", "[0, capacity]");
    r.evict_first_pool_bytes = *pool;
  }
  r.store_weight = within(l2, "store_weight", r.store_weight, 0, 1, "[0, 1]");
}

const std::vector<std::string>& l2_reuse_keys() {
  static const std::vector<std::string> keys = {"sweep_half_bytes",      "sweep_steepness",
                                                "reuse_half_bytes",      "reuse_steepness",
                                                "reuse_steepness_per_doubling", "reuse_steepness_rows",
                                                "evict_first_pool_bytes", "store_weight"};
  return keys;
}

}  // namespace normsim::config
