// The `sweep` report: one line per point -- the grid's values, then the
// figures users compare (units in the column names) -- as a console table
// and as CSV. Each row is {"point": {key: value}, "report": run report}.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace normsim::report {

/// `keys`: the grid's axes in order; `numerics`: add the error columns.
std::string sweep_table(const std::vector<std::string>& keys, const std::vector<nlohmann::json>& rows, bool numerics);
std::string sweep_csv(const std::vector<std::string>& keys, const std::vector<nlohmann::json>& rows, bool numerics);

}  // namespace normsim::report
