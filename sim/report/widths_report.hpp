// The `widths` report: the start and chosen formats of every searched stage,
// the datapath area of each and what was saved, the error of each on all
// rows, and every evaluation of the search (JSON, CSV, console table). Names
// as everywhere: max_ulp_error, rel_l2_error, datapath_mm2, ...
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/explore/width_search.hpp"

namespace normsim::report {

nlohmann::json widths_json(const explore::WidthSearchResult& r, const std::vector<explore::WidthTarget>& targets);
/// One row per evaluation: its phase and move, rows, area, metrics, overflows and every stage's bits/frac.
std::string widths_csv(const explore::WidthSearchResult& r);
std::string widths_table(const explore::WidthSearchResult& r, const std::vector<explore::WidthTarget>& targets);

}  // namespace normsim::report
