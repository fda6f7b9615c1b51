#include "sim/validate/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/config/bounded_file.hpp"
#include "sim/config/config_error.hpp"
#include "sim/core/reuse_curve.hpp"
#include "sim/validate/fit.hpp"
#include "sim/validate/golden.hpp"
#include "sim/validate/simt_regress.hpp"

namespace normsim::validate {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr uint64_t kMaxRecordBytes = 64ull << 20;

std::string path_in(const std::string& dir, const std::string& name) { return (fs::path(dir) / name).string(); }

std::string read_record(const std::string& file) {
  return config::read_bounded_file(file, {kMaxRecordBytes, "a record file calibrate_gpu.sh writes",
                                          "missing (gpu_ref/scripts/calibrate_gpu.sh writes it)"});
}

// One JSON object per line (blank lines skipped), each with its line number.
std::vector<std::pair<int, json>> read_jsonl(const std::string& file) {
  std::vector<std::pair<int, json>> rows;
  std::istringstream in(read_record(file));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      throw config::ConfigError(config::format_config_error(file, n, "", "not a JSON object", "one JSON object per line"));
    rows.emplace_back(n, std::move(j));
  }
  if (rows.empty()) throw config::ConfigError(file + ": no records");
  return rows;
}

// A number field of a record: present, finite and within [lo, hi].
double number(const std::string& file, int line, const json& j, const std::string& key, double lo, double hi) {
  if (!j.contains(key) || !j[key].is_number())
    throw config::ConfigError(config::format_config_error(file, line, key, "missing or not a number", "a number"));
  const double v = j[key].get<double>();
  if (!std::isfinite(v) || v < lo || v > hi)
    throw config::ConfigError(config::format_config_error(file, line, key, "value " + config::format_number(v) + " out of range",
                                                          config::format_number(lo) + ".." + config::format_number(hi)));
  return v;
}

// A string field of a record, or `otherwise` when it is absent or not a string.
std::string text_field(const json& j, const std::string& key, const std::string& otherwise) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : otherwise;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// v to `decimals` decimal places (0.599 -> 0.6 exactly as the file prints it).
double round_to(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

// Deterministic pattern search: each coordinate tried a step up and down
// (multiplicative for a positive value, additive for one within bounds), the
// step halved when no move helps.
struct Coordinate {
  double* value;
  bool log_scale;
  double lo, hi;
};
void pattern_search(std::vector<Coordinate> cs, const std::function<double()>& sse) {
  double best = sse();
  for (double step = 0.2; step > 1e-4; step /= 2) {
    for (bool moved = true; moved;) {
      moved = false;
      for (auto& c : cs)
        for (int dir : {1, -1}) {
          const double was = *c.value;
          *c.value = std::clamp(c.log_scale ? was * std::exp(dir * step) : was + dir * step, c.lo, c.hi);
          const double e = sse();
          if (e < best - 1e-15) {
            best = e;
            moved = true;
          } else {
            *c.value = was;
          }
        }
    }
  }
}

struct SweepPoint {
  std::string p2, store;
  double x, missed;
};

void fit_reuse(const std::string& dir, core::L2Reuse& reuse, Calibration& cal) {
  const std::string sweep_file = path_in(dir, "l2_sweep_probe.jsonl"), steady_file = path_in(dir, "l2_steady_probe.jsonl");
  // Two sweeps over X bytes in one kernel, the second by its load and store hints.
  std::vector<SweepPoint> sweeps;
  for (const auto& [n, r] : read_jsonl(sweep_file)) {
    if (r.contains("error") || text_field(r, "order", "") != "linear" || text_field(r, "p1", "") != "plain" || text_field(r, "p2", "none") == "none")
      continue;
    const double x = number(sweep_file, n, r, "bytes", 1, 1e13);
    const double read = number(sweep_file, n, r, "dram__bytes_read.sum", 0, 1e15);
    sweeps.push_back({text_field(r, "p2", ""), text_field(r, "store", "none"), x, std::clamp((read - x) / x, 0.0, 1.0)});
  }
  if (sweeps.size() < 4) throw config::ConfigError(sweep_file + ": fewer than 4 linear two-sweep records (p1 plain, p2 not none)");
  // Bytes the second sweep inserts per byte of x, at normal and evict-first priority.
  auto weights = [&](const std::string& p2, const std::string& store) {
    const double normal = (p2 != "cs" ? 1.0 : 0.0) + (store == "plain" ? reuse.store_weight : 0.0);
    const double evict_first = (p2 == "cs" ? 1.0 : 0.0) + (store == "cs" ? 1.0 : 0.0);
    return std::pair{normal, evict_first};
  };
  auto sweep_sse = [&] {
    double e = 0;
    for (const auto& s : sweeps) {
      const auto [normal, ef] = weights(s.p2, s.store);
      const double hit = core::mean_hit_between_passes({s.x, s.x * normal}, {0.0, s.x * ef}, reuse.evict_first_pool_bytes,
                                                       reuse.sweep);
      e += (1 - hit - s.missed) * (1 - hit - s.missed);
    }
    return e;
  };
  pattern_search({{&reuse.sweep.half_bytes, true, 1e3, 1e13},
                  {&reuse.sweep.steepness, true, 1, 200},
                  {&reuse.evict_first_pool_bytes, true, 1e3, 1e13},
                  {&reuse.store_weight, false, 0, 1.5}},
                 sweep_sse);
  // Rows out of phase: warps re-reading rows of L bytes, F = warps x L in flight.
  struct SteadyPoint {
    std::string p2, store;
    double warps, in_flight, missed;
  };
  std::vector<SteadyPoint> steady;
  for (const auto& [n, r] : read_jsonl(steady_file)) {
    if (r.contains("error")) continue;
    const double x = number(steady_file, n, r, "bytes", 1, 1e13);
    const double warps = number(steady_file, n, r, "warps", 1, 1e7);
    const double row = number(steady_file, n, r, "row_bytes", 1, 1e10);
    const double read = number(steady_file, n, r, "dram__bytes_read.sum", 0, 1e15);
    steady.push_back({text_field(r, "p2", "plain"), text_field(r, "store", "none"), warps, warps * row, std::clamp((read - x) / x, 0.0, 1.0)});
  }
  if (steady.size() < 3) throw config::ConfigError(steady_file + ": fewer than 3 steady records");
  double reference = steady[0].warps;
  for (const auto& s : steady) reference = std::min(reference, s.warps);
  reuse.steady_steepness_rows = reference;
  auto steady_sse = [&] {
    double e = 0;
    for (const auto& s : steady) {
      const auto [normal, ef] = weights(s.p2, s.store);
      const core::ReuseCurve c = reuse.steady_curve(s.warps);
      const double d = s.in_flight * (1 + normal) / 2 + std::min(reuse.evict_first_pool_bytes, s.in_flight * ef / 2);
      const double miss = 1 - core::reuse_hit_fraction(d, c);
      e += (miss - s.missed) * (miss - s.missed);
    }
    return e;
  };
  pattern_search({{&reuse.steady.half_bytes, true, 1e3, 1e13},
                  {&reuse.steady.steepness, true, 1, 200},
                  {&reuse.steady_steepness_per_doubling, false, -16, 16}},
                 steady_sse);
  char line[300];
  std::snprintf(line, sizeof line, "L2 reuse: %zu sweeps (RMS missed fraction %.4f), %zu steady points (RMS %.4f)\n",
                sweeps.size(), std::sqrt(sweep_sse() / static_cast<double>(sweeps.size())), steady.size(),
                std::sqrt(steady_sse() / static_cast<double>(steady.size())));
  cal.log += line;
  const std::string sw = "l2_sweep_probe.jsonl: least squares on the second sweep's missed fraction, " +
                         std::to_string(sweeps.size()) + " records";
  const std::string st = "l2_steady_probe.jsonl: least squares on the re-read's missed fraction, " +
                         std::to_string(steady.size()) + " records";
  const auto share = [&](double bytes) {
    std::snprintf(line, sizeof line, " (%.3f of the L2)", bytes / cal.arch.l2.bytes.value());
    return std::string(line);
  };
  cal.sources["l2.sweep_half_bytes"] = {ValueSource::probe_fit, sw + share(reuse.sweep.half_bytes)};
  cal.sources["l2.sweep_steepness"] = {ValueSource::probe_fit, sw};
  cal.sources["l2.evict_first_pool_bytes"] = {ValueSource::probe_fit, sw + share(reuse.evict_first_pool_bytes)};
  cal.sources["l2.store_weight"] = {ValueSource::probe_fit, sw};
  cal.sources["l2.reuse_half_bytes"] = {ValueSource::probe_fit, st + share(reuse.steady.half_bytes)};
  cal.sources["l2.reuse_steepness"] = {ValueSource::probe_fit, st};
  cal.sources["l2.reuse_steepness_per_doubling"] = {ValueSource::probe_fit, st};
  cal.sources["l2.reuse_steepness_rows"] = {ValueSource::measured, "l2_steady_probe.jsonl: the fewest warps in flight"};
  cal.arch.l2.reuse_measured_bytes = cal.arch.l2.bytes;
  cal.sources["l2.reuse_measured_bytes"] = {ValueSource::measured, "the L2 the probes ran on: a what-if l2.bytes scales the curves"};
}

}  // namespace

Calibration calibrate(const std::string& dir, const simt::GpuArch& start, const std::string& name) {
  Calibration cal;
  simt::GpuArch& g = cal.arch;
  g = start;
  g.name = name;
  g.source = dir;
  g.overrides.clear();
  auto measured = [&](const std::string& key, const std::string& why) { cal.sources[key] = {ValueSource::measured, why}; };
  cal.sources["name"] = {ValueSource::start, "the arch's label in reports"};

  // Device properties: device.json (calibrate_gpu.sh), else the golden env.json's three.
  const std::string device_file = path_in(dir, "device.json");
  if (fs::exists(device_file)) {
    const json d = json::parse(read_record(device_file), nullptr, false);
    if (d.is_discarded() || !d.is_object()) throw config::ConfigError(device_file + ": not a JSON object");
    auto dev = [&](const std::string& key, double lo, double hi) { return number(device_file, 0, d, key, lo, hi); };
    g.sms = static_cast<int>(dev("sms", 1, 4096));
    g.sm_clock_mhz = dev("sm_clock_khz", 1, 1e8) / 1000;
    g.l2.bytes = core::Bytes(dev("l2_bytes", 1, 1e12));
    g.warp_size = static_cast<int>(dev("warp_size", 1, 1024));
    g.max_threads_per_sm = static_cast<int>(dev("max_threads_per_sm", 1, 65536));
    g.max_blocks_per_sm = static_cast<int>(dev("max_blocks_per_sm", 1, 1024));
    g.registers_per_sm = static_cast<int>(dev("registers_per_sm", 1, 1 << 24));
    g.smem_per_sm_bytes = static_cast<int>(dev("smem_per_sm_bytes", 1, 1 << 30));
    g.smem_per_block_bytes = static_cast<int>(dev("smem_per_block_optin_bytes", 1, 1 << 30));
    g.smem_reserved_per_block_bytes = static_cast<int>(dev("smem_reserved_per_block_bytes", 0, 1 << 20));
    for (const char* k : {"sms", "sm_clock_mhz", "l2.bytes", "warp_size", "max_threads_per_sm", "max_blocks_per_sm",
                          "registers_per_sm", "smem_per_sm_bytes", "smem_per_block_bytes", "smem_reserved_per_block_bytes"})
      measured(k, "device.json (cudaDeviceProp)");
  } else {
    const std::string env_file = path_in(dir, "env.json");
    const json e = json::parse(read_record(env_file), nullptr, false);
    if (e.is_discarded() || !e.is_object()) throw config::ConfigError(env_file + ": not a JSON object");
    g.sms = static_cast<int>(number(env_file, 0, e, "sms", 1, 4096));
    g.sm_clock_mhz = number(env_file, 0, e, "sm_clock_khz", 1, 1e8) / 1000;
    g.l2.bytes = core::Bytes(number(env_file, 0, e, "l2_bytes", 1, 1e12));
    for (const char* k : {"sms", "sm_clock_mhz", "l2.bytes"}) measured(k, "env.json (cudaDeviceProp)");
  }

  // The latency ladder: a pointer chase by footprint.
  {
    const std::string file = path_in(dir, "latency.jsonl");
    std::vector<double> l1, near, far;
    for (const auto& [n, r] : read_jsonl(file)) {
      const double kib = number(file, n, r, "footprint_kib", 1, 1e10), cyc = number(file, n, r, "cycles_per_load", 1, 1e6);
      const double bytes = kib * 1024;
      if (bytes <= 128 * 1024) l1.push_back(cyc);
      else if (bytes >= 1 << 20 && bytes <= 0.45 * g.l2.bytes.value()) near.push_back(cyc);
      else if (bytes >= 0.6 * g.l2.bytes.value() && bytes <= 0.85 * g.l2.bytes.value()) far.push_back(cyc);
    }
    if (l1.empty() || near.empty() || far.empty())
      throw config::ConfigError(file + ": needs footprints within 128 KiB, within 1 MiB..0.45x the L2 and within 0.6..0.85x the L2");
    g.l1.hit_latency_cycles = std::round(median(l1));
    g.l2.near_hit_latency_cycles = std::round(median(near));
    g.l2.far_hit_latency_cycles = std::round(median(far));
    measured("l1.hit_latency_cycles", "latency.jsonl: median of the footprints within 128 KiB, to the cycle");
    measured("l2.near_hit_latency_cycles", "latency.jsonl: median of the footprints of 1 MiB..0.45x the L2, to the cycle");
    measured("l2.far_hit_latency_cycles", "latency.jsonl: median of the footprints of 0.6..0.85x the L2 (the far partition), to the cycle");
  }
  // DRAM's unloaded latency: one warp an SM, one load in flight, from a cold L2.
  {
    const std::string file = path_in(dir, "mlp_probe.jsonl");
    bool found = false;
    for (const auto& [n, r] : read_jsonl(file))
      if (number(file, n, r, "warps_per_sm", 0, 1e6) == 1 && number(file, n, r, "loads_in_flight", 0, 1e6) == 1) {
        g.dram.latency_cycles = core::Cycles(std::round(number(file, n, r, "cycles_per_step", 1, 1e6)));
        found = true;
      }
    if (!found) throw config::ConfigError(file + ": no record with warps_per_sm 1 and loads_in_flight 1");
    measured("dram.latency_cycles", "mlp_probe.jsonl: a streaming load from a cold L2, 1 warp an SM, 1 load in flight, to the cycle");
  }
  // Launch overhead and block dispatch: ncu's duration of an empty kernel by grid.
  {
    const std::string file = path_in(dir, "empty_kernel.csv");
    std::istringstream in(read_record(file));
    std::string line;
    std::map<long, double> by_grid;  // blocks -> us
    for (int n = 1; std::getline(in, line); ++n) {
      if (line.rfind("\"", 0) != 0 || line.find("gpu__time_duration.sum") == std::string::npos) continue;
      std::vector<std::string> f;
      for (size_t i = 0; i < line.size();) {  // "a","b",... (quoted, commas inside quotes)
        const size_t open = line.find('"', i), close = line.find('"', open + 1);
        if (open == std::string::npos || close == std::string::npos) break;
        f.push_back(line.substr(open + 1, close - open - 1));
        i = close + 1;
      }
      if (f.size() < 15) throw config::ConfigError(config::format_config_error(file, n, "", "expected ncu's 15 CSV columns", "ncu --csv output"));
      std::string grid = f[8], value = f[14];
      value.erase(std::remove(value.begin(), value.end(), ','), value.end());
      const long blocks = std::strtol(grid.c_str() + (grid.empty() ? 0 : 1), nullptr, 10);
      char* end = nullptr;
      const double ns = std::strtod(value.c_str(), &end);
      if (blocks < 1 || !end || *end || !std::isfinite(ns) || ns <= 0)
        throw config::ConfigError(config::format_config_error(file, n, "gpu__time_duration.sum", "grid '" + grid + "', value '" + value + "'",
                                                              "a grid (N, 1, 1) and a duration in ns"));
      by_grid[blocks] = ns / 1e3;
    }
    if (!by_grid.count(g.sms) || by_grid.rbegin()->first <= g.sms)
      throw config::ConfigError(file + ": needs an empty launch of one block per SM (" + std::to_string(g.sms) + ") and a larger one");
    const double one_wave = by_grid[g.sms];
    const auto [most, most_us] = *by_grid.rbegin();
    g.launch_overhead_us = round_to(one_wave, 1);
    g.block_dispatch_ns = round_to((most_us - one_wave) * 1e3 / static_cast<double>(most - g.sms), 1);
    measured("launch_overhead_us", "empty_kernel.csv: an empty kernel of one block per SM, to 0.1 us");
    measured("block_dispatch_ns", "empty_kernel.csv: the largest grid's extra duration over its extra blocks, to 0.1 ns");
  }
  // Bandwidth: the flat copy, read + write bytes over its time.
  {
    const std::string file = path_in(dir, "copy.jsonl");
    std::vector<double> gbps;
    for (const auto& [n, r] : read_jsonl(file))
      if (text_field(r, "kernel", "") == "copy") gbps.push_back(number(file, n, r, "gbps", 1, 1e5));
    if (gbps.empty()) throw config::ConfigError(file + ": no \"copy\" record");
    g.dram.bytes_per_s = core::BytesPerSecond(round_to(median(gbps), 1) * 1e9);
    measured("dram.bytes_per_s", "copy.jsonl: the flat 16-byte-per-thread copy, read + written bytes over its time (median of " +
                                     std::to_string(gbps.size()) + " calls)");
  }
  fit_reuse(dir, g.l2.reuse, cal);

  // The model's fitted values, on the folder's training cases.
  const std::vector<GoldenCase> cases = load_golden(dir);
  std::string fit_log;
  g = fit_arch(cases, g, &fit_log);
  g.name = name;
  cal.log += fit_log;
  const std::vector<bool> held = held_out_mask(cases);
  const size_t training = static_cast<size_t>(std::count(held.begin(), held.end(), false));
  const std::string fit_why = "fit on the " + std::to_string(training) + " training cases of index.json";
  for (const auto& [key, value] : fitted_values(g)) cal.sources[key] = {ValueSource::fit, fit_why};
  const auto problem = simt::gpu_arch_params().check(g);
  if (problem)
    throw config::CheckFailure("calibrate: " + dir + ": key '" + problem->key_path + "': " + problem->problem.problem +
                               " (allowed: " + problem->problem.allowed + ")");
  // The arch is what its file holds (nine significant digits a value).
  g = simt::parse_gpu_arch_text(calibration_yaml(cal, dir), dir);
  g.source = dir;
  return cal;
}

std::string calibration_yaml(const Calibration& c, const std::string& dir) {
  const json values = simt::gpu_arch_params().echo(c.arch);
  std::string out = "# " + c.arch.name + ": a GPU arch file written by `normsim calibrate " + dir +
                    "` (docs/FIDELITY.md, \"Another GPU\").\n"
                    "# measured: read off a probe's record; probe fit: least squares on the L2 probes;\n"
                    "# fit: `regress --fit` on the training cases only; start: not measured, the start arch's value.\n";
  std::string section;
  for (const auto& row : simt::gpu_arch_params().document()) {
    const size_t dot = row.key.find('.');
    const std::string head = dot == std::string::npos ? "" : row.key.substr(0, dot);
    const std::string leaf = dot == std::string::npos ? row.key : row.key.substr(dot + 1);
    const json* v = head.empty() ? (values.contains(row.key) ? &values[row.key] : nullptr)
                                 : (values.contains(head) && values[head].contains(leaf) ? &values[head][leaf] : nullptr);
    if (!v) continue;
    if (head != section) {
      section = head;
      if (!head.empty()) out += head + ":\n";
    }
    std::string text;
    if (v->is_string()) text = v->get<std::string>();
    else if (v->is_number_integer()) text = std::to_string(v->get<int64_t>());
    else {
      char b[64];
      std::snprintf(b, sizeof b, "%.9g", v->get<double>());
      text = b;
    }
    const auto it = c.sources.find(row.key);
    const char* kinds[] = {"measured", "probe fit", "fit", "start"};
    const std::string why = it == c.sources.end() ? std::string("start: ") + "the start arch's value"
                                                  : std::string(kinds[static_cast<int>(it->second.first)]) + ": " + it->second.second;
    std::string line = (head.empty() ? "" : "  ") + leaf + ": " + text;
    line.resize(std::max<size_t>(line.size() + 1, 40), ' ');
    out += line + "# " + why + "\n";
  }
  return out;
}

}  // namespace normsim::validate
