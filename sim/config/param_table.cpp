#include "sim/config/param_table.hpp"

#include <cstdio>

namespace normsim::config {

std::string format_number(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

std::string default_text(double v) {
  char b[40];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(b, sizeof b, "%.0f", v);
  else std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

std::string power_text(int64_t v) {
  if (v >= (int64_t(1) << 16) && (v & (v - 1)) == 0) {
    int k = 0;
    while ((int64_t(1) << k) < v) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(v);
}

nlohmann::json json_value(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

std::optional<Problem> RealRange::check(double v) const {
  const std::string value = "value " + format_number(v) + " ";
  switch (kind) {
    case Kind::any:
      return std::nullopt;
    case Kind::positive:
      if (!(v > 0)) return Problem{value + "must be > 0", "> 0"};
      return std::nullopt;
    case Kind::non_negative:
      if (!(v >= 0)) return Problem{value + "must be >= 0", ""};
      return std::nullopt;
    case Kind::within:
      if (!(v >= lo && v <= hi)) {
        const std::string range = std::isinf(hi) ? ">= " + format_number(lo) : "[" + format_number(lo) + ", " + format_number(hi) + "]";
        return Problem{value + "must be " + (std::isinf(hi) ? range : "within " + range), range};
      }
      return std::nullopt;
    case Kind::out_of_range:
      if (!(v >= lo && v <= hi)) return Problem{value + "out of range", "[" + format_number(lo) + ", " + format_number(hi) + "]"};
      return std::nullopt;
    case Kind::open_unit:
      if (!(v > 0 && v < 1)) return Problem{value + "must be strictly between 0 and 1", "(0, 1)"};
      return std::nullopt;
  }
  return std::nullopt;
}

std::string RealRange::describe() const {
  switch (kind) {
    case Kind::any: return "number";
    case Kind::positive: return "> 0";
    case Kind::non_negative: return ">= 0";
    case Kind::within:
      return std::isinf(hi) ? ">= " + format_number(lo) : "[" + format_number(lo) + ", " + format_number(hi) + "]";
    case Kind::out_of_range: return "[" + format_number(lo) + ", " + format_number(hi) + "]";
    case Kind::open_unit: return "(0, 1)";
  }
  return "";
}

}  // namespace normsim::config
