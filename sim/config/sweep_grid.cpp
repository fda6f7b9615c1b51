#include "sim/config/sweep_grid.hpp"


#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "sim/config/config_error.hpp"
#include "sim/config/shipped_configs.hpp"
#include "sim/config/yaml_reader.hpp"

namespace normsim::config {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  for (size_t start = 0;;) {
    const size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// A key an axis may set: workload.* or arch.* (gpu keys belong to simt).
void check_key(const std::string& key, const std::string& where) {
  const Override o = parse_override(key + "=0");
  if (o.target == "gpu")
    throw ConfigError(where + ": key '" + key + "': gpu keys belong to `normsim simt` (allowed: workload.*, arch.*)");
}

// "KEY=V1,V2" or "K1=A1,A2,K2=B1,B2": keys and their values (a token with '=' starts a key).
std::vector<std::pair<std::string, std::vector<std::string>>> key_values(const std::string& text, const std::string& where,
                                                                         const char* form) {
  std::vector<std::pair<std::string, std::vector<std::string>>> kv;
  for (const std::string& token : split(text, ',')) {
    const size_t eq = token.find('=');
    if (eq != std::string::npos) {
      if (eq == 0) throw ConfigError(where + ": expected " + form + " (allowed: workload.* or arch.* keys)");
      kv.push_back({token.substr(0, eq), {}});
      if (eq + 1 < token.size()) kv.back().second.push_back(token.substr(eq + 1));
      else throw ConfigError(where + ": empty value (allowed: " + form + ")");
    } else {
      if (kv.empty()) throw ConfigError(where + ": expected " + form + " (allowed: workload.* or arch.* keys)");
      if (token.empty()) throw ConfigError(where + ": empty value (allowed: " + form + ")");
      kv.back().second.push_back(token);
    }
  }
  for (const auto& [k, v] : kv) check_key(k, where);
  return kv;
}

// Splits off " if KEY=V1,V2".
void split_if(const std::string& arg, std::string& body, GridAxis& ax) {
  const size_t at = arg.find(" if ");
  body = trim(arg.substr(0, at));
  if (at == std::string::npos) return;
  const auto cond = key_values(trim(arg.substr(at + 4)), ax.source, "KEY=V1,V2 after ' if '");
  if (cond.size() != 1) throw ConfigError(ax.source + ": ' if ' takes one KEY=V1,V2 (allowed: one key)");
  ax.if_key = cond[0].first;
  ax.if_values = cond[0].second;
}

void enumerate(const std::vector<GridAxis>& axes, size_t i, GridPoint& cur, std::vector<GridPoint>& out) {
  if (i == axes.size()) {
    if (out.size() >= kMaxGridPoints) throw ConfigError("sweep: more than 1000000 points (allowed: up to 1000000)");
    out.push_back(cur);
    return;
  }
  const GridAxis& ax = axes[i];
  if (!ax.if_key.empty()) {
    const auto it = std::find_if(cur.begin(), cur.end(), [&](const auto& kv) { return kv.first == ax.if_key; });
    if (it == cur.end() || std::find(ax.if_values.begin(), ax.if_values.end(), it->second) == ax.if_values.end()) {
      enumerate(axes, i + 1, cur, out);  // does not apply here
      return;
    }
  }
  for (const auto& tuple : ax.values) {
    for (size_t k = 0; k < ax.keys.size(); ++k) cur.push_back({ax.keys[k], tuple[k]});
    enumerate(axes, i + 1, cur, out);
    cur.resize(cur.size() - ax.keys.size());
  }
}

}  // namespace

std::vector<std::string> Grid::keys() const {
  std::vector<std::string> k;
  for (const auto& a : axes) k.insert(k.end(), a.keys.begin(), a.keys.end());
  return k;
}

std::vector<GridPoint> Grid::points() const {
  std::vector<GridPoint> out;
  GridPoint cur;
  enumerate(axes, 0, cur, out);
  return out;
}

void add_grid_axis(Grid& g, const std::string& arg) {
  GridAxis ax;
  ax.source = "sweep: --grid '" + arg + "'";
  std::string body;
  split_if(arg, body, ax);
  const auto kv = key_values(body, ax.source, "KEY=V1,V2,...");
  if (kv.size() != 1) throw ConfigError(ax.source + ": one key per --grid (allowed: --zip K1=..,K2=.. for keys that go together)");
  ax.keys = {kv[0].first};
  for (const auto& v : kv[0].second) ax.values.push_back({v});
  g.axes.push_back(std::move(ax));
}

void add_zip_axis(Grid& g, const std::string& arg) {
  GridAxis ax;
  ax.source = "sweep: --zip '" + arg + "'";
  std::string body;
  split_if(arg, body, ax);
  const auto kv = key_values(body, ax.source, "K1=A1,A2,...,K2=B1,B2,...");
  for (const auto& [k, v] : kv) {
    if (v.size() != kv[0].second.size())
      throw ConfigError(ax.source + ": key '" + k + "' has " + std::to_string(v.size()) + " values, '" + kv[0].first +
                        "' " + std::to_string(kv[0].second.size()) + " (allowed: the same number for every zipped key)");
    ax.keys.push_back(k);
  }
  for (size_t i = 0; i < kv[0].second.size(); ++i) {
    std::vector<std::string> tuple;
    for (const auto& [k, v] : kv) tuple.push_back(v[i]);
    ax.values.push_back(std::move(tuple));
  }
  g.axes.push_back(std::move(ax));
}

void check_grid(const Grid& g) {
  if (g.axes.empty())
    throw ConfigError("sweep: no axes (allowed: --grid KEY=V1,V2, --zip K1=..,K2=.., or --study FILE.yaml)");
  std::set<std::string> seen;
  std::map<std::string, std::vector<std::string>> values_of;  // every value an earlier axis gives a key
  size_t points = 1;
  for (const auto& ax : g.axes) {
    if (!ax.if_key.empty() && !seen.count(ax.if_key))
      throw ConfigError(ax.source + ": key '" + ax.if_key + "' after ' if ' is no earlier axis's (allowed: " +
                        (seen.empty() ? std::string("none: this is the first axis") : "a key of an axis before it") + ")");
    // A condition on a value its axis never takes would silently never apply.
    for (const auto& v : ax.if_values) {
      const auto& vals = values_of[ax.if_key];
      if (!ax.if_key.empty() && std::find(vals.begin(), vals.end(), v) == vals.end()) {
        std::string list;
        for (const auto& x : vals) list += (list.empty() ? "" : ", ") + x;
        throw ConfigError(ax.source + ": ' if " + ax.if_key + "=" + v + "': the axis of '" + ax.if_key +
                          "' has no such value, so the axis would never apply (allowed: " + list + ")");
      }
    }
    for (size_t k = 0; k < ax.keys.size(); ++k)
      for (const auto& tuple : ax.values) values_of[ax.keys[k]].push_back(tuple[k]);
    for (const auto& k : ax.keys)
      if (!seen.insert(k).second)
        throw ConfigError(ax.source + ": key '" + k +
                          "' is in an earlier axis too (allowed: each key in one axis; --zip for values that go together)");
    points *= ax.values.size();
    if (points > kMaxGridPoints) throw ConfigError("sweep: more than 1000000 points (allowed: up to 1000000)");
  }
}

nlohmann::json typed_value(const std::string& t) {
  int64_t i = 0;
  if (auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), i); ec == std::errc() && p == t.data() + t.size()) return i;
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  if (!t.empty() && end == t.c_str() + t.size() && t.find_first_of("0123456789") != std::string::npos) return d;
  if (t == "true" || t == "false") return t == "true";
  return t;
}

Study load_study(const std::string& name_or_path) {
  const ResolvedConfig c = resolve_config(ShippedKind::study, name_or_path, "--study");
  return parse_study_text(c.text, c.file);
}

Study parse_study_text(const std::string& text, const std::string& path) {
  const YAML::Node root = load_yaml_strict(text, path);
  auto fail = [&](const YAML::Node& n, const std::string& key, const std::string& problem, const std::string& allowed) {
    throw ConfigError(format_config_error(path, n.Mark().line + 1, key, problem, allowed));
  };
  if (!root.IsMap()) fail(root, "", "the study must be a mapping", "workload, arch, set, objectives, axes");
  Study s;
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  auto scalar = [&](const YAML::Node& n, const std::string& key) {
    if (!n.IsScalar()) fail(n, key, "expected a scalar", "a number or a string");
    return n.Scalar();
  };
  auto list = [&](const YAML::Node& n, const std::string& key) {
    std::vector<std::string> v;
    if (n.IsScalar()) v.push_back(n.Scalar());
    else if (n.IsSequence() && n.size() > 0)
      for (size_t i = 0; i < n.size(); ++i) v.push_back(scalar(n[i], key + "[" + std::to_string(i) + "]"));
    else fail(n, key, "expected a value or a non-empty list of values", "[V1, V2, ...]");
    return v;
  };
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (key == "workload" || key == "arch") {
      const std::string rel = scalar(v, key);
      // A shipped name stays a name; a relative path is the study file's.
      const bool name = rel.find('/') == std::string::npos && !rel.ends_with(".yaml") && !rel.ends_with(".yml");
      const std::string full = name || std::filesystem::path(rel).is_absolute() ? rel : (dir / rel).string();
      (key == "workload" ? s.workload : s.arch) = full;
    } else if (key == "set") {
      if (!v.IsMap()) fail(v, key, "expected a mapping of KEY: VALUE", "{arch.lanes: 16, ...}");
      for (const auto& e : v) {
        check_key(e.first.Scalar(), path);
        s.sets.push_back(e.first.Scalar() + "=" + scalar(e.second, "set." + e.first.Scalar()));
      }
    } else if (key == "objectives") {
      s.objectives = list(v, key);
    } else if (key == "axes") {
      if (!v.IsSequence() || v.size() == 0) fail(v, key, "expected a list of axes", "[{grid: {KEY: [V..]}}, {zip: {..}}]");
      for (size_t i = 0; i < v.size(); ++i) {
        const YAML::Node& a = v[i];
        const std::string where = "axes[" + std::to_string(i) + "]";
        if (!a.IsMap()) fail(a, where, "expected a mapping", "grid, zip, if");
        GridAxis ax;
        ax.source = path + ":" + std::to_string(a.Mark().line + 1);
        int kinds = 0;
        for (const auto& e : a) {
          const std::string k = e.first.Scalar();
          if (k != "grid" && k != "zip" && k != "if") fail(e.first, where + "." + k, "unknown key", "grid, zip, if");
          if (!e.second.IsMap() || e.second.size() == 0) fail(e.second, where + "." + k, "expected a mapping of KEY: [V..]", "{KEY: [V1, V2]}");
          if (k == "if") {
            if (e.second.size() != 1) fail(e.second, where + ".if", "one key", "{KEY: [V1, V2]}");
            ax.if_key = e.second.begin()->first.Scalar();
            ax.if_values = list(e.second.begin()->second, where + ".if." + ax.if_key);
            continue;
          }
          ++kinds;
          if (k == "grid" && e.second.size() != 1)
            fail(e.second, where + ".grid", "one key per grid axis", "zip: for keys that go together");
          std::vector<std::vector<std::string>> columns;
          for (const auto& kvs : e.second) {
            const std::string axis_key = kvs.first.Scalar();
            check_key(axis_key, ax.source);
            ax.keys.push_back(axis_key);
            columns.push_back(list(kvs.second, where + "." + k + "." + axis_key));
            if (columns.back().size() != columns.front().size())
              fail(kvs.second, where + ".zip." + axis_key,
                   std::to_string(columns.back().size()) + " values, the first key " + std::to_string(columns.front().size()),
                   "the same number for every zipped key");
          }
          for (size_t r = 0; r < columns.front().size(); ++r) {
            std::vector<std::string> tuple;
            for (const auto& c : columns) tuple.push_back(c[r]);
            ax.values.push_back(std::move(tuple));
          }
        }
        if (kinds != 1) fail(a, where, "needs exactly one of grid, zip", "grid, zip");
        s.grid.axes.push_back(std::move(ax));
      }
    } else {
      fail(kv.first, key, "unknown key", "workload, arch, set, objectives, axes");
    }
  }
  check_grid(s.grid);
  return s;
}

}  // namespace normsim::config
