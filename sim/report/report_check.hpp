// The last check before a report leaves normsim: every number in it is
// finite, and every count or physical amount (cycles, bytes, time, area,
// energy, rates, fractions) is non-negative. A model bug or an input at the
// edge of a range must fail loudly here rather than print `inf uJ` or a
// negative phase.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace normsim::report {

struct NumberProblem {
  std::string field;  ///< dotted path, array elements by index ("launches.0.duration_us")
  std::string value;  ///< "inf", "nan", "-99"
  std::string allowed;
};

/// The numbers of `report` that are not finite, or negative where their unit
/// (the report's unit of that field, as in report.csv) cannot be.
std::vector<NumberProblem> check_report_numbers(const nlohmann::json& report);

/// One line naming the first problem (and how many more), for an exit-1 message.
std::string describe(const std::vector<NumberProblem>& problems);

}  // namespace normsim::report
