// `compare`'s one-screen answer: the pick of each input path, of each value
// of the designs beside it (fuse mode, dgamma/dbeta path, an --across key's
// value), and the overall pick, each the best of the rows compare evaluated
// in its mode's order, with the constraint that binds it in one line.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace normsim::report {

/// The picks of a comparison ({"mode", "paths": [...]}, rows as compare
/// writes them): [{"of", "row", "path", "why"}, ...], first the overall
/// pick ("of": "all"), then one per path ("path X") and one per value of
/// each lead ("param_grad onchip", ...). "row" indexes `paths`. Mode
/// sram_budget and configured: fewest cycles, then total_mm2, then
/// total_uj; target_cycles: fewest sram_required_bytes, then cycles,
/// total_mm2, total_uj. Ties keep the first row. No feasible row: [].
nlohmann::json compare_picks(const nlohmann::json& comparison);

/// The picks as the lines that end compare's table.
std::string compare_picks_text(const nlohmann::json& comparison);

}  // namespace normsim::report
