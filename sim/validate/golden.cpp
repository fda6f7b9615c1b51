#include "sim/validate/golden.hpp"

#include <filesystem>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sim/config/bounded_file.hpp"
#include "sim/config/config_error.hpp"
#include "sim/core/npy.hpp"

namespace normsim::validate {

namespace {

using nlohmann::json;

// One case's keys, read with the messages a config would give.
class CaseReader {
 public:
  CaseReader(const json& c, std::string file, std::string name) : c_(c), file_(std::move(file)), name_(std::move(name)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& problem, const std::string& allowed) const {
    throw config::ConfigError(config::format_config_error(file_, 0, key, name_ + ": " + problem, allowed));
  }
  const json& need(const json& o, const std::string& key, const std::string& path) const {
    if (!o.is_object() || !o.contains(key) || o[key].is_null()) fail(path, "missing", "a value");
    return o[key];
  }
  std::string string(const std::string& key, std::optional<std::string> def = std::nullopt) const {
    if (def && (!c_.contains(key) || c_[key].is_null())) return *def;
    const json& v = need(c_, key, key);
    if (!v.is_string()) fail(key, "expected a string, got " + v.dump(), "a string");
    return v.get<std::string>();
  }
  int64_t integer(const json& o, const std::string& key, const std::string& path, int64_t lo, int64_t hi,
                  std::optional<int64_t> def = std::nullopt) const {
    if (def && (!o.contains(key) || o[key].is_null())) return *def;
    const json& v = need(o, key, path);
    const std::string allowed = std::to_string(lo) + ".." + std::to_string(hi);
    if (!v.is_number_integer()) fail(path, "expected an integer, got " + v.dump(), allowed);
    // Unsigned values above INT64_MAX are out of every range here.
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) fail(path, "value " + v.dump() + " out of range", allowed);
    const int64_t x = v.get<int64_t>();
    if (x < lo || x > hi) fail(path, "value " + std::to_string(x) + " out of range", allowed);
    return x;
  }
  int64_t integer(const std::string& key, int64_t lo, int64_t hi, std::optional<int64_t> def = std::nullopt) const {
    return integer(c_, key, key, lo, hi, def);
  }
  /// A finite number >= lo (> lo when `open`).
  double number(const json& o, const std::string& key, const std::string& path, double lo, bool open,
                std::optional<double> def = std::nullopt) const {
    if (def && (!o.contains(key) || o[key].is_null())) return *def;
    const json& v = need(o, key, path);
    char bound[32];
    std::snprintf(bound, sizeof bound, "%g", lo);
    const std::string allowed = std::string(open ? "> " : ">= ") + bound;
    if (!v.is_number()) fail(path, "expected a number, got " + v.dump(), allowed);
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < lo || (open && x == lo)) fail(path, "value " + v.dump() + " out of range", allowed);
    return x;
  }
  double number(const std::string& key, double lo, bool open, std::optional<double> def = std::nullopt) const {
    return number(c_, key, key, lo, open, def);
  }

 private:
  const json& c_;
  std::string file_, name_;
};

// nlohmann keeps the last of two equal keys; a golden index is refused instead.
}  // namespace

json parse_golden_json(const std::string& text, const std::string& file) {
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  const json::parser_callback_t cb = [&](int, json::parse_event_t ev, json& parsed) {
    if (ev == json::parse_event_t::object_start) keys.emplace_back();
    else if (ev == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    else if (ev == json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second &&
             duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  json j;
  try {
    j = json::parse(text, cb);
  } catch (const std::exception& e) {
    throw config::ConfigError(file + ": not valid JSON: " + e.what());
  }
  if (!duplicate.empty())
    throw config::ConfigError(config::format_config_error(file, 0, duplicate, "duplicate key", "each key once per object"));
  return j;
}

namespace {

// An output's path: relative, and inside the golden folder once normalised.
std::string output_path(const CaseReader& r, const std::string& key, const json& v) {
  const std::string path = "outputs." + key;
  if (!v.is_string()) r.fail(path, "expected a path, got " + v.dump(), "a path relative to the golden folder");
  const std::string p = v.get<std::string>();
  const std::filesystem::path fp(p);
  const std::filesystem::path norm = fp.lexically_normal();
  if (p.empty() || fp.is_absolute() || p.find('\0') != std::string::npos || norm.empty() || *norm.begin() == ".." ||
      norm == ".")
    r.fail(path, "'" + p + "' is not inside the golden folder", "a relative path such as outputs/CASE_y.npy");
  return norm.string();
}

}  // namespace

std::string read_golden_file(const std::string& file, const std::string& what) {
  return config::read_bounded_file(file, {kMaxGoldenIndexBytes, "a JSON file", "cannot read " + what});
}

std::vector<GoldenCase> load_golden(const std::string& dir) {
  const std::string file = (std::filesystem::path(dir) / "index.json").string();
  return parse_golden_index(
      read_golden_file(file, "the golden index (expected GOLDEN_DIR/index.json, a regular file, e.g. gpu_ref/golden/h200)"),
      file, dir);
}

RegressBaseline load_regress_baseline(const std::string& file) {
  return parse_regress_baseline(read_golden_file(file, "the regress baseline"), file);
}

RegressBaseline parse_regress_baseline(const std::string& text, const std::string& file) {
  const json j = parse_golden_json(text, file);
  auto fail = [&](const std::string& key, const std::string& problem, const std::string& allowed) {
    throw config::ConfigError(config::format_config_error(file, 0, key, problem, allowed));
  };
  if (!j.is_object()) fail("", "expected an object", "{\"gpu\": NAME, \"cases\": {ID: {COUNTER: |relative error|}}}");
  RegressBaseline b;
  if (!j.contains("gpu") || !j["gpu"].is_string()) fail("gpu", "missing or not a string", "the arch name the baseline was taken on");
  b.gpu = j["gpu"].get<std::string>();
  if (!j.contains("cases") || !j["cases"].is_object()) fail("cases", "missing or not an object", "{ID: {COUNTER: value}}");
  for (const auto& [id, counters] : j["cases"].items()) {
    if (!counters.is_object()) fail("cases." + id, "expected an object", "{COUNTER: |relative error|}");
    auto& row = b.cases.emplace(id, std::array<double, 4>{NAN, NAN, NAN, NAN}).first->second;
    for (const auto& [name, v] : counters.items()) {
      size_t i = 0;
      while (i < kBaselineCounters.size() && name != kBaselineCounters[i]) ++i;
      std::string names;
      for (const char* n : kBaselineCounters) names += (names.empty() ? "" : ", ") + std::string(n);
      if (i == kBaselineCounters.size()) fail("cases." + id + "." + name, "unknown counter", names);
      if (v.is_null()) continue;  // no relative error (a counter measured as 0)
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
        fail("cases." + id + "." + name, "value " + v.dump() + " is not an error", "a finite number >= 0, or null");
      row[i] = v.get<double>();
    }
  }
  return b;
}

std::vector<GoldenCase> parse_golden_index(const std::string& text, const std::string& file, const std::string& dir) {
  const json j = parse_golden_json(text, file);
  if (!j.is_array()) throw config::ConfigError(file + ": expected a list of cases");
  std::vector<GoldenCase> cases;
  std::map<std::string, size_t> ids;
  constexpr int64_t kMaxRows = int64_t(1) << 31, kMaxHidden = int64_t(1) << 24;
  for (size_t i = 0; i < j.size(); ++i) {
    const json& c = j[i];
    const std::string at = "case " + std::to_string(i);
    if (!c.is_object()) throw config::ConfigError(file + ": " + at + ": expected an object");
    GoldenCase g;
    {
      const CaseReader r0(c, file, at);
      g.id = r0.string("id");
      if (g.id.empty() || g.id.find_first_of("/\\\n\r\t") != std::string::npos)
        r0.fail("id", "'" + g.id + "' is not a case name", "a non-empty name without '/', '\\' or control characters");
      if (const auto [it, fresh] = ids.emplace(g.id, i); !fresh)
        r0.fail("id", "'" + g.id + "' is also case " + std::to_string(it->second), "unique ids");
    }
    const CaseReader r(c, file, "case '" + g.id + "'");
    auto kernel = [&](const std::string& key, const std::string& name) {
      const normref::KernelInfo* k = normref::find_kernel(name);
      if (!k) r.fail(key, "unknown kernel '" + name + "'", normref::kernel_names());
      return k->id;
    };
    const std::string name = r.string("kernel");
    g.kernel = kernel("kernel", name);
    g.ran = kernel("ran", r.string("ran", name));
    const std::string dtype = r.string("dtype");
    if (dtype != "fp32" && dtype != "bf16") r.fail("dtype", "unknown value '" + dtype + "'", "fp32, bf16");
    g.dtype = dtype == "bf16" ? simt::DType::bf16 : simt::DType::fp32;
    g.rows = r.integer("rows", 1, kMaxRows);
    g.hidden = r.integer("hidden", 1, kMaxHidden);
    g.block = static_cast<int>(r.integer("block", 32, 1024));
    if (g.block % 32) r.fail("block", "value " + std::to_string(g.block) + " is not a whole number of warps", "32, 64, ..., 1024");
    g.time_us = r.number("time_us", 0, true);
    g.copy_gbps = r.number("copy_gbps", 0, false, 0.0);
    const json& n = r.need(c, "ncu", "ncu");
    g.dram_bytes_read = r.number(n, "dram_bytes_read", "ncu.dram_bytes_read", 0, false);
    g.dram_bytes_written = r.number(n, "dram_bytes_written", "ncu.dram_bytes_written", 0, false);
    g.l2_bytes = r.number(n, "lts_bytes", "ncu.lts_bytes", 0, false);
    g.duration_us = r.number(n, "duration_us", "ncu.duration_us", 0, true);
    g.sm_cycles = r.number(n, "sm_cycles", "ncu.sm_cycles", 0, false);
    g.registers_per_thread = static_cast<int>(r.integer("registers_per_thread", 0, 255, 0));
    g.grid = r.integer("grid", 0, int64_t(1) << 31, 0);
    g.dist = r.string("dist", std::string("normal"));
    if (g.dist != "normal" && g.dist != "cancellation") r.fail("dist", "unknown value '" + g.dist + "'", "normal, cancellation");
    if (c.contains("seed") && c["seed"].is_number_unsigned()) g.seed = c["seed"].get<uint64_t>();
    else g.seed = static_cast<uint64_t>(r.integer("seed", 0, INT64_MAX, 1));
    g.dist_mean = r.number("dist_mean", -1e30, false, 0.0);
    g.dist_sigma = r.number("dist_sigma", 0, false, 1.0);
    g.eps = r.number("eps", 0, true, 1e-5);
    g.dropout_p = r.number("dropout_p", 0, false, 0.0);
    if (g.dropout_p >= 1) r.fail("dropout_p", "value " + std::to_string(g.dropout_p) + " is not a drop probability", "0 <= p < 1");
    if (g.dropout_p > 0 && !normref::kernel_info(g.kernel).dropout)
      r.fail("dropout_p", "kernel " + name + " has no dropout", "0, or kernel fused_residual_dropout");
    if (c.contains("outputs") && !c["outputs"].is_null()) {
      const json& o = c["outputs"];
      if (!o.is_object()) r.fail("outputs", "expected an object of output paths, got " + o.dump(), "{\"y\": \"outputs/...npy\", ...}");
      static const std::set<std::string> kOutputs = {"y", "mean", "rstd", "z", "dx", "dgamma", "dbeta"};
      for (auto it = o.begin(); it != o.end(); ++it) {
        if (!kOutputs.count(it.key())) r.fail("outputs." + it.key(), "unknown output", "y, mean, rstd, z, dx, dgamma, dbeta");
        g.outputs[it.key()] = output_path(r, it.key(), it.value());
      }
    }
    // The rows the outputs keep: a long-row case its first rows (rstd's
    // entries; the backward: dx's rows, its dgamma/dbeta whole).
    if (const char* key = g.outputs.count("dx") ? "dx" : g.outputs.count("rstd") ? "rstd" : nullptr) {
      const std::string what = std::string("outputs.") + key;
      try {
        const int64_t n = core::read_npy((std::filesystem::path(dir) / g.outputs.at(key)).string()).elements();
        g.output_rows = std::string(key) == "dx" ? (n % g.hidden == 0 ? n / g.hidden : -1) : n;
      } catch (const config::ConfigError&) {
        throw;
      } catch (const std::exception& e) {
        r.fail(what, e.what(), std::string("a .npy file of the case's ") + key);
      }
      if (g.output_rows < 1 || g.output_rows > g.rows)
        r.fail(what, "keeps " + std::to_string(g.output_rows) + " rows", "1.." + std::to_string(g.rows) + " whole rows");
    }
    cases.push_back(std::move(g));
  }
  return cases;
}

}  // namespace normsim::validate
