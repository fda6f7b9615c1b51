#include "sim/report/report_check.hpp"

#include <cmath>
#include <set>

#include "sim/report/run_report.hpp"

namespace normsim::report {

namespace {

// Units of amounts that cannot be negative.
bool non_negative_unit(const std::string& column) {
  static const std::set<std::string> units = {"cycles", "bytes", "bytes/cycle", "us", "GHz", "GB/s", "mm2",
                                              "um2",    "uJ",    "pJ",          "pJ/bit", "GE", "elements", "count",
                                              "rows",   "fraction", "ulp", "mW", "mW/mm2", "ps", "ns", "FO4", "gates", "stages", "flip-flops",
                                              "row buffers"};
  const size_t open = column.rfind(" [");
  if (open == std::string::npos || column.back() != ']') return false;
  return units.count(column.substr(open + 2, column.size() - open - 3)) > 0;
}

void walk(const nlohmann::json& j, const std::string& path, std::vector<NumberProblem>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) walk(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
    return;
  }
  if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) walk(j[i], path + "." + std::to_string(i), out);
    return;
  }
  if (!j.is_number_float() && !j.is_number_integer()) return;
  const bool must_be_non_negative = non_negative_unit(csv_column(path));
  const std::string allowed = must_be_non_negative ? "a finite value >= 0" : "a finite value";
  if (j.is_number_float()) {
    const double v = j.get<double>();
    if (!std::isfinite(v)) out.push_back({path, std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf", allowed});
    else if (must_be_non_negative && v < 0) out.push_back({path, j.dump(), allowed});
  } else if (j.is_number_integer() && !j.is_number_unsigned() && must_be_non_negative && j.get<int64_t>() < 0) {
    out.push_back({path, j.dump(), allowed});
  }
}

}  // namespace

std::vector<NumberProblem> check_report_numbers(const nlohmann::json& report) {
  std::vector<NumberProblem> out;
  walk(report, "", out);
  return out;
}

std::string describe(const std::vector<NumberProblem>& problems) {
  if (problems.empty()) return {};
  const NumberProblem& p = problems.front();
  std::string s = "report field '" + p.field + "' is " + p.value + " (allowed: " + p.allowed + ")";
  if (problems.size() > 1) s += "; and " + std::to_string(problems.size() - 1) + " more, e.g. '" + problems[1].field + "' " + problems[1].value;
  return s;
}

}  // namespace normsim::report
