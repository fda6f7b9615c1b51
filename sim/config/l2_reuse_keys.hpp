// The keys of a GPU L2's measured reuse (core::L2Reuse), the same rows in
// the SIMT model's GPU arch (`l2`) and the ASIC arch's GPU-like L2
// (`asic.l2`): one set of names, ranges, units, messages and docs.
#pragma once

#include <string>

#include "sim/config/param_table.hpp"
#include "sim/core/reuse_curve.hpp"

namespace normsim::config {

/// Adds the reuse rows to the table of an L2 section S: `reuse` gives S's
/// core::L2Reuse, `capacity` its capacity in bytes (the evict-first pool
/// must lie within it; checked only when given: the default, a 60 MiB L2's,
/// may not fit a small capacity that never uses it).
template <class S, class Reuse, class Capacity>
void add_l2_reuse_params(ParamTable<S>& t, Reuse reuse, Capacity capacity) {
  t.add(real_param<S>("sweep_half_bytes", [reuse](auto& s) -> auto& { return reuse(s).sweep.half_bytes; }, positive(), "bytes",
                      "one sweep re-read in lock step: reuse distance with half the lines hit (l2_sweep_probe)"));
  t.add(real_param<S>("sweep_steepness", [reuse](auto& s) -> auto& { return reuse(s).sweep.steepness; }, positive(), "",
                      "how sharply the sweep's hits fall off past its half"));
  t.add(real_param<S>("reuse_half_bytes", [reuse](auto& s) -> auto& { return reuse(s).steady.half_bytes; }, positive(), "bytes",
                      "rows re-read out of phase: reuse distance with half the lines hit (l2_steady_probe)"));
  t.add(real_param<S>("reuse_steepness", [reuse](auto& s) -> auto& { return reuse(s).steady.steepness; }, positive(), "",
                      "how sharply the out-of-phase hits fall off, at reuse_steepness_rows rows in flight"));
  t.add(real_param<S>("reuse_steepness_per_doubling",
                      [reuse](auto& s) -> auto& { return reuse(s).steady_steepness_per_doubling; }, in_range(-16, 16), "",
                      "change of reuse_steepness per doubling of the rows in flight (more rows, more spread phases)"));
  t.add(real_param<S>("reuse_steepness_rows", [reuse](auto& s) -> auto& { return reuse(s).steady_steepness_rows; }, positive(),
                      "rows", "rows in flight at which reuse_steepness holds"));
  Param<S> pool = real_param<S>("evict_first_pool_bytes", [reuse](auto& s) -> auto& { return reuse(s).evict_first_pool_bytes; },
                                RealRange{}, "bytes", "normal lines that evict-first lines (`__ldcs`, `__stcs`) displace at most");
  pool.doc[0].type = "[0, capacity]";
  pool.check = [reuse, capacity](const S& s) -> std::optional<ParamError> {
    const double v = reuse(s).evict_first_pool_bytes;
    if (!(v >= 0 && v <= capacity(s))) return ParamError{"", {"must lie within the capacity", "[0, capacity]"}};
    return std::nullopt;
  };
  pool.check_when_given_only = true;
  t.add(std::move(pool));
  t.add(real_param<S>("store_weight", [reuse](auto& s) -> auto& { return reuse(s).store_weight; }, in_range(0, 1), "",
                      "a plain store's weight against a plain load's in the L2 (l2_sweep_probe)"));
}

}  // namespace normsim::config
