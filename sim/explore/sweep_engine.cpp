#include "sim/explore/sweep_engine.hpp"

#include <malloc.h>

#include <algorithm>

#include "sim/asic/isolated_run.hpp"

namespace normsim::explore {

PointTriage triage_points(size_t points, size_t shard, size_t shards,
                          const std::function<std::optional<std::string>(size_t)>& reason,
                          const std::function<nlohmann::json(size_t)>& row) {
  PointTriage t;
  for (size_t p = shard; p < points; p += shards) {
    if (std::optional<std::string> why = reason(p)) {
      nlohmann::json r = row(p);
      r["status"] = "infeasible";
      r["reason"] = std::move(*why);
      t.infeasible.push_back(std::move(r));
    } else {
      t.feasible.push_back(p);
    }
  }
  return t;
}

size_t points_per_child(size_t todo, int jobs) {
  return std::clamp<size_t>(todo / (static_cast<size_t>(std::max(jobs, 1)) * 8), 1, kMaxPointsPerChild);
}

int run_points(const std::vector<size_t>& todo, const SweepRun& run) {
  // The triage leaves the heap full of freed chunks; consolidated here once,
  // not by every forked child's first malloc (each would copy the pages it walks).
  malloc_trim(0);
  // Each child runs its batch's points one after another (a SystemC model
  // takes a fresh context for each), one record a line.
  const size_t batch = points_per_child(todo.size(), run.jobs);
  const size_t batches = (todo.size() + batch - 1) / batch;
  auto end_of = [&](size_t b) { return std::min(todo.size(), (b + 1) * batch); };
  size_t done = 0;
  int failed = 0;
  asic::run_isolated_pool(
      batches, run.jobs,
      [&](size_t b) {
        std::string lines;
        for (size_t k = b * batch; k < end_of(b); ++k) lines += run.run_point(todo[k]).dump() + "\n";
        return lines;
      },
      [](size_t) { return std::string("sweep"); },
      [&](size_t b, int rc, std::string&& text) {
        if (rc != 0) {
          if (!failed) failed = rc;
        } else {
          for (size_t at = 0; at < text.size();) {
            const size_t end = text.find('\n', at);
            run.on_record(nlohmann::json::parse(text.substr(at, end - at)));
            at = end + 1;
          }
        }
        done += end_of(b) - b * batch;
        if (run.on_progress) run.on_progress(done);
      });
  return failed;
}

}  // namespace normsim::explore
