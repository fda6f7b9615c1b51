// The sweep engine: a study's points of one shard sorted before anything
// runs (bad input fails the whole sweep; a design that cannot be built is a
// row with its reason), then the rest run in forked children, a batch of
// points a child, at most `jobs` children at once. What a point is -- its
// inputs, its run, its record -- is the caller's (`normsim sweep` loads a
// point's workload and arch and runs the ASIC model); the engine owns the
// order, the isolation and the batching.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace normsim::explore {

/// A shard's points before any runs: those to run, in index order, and the
/// records of those that cannot be built.
struct PointTriage {
  std::vector<size_t> feasible;
  std::vector<nlohmann::json> infeasible;  ///< {index, point, status: "infeasible", reason}
};

/// Sorts points shard, shard + shards, ... below `points`. `reason(p)` is
/// why point p's design cannot be built, or nullopt; it throws
/// (config::ConfigError) for input that is wrong rather than infeasible,
/// which ends the sweep. `row(p)` is the point's {index, point} record.
PointTriage triage_points(size_t points, size_t shard, size_t shards,
                          const std::function<std::optional<std::string>(size_t)>& reason,
                          const std::function<nlohmann::json(size_t)>& row);

/// Most points one child runs: a fork's copied pages are paid once a batch,
/// and a lost child loses at most this many.
inline constexpr size_t kMaxPointsPerChild = 256;

/// Points a child runs for `todo` points on `jobs` workers: about eight
/// batches a worker (the last ones short enough to balance), 1..kMaxPointsPerChild.
size_t points_per_child(size_t todo, int jobs);

struct SweepRun {
  int jobs = 1;
  /// One point's record (a JSON object) in a child; an exception there is
  /// the child's exit code and one line on its stderr.
  std::function<nlohmann::json(size_t point)> run_point;
  /// In the parent, every record as its batch comes back (batches in
  /// finishing order, a batch's records in index order).
  std::function<void(nlohmann::json&& record)> on_record;
  /// In the parent after each batch: points done of `todo.size()`.
  std::function<void(size_t done)> on_progress;
};

/// Runs every point of `todo` (indices into the study). Returns 0, or the
/// exit code of the first child that failed (its batch's records are not
/// delivered; the other batches run and are).
int run_points(const std::vector<size_t>& todo, const SweepRun& run);

}  // namespace normsim::explore
