// Config keys declared once. A ParamTable<S> lists the keys of one section of
// a config file (the struct S it fills), each one row: key, member, range,
// unit and description, the default being S's own member initialiser. The
// row drives
//   * reading: the YAML value's type, then its range, failing at the key's
//     file and line with what is allowed;
//   * validation of an S built in code (check()), with the same messages;
//   * the report's echo of the config (echo(), JSON with the same names);
//   * the key tables of workloads/README.md (document(), checked by a test);
//   * the unit of each echoed number in CSV headers (unit_of()).
// Rows that are not one typed value (a per-stage format list, a
// distribution, rows-or-batch-and-seq) are `custom`: their reading and
// their documentation rows are written out once, in the table.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/yaml_reader.hpp"
#include "sim/core/units.hpp"

namespace normsim::config {

/// A value's problem as the messages say it: "value 0 out of range" and what is allowed, "1..4096".
struct Problem {
  std::string problem, allowed;
};

/// One row of the key tables in workloads/README.md.
struct DocRow {
  std::string key, type, default_value, unit, description;
};

/// A real number's allowed range, with the wording of its message.
struct RealRange {
  enum class Kind {
    any,           ///< any finite number
    positive,      ///< > 0: "must be > 0 (allowed: > 0)"
    non_negative,  ///< >= 0: "must be >= 0"
    within,        ///< [lo, hi] (hi may be infinite): "must be within [lo, hi]", or "must be >= lo"
    out_of_range,  ///< [lo, hi]: "out of range (allowed: [lo, hi])"
    open_unit,     ///< (0, 1): "must be strictly between 0 and 1"
  };
  Kind kind = Kind::any;
  double lo = 0, hi = 0;
  std::optional<Problem> check(double v) const;
  std::string describe() const;  ///< for the docs' type column
};
inline RealRange positive() { return {RealRange::Kind::positive}; }
inline RealRange non_negative() { return {RealRange::Kind::non_negative}; }
inline RealRange within(double lo, double hi = std::numeric_limits<double>::infinity()) {
  return {RealRange::Kind::within, lo, hi};
}
inline RealRange in_range(double lo, double hi) { return {RealRange::Kind::out_of_range, lo, hi}; }
inline RealRange open_unit() { return {RealRange::Kind::open_unit, 0, 1}; }

/// "%g" of a number, as the messages and docs print it.
std::string format_number(double v);
/// A default as the docs print it: an integer exactly, else 10 significant digits.
std::string default_text(double v);
/// A bound as the docs print it: "2^24" for a power of two from 2^16 on, else the number.
std::string power_text(int64_t v);
/// The JSON number of a double, or null where it is not finite (JSON has neither).
nlohmann::json json_value(double v);

/// A problem of a whole struct: the key's path within it and what is wrong.
struct ParamError {
  std::string key_path;
  Problem problem;
};

/// "l1.datapaths_per_cache" -> {"l1", "datapaths_per_cache"}.
inline std::vector<std::string> split_key_path(const std::string& path) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

template <class S>
struct Param {
  std::string key;                ///< within its section ("" for a rule over several keys)
  std::vector<std::string> keys;  ///< the YAML keys it reads (finish() allows them)
  std::string unit;               ///< of the value (report echo, CSV, docs); "" for none
  std::vector<DocRow> doc;        ///< its rows in the key tables (a section's rows come from its table)
  /// Reads its key(s) from the section into s: the value's type (and, for
  /// integers, the range); absent keys leave s's default.
  std::function<void(YamlReader&, S&)> read;
  /// The value's problem in s (a path relative to `key`, "" for the key
  /// itself), or nullopt. Run on a struct built in code (ParamTable::check)
  /// and on every file after its keys are read.
  std::function<std::optional<ParamError>(const S&)> check;
  bool check_when_given_only = false;  ///< not checked when absent (a default that only applies when used)
  bool section = false;                ///< a nested table, which checks itself as it is read
  /// The echo of s's value (a null JSON: not echoed).
  std::function<nlohmann::json(const S&)> echo;
  /// A nested section's units by key path, for unit_of.
  std::function<std::string(const std::string& subpath)> unit_of;
};

template <class S>
class ParamTable {
 public:
  ParamTable& add(Param<S> p) {
    params_.push_back(std::move(p));
    return *this;
  }

  /// A key that moved: a file or --set that still gives `from` (a key path
  /// below this section, "latency.rsqrt_cycles") is refused naming `to`.
  ParamTable& moved(std::string from, std::string to) {
    moved_.push_back({std::move(from), std::move(to)});
    return *this;
  }

  /// Reads every key of `m` the table knows into s, checks every value (a
  /// default too, unless it only applies when given) and rejects unknown keys.
  void read(YamlReader& m, S& s) const {
    for (const auto& [from, to] : moved_) {
      const std::vector<std::string> path = split_key_path(from);
      if (auto value = m.text_at(path))
        m.fail_path(path, "moved: give " + (value->empty() ? std::string("it") : "the value " + *value) + " as " + m.key_path(to),
                    m.key_path(to));
    }
    for (const auto& p : params_) p.read(m, s);
    for (const auto& p : params_) {
      if (!p.check || p.section || (p.check_when_given_only && !m.has(p.key))) continue;
      if (auto e = p.check(s)) {
        std::vector<std::string> path;
        if (!p.key.empty()) path.push_back(p.key);
        if (!e->key_path.empty())
          for (auto& k : split_key_path(e->key_path)) path.push_back(std::move(k));
        m.fail_path(path, e->problem.problem, e->problem.allowed);
      }
    }
    m.finish(keys());
  }

  /// The first value out of its range in a struct built in code, or nullopt.
  std::optional<ParamError> check(const S& s) const {
    for (const auto& p : params_) {
      if (!p.check || p.check_when_given_only) continue;
      if (auto e = p.check(s)) {
        const std::string path = p.key.empty() ? e->key_path : e->key_path.empty() ? p.key : p.key + "." + e->key_path;
        return ParamError{path, e->problem};
      }
    }
    return std::nullopt;
  }

  nlohmann::json echo(const S& s) const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& p : params_)
      if (p.echo && !p.key.empty())
        if (nlohmann::json v = p.echo(s); !v.is_null()) j[p.key] = std::move(v);
    return j;
  }

  /// The unit of the value at `path` ("dram.latency_cycles"), or "" when none.
  std::string unit_of(const std::string& path) const {
    const auto dot = path.find('.');
    const std::string head = path.substr(0, dot);
    for (const auto& p : params_) {
      if (p.key != head) continue;
      if (dot == std::string::npos) return p.unit;
      return p.unit_of ? p.unit_of(path.substr(dot + 1)) : "";
    }
    return "";
  }

  /// Every row, key paths under `prefix`.
  std::vector<DocRow> document(const std::string& prefix = "") const {
    std::vector<DocRow> rows;
    for (const auto& p : params_)
      for (DocRow r : p.doc) {
        r.key = prefix.empty() ? r.key : prefix + "." + r.key;
        rows.push_back(std::move(r));
      }
    return rows;
  }

  std::vector<std::string> keys() const {
    std::vector<std::string> k;
    for (const auto& p : params_) k.insert(k.end(), p.keys.begin(), p.keys.end());
    return k;
  }

 private:
  std::vector<Param<S>> params_;
  std::vector<std::pair<std::string, std::string>> moved_;  ///< old key path, new key path
};

// --- rows ---------------------------------------------------------------------
/// The accessor of a member, for the rows below: NORMSIM_MEMBER(dram.latency_cycles).
#define NORMSIM_MEMBER(m) [](auto& s_) -> auto& { return s_.m; }

// Each takes the key, an accessor of the member (a lambda returning a
// reference, so that nested members and flat YAML keys can meet), the
// range, the unit and the description. The default column is the member's
// value in a default-constructed S.

template <class S, class Get>
Param<S> integer_param(const std::string& key, Get get, int64_t lo, int64_t hi, const std::string& unit,
                       const std::string& description, std::string type = "") {
  using T = std::remove_reference_t<decltype(get(std::declval<S&>()))>;
  Param<S> p;
  p.key = key;
  p.keys = {key};
  p.unit = unit;
  S d{};
  if (type.empty()) type = "int " + std::to_string(lo) + ".." + power_text(hi);
  p.doc = {{key, type, std::to_string(static_cast<int64_t>(core::raw(get(d)))), unit, description}};
  p.read = [key, get, lo, hi](YamlReader& m, S& s) {
    if (auto v = m.get_int(key, lo, hi)) get(s) = T(static_cast<decltype(core::raw(get(s)))>(*v));
  };
  p.check = [get, lo, hi](const S& s) -> std::optional<ParamError> {
    const auto v = static_cast<int64_t>(core::raw(get(s)));
    if (v < lo || v > hi)
      return ParamError{"", {"value " + std::to_string(v) + " out of range", std::to_string(lo) + ".." + std::to_string(hi)}};
    return std::nullopt;
  };
  p.echo = [get](const S& s) { return nlohmann::json(core::raw(get(s))); };
  return p;
}

template <class S, class Get>
Param<S> real_param(const std::string& key, Get get, RealRange range, const std::string& unit,
                    const std::string& description) {
  Param<S> p;
  p.key = key;
  p.keys = {key};
  p.unit = unit;
  S d{};
  using T = std::remove_reference_t<decltype(get(std::declval<S&>()))>;
  p.doc = {{key, range.describe(), default_text(core::raw(get(d))), unit, description}};
  p.read = [key, get](YamlReader& m, S& s) {
    if (auto v = m.get_double(key)) get(s) = T(*v);
  };
  p.check = [get, range](const S& s) -> std::optional<ParamError> {
    if (auto e = range.check(core::raw(get(s)))) return ParamError{"", *e};
    return std::nullopt;
  };
  p.echo = [get](const S& s) { return json_value(core::raw(get(s))); };
  return p;
}

// A member whose type carries its unit (core::Bytes, core::Cycles, ...):
// the row's unit is the type's, never written beside it. With integer
// bounds, the file must give a whole number.
template <class S, class Get>
Param<S> quantity_param(const std::string& key, Get get, RealRange range, const std::string& description) {
  using T = std::remove_cvref_t<decltype(get(std::declval<S&>()))>;
  static_assert(core::is_quantity_v<T>, "quantity_param: the member must be a core::Quantity");
  return real_param<S>(key, get, range, T::unit(), description);
}
template <class S, class Get>
Param<S> quantity_param(const std::string& key, Get get, int64_t lo, int64_t hi, const std::string& description,
                        std::string type = "") {
  using T = std::remove_cvref_t<decltype(get(std::declval<S&>()))>;
  static_assert(core::is_quantity_v<T>, "quantity_param: the member must be a core::Quantity");
  return integer_param<S>(key, get, lo, hi, T::unit(), description, std::move(type));
}

template <class S, class Get>
Param<S> bool_param(const std::string& key, Get get, const std::string& description) {
  Param<S> p;
  p.key = key;
  p.keys = {key};
  S d{};
  p.doc = {{key, "bool", get(d) ? "true" : "false", "", description}};
  p.read = [key, get](YamlReader& m, S& s) {
    if (auto v = m.get_bool(key)) get(s) = *v;
  };
  p.echo = [get](const S& s) { return nlohmann::json(get(s)); };
  return p;
}

/// A string member restricted to `names`, or an enum member read through
/// `parse` and echoed through `name`.
template <class S, class Get, class Parse, class Name>
Param<S> choice_param(const std::string& key, Get get, std::vector<std::string> names, Parse parse, Name name,
                      const std::string& description) {
  Param<S> p;
  p.key = key;
  p.keys = {key};
  S d{};
  std::string type;
  for (const auto& n : names) type += (type.empty() ? "" : " \\| ") + ("`" + n + "`");
  p.doc = {{key, type, std::string(name(get(d))), "", description}};
  p.read = [key, get, names, parse](YamlReader& m, S& s) {
    if (auto v = m.get_choice(key, names)) get(s) = *parse(*v);
  };
  p.echo = [get, name](const S& s) { return nlohmann::json(std::string(name(get(s)))); };
  return p;
}

template <class S, class Get>
Param<S> string_choice_param(const std::string& key, Get get, std::vector<std::string> names, const std::string& description) {
  return choice_param<S>(key, get, std::move(names), [](const std::string& v) { return std::optional<std::string>(v); },
                         [](const std::string& v) { return v; }, description);
}

/// A nested mapping filled by its own table.
template <class S, class Sub, class Get>
Param<S> section_param(const std::string& key, Get get, std::shared_ptr<const ParamTable<Sub>> table) {
  Param<S> p;
  p.key = key;
  p.keys = {key};
  p.doc = table->document(key);
  p.read = [key, get, table](YamlReader& m, S& s) {
    if (auto sub = m.get_map(key)) table->read(*sub, get(s));
  };
  p.echo = [get, table](const S& s) { return table->echo(get(s)); };
  p.unit_of = [table](const std::string& sub) { return table->unit_of(sub); };
  p.section = true;
  p.check = [get, table](const S& s) { return table->check(get(s)); };
  return p;
}

}  // namespace normsim::config
