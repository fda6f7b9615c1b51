#include "command.hpp"

#include <spdlog/spdlog.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "sim/config/config_error.hpp"
#include "sim/config/embedded_configs.hpp"
#include "sim/config/printable.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/report_check.hpp"
#include "sim/report/report_stamp.hpp"

namespace normsim::cli {

std::string data_path(const std::string& relative) {
  namespace fs = std::filesystem;
  std::vector<fs::path> roots;
  if (const char* d = std::getenv("NORMSIM_DATA_DIR"); d && *d) roots.emplace_back(d);
  // This code's own file: bin/normsim, or lib/python3.X/dist-packages/normsim/_normsim*.so.
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&data_path), &info) && info.dli_fname) {
    std::error_code ec;
    const fs::path self = fs::canonical(info.dli_fname, ec);
    if (!ec) {
      // PREFIX/bin/normsim: one level up; PREFIX/lib/python3.X/dist-packages/normsim/: four.
      fs::path up = self.parent_path();
      for (int level = 0; level < 4 && up.has_parent_path() && up != up.root_path(); ++level) {
        up = up.parent_path();
        roots.push_back(up / "share" / "normsim");
      }
    }
  }
  std::error_code ec;
  for (const auto& r : roots)
    if (fs::exists(r / relative, ec)) return (r / relative).string();
  return (fs::path(NORMSIM_SOURCE_DIR) / relative).string();
}

std::string name_or_path_help(config::ShippedKind k, const std::string& what, const std::string& rest) {
  return what + ": a shipped name (" + config::shipped_names(k) + ") or a YAML path (" + rest + ")";
}

void add_input_options(CLI::App* c, InputArgs& in, const InputHelp& help) {
  namespace emb = config::embedded;
  // An empty name is a mistake, not the default (which is asked for by giving none).
  const auto not_empty = [](const char* what, config::ShippedKind k) {
    return CLI::Validator(
        [what, k](std::string& v) {
          return v.empty() ? std::string("an empty ") + what + " name (allowed: " + config::shipped_names(k) +
                                 ", a YAML path, or none for the default)"
                           : std::string();
        },
        "", "not empty");
  };
  c->add_option("workload", in.workload,
                name_or_path_help(config::ShippedKind::workload, "workload",
                                  "default: " + help.default_from + emb::kDefaultWorkloadName + help.workload_note))
      ->check(not_empty("workload", config::ShippedKind::workload));
  c->add_option("--arch", in.arch,
                name_or_path_help(config::ShippedKind::arch, help.arch_what,
                                  "default: " + help.default_from + emb::kDefaultArchName))
      ->check(not_empty("arch", config::ShippedKind::arch));
  c->add_option("--set", in.sets,
                "override a key" + help.set_note + " (repeatable)");
}

namespace {
// --set's workload and arch overrides (a gpu key belongs to `normsim simt`).
// The first `given` are the user's: a key among them twice is refused, as a
// YAML file's duplicate key is (the rest are a command's own, applied after).
std::vector<config::Override> input_overrides(const std::vector<std::string>& sets, size_t given) {
  std::vector<config::Override> ov;
  for (const auto& s : sets) {
    ov.push_back(config::parse_override(s));
    const config::Override& o = ov.back();
    if (o.target == "gpu")
      throw config::ConfigError("--set: key '" + s + "': gpu keys belong to `normsim simt` (allowed: workload.KEY=VALUE, arch.KEY=VALUE)");
    if (ov.size() > given) continue;
    for (size_t i = 0; i + 1 < ov.size(); ++i)
      if (ov[i].target == o.target && ov[i].path == o.path) {
        std::string key;
        for (const auto& k : o.path) key += (key.empty() ? "" : ".") + k;
        throw config::ConfigError("--set " + config::printable(s) + ": key '" + config::printable(key) +
                                  "': given again (first as --set " + config::printable(ov[i].text) +
                                  "; allowed: each key once)");
      }
  }
  return ov;
}
}  // namespace

config::Arch load_arch_also(const InputArgs& a, const std::vector<std::string>& also) {
  std::vector<std::string> sets = a.sets;
  sets.insert(sets.end(), also.begin(), also.end());
  const std::vector<config::Override> ov = input_overrides(sets, a.sets.size());
  return a.arch.empty() ? config::default_arch(ov, false) : config::load_arch(a.arch, ov, false);
}

Inputs load_inputs(const InputArgs& a, bool digest) {
  const std::vector<config::Override> ov = input_overrides(a.sets, a.sets.size());
  Inputs in{a.workload.empty() ? config::default_workload(ov, digest) : config::load_workload(a.workload, ov, digest),
            a.arch.empty() ? config::default_arch(ov, digest) : config::load_arch(a.arch, ov, digest)};
  if (!digest) return in;  // nothing to stamp
  std::vector<std::string> workload_sets, arch_sets;
  for (const auto& o : ov) (o.target == "workload" ? workload_sets : arch_sets).push_back(o.text);
  report::record_config({"workload", in.workload.name, in.workload.source, in.workload.sha256, workload_sets});
  report::record_config({"arch", in.arch.name, in.arch.source, in.arch.sha256, arch_sets});
  return in;
}

std::optional<config::InputPath> parse_path_flag(const std::string& p) {
  if (p.empty()) return std::nullopt;
  auto ip = config::parse_input_path(p);
  if (!ip)
    throw config::ConfigError("--path: unknown value '" + p + "' (allowed: " + config::kInputPaths.joined() + ")");
  return ip;
}

// SystemC adds ".vcd" to the name it is given and prints its own warning
// when it cannot open the file; a plot's script fails late: both are
// settled here, before the run.
void check_output_file(const std::string& flag, const std::string& file, const std::string& ext, const std::string& example,
                       const std::string& out_dir) {
  namespace fs = std::filesystem;
  const std::string t = config::printable(file);
  std::error_code ec;
  if (fs::is_directory(file, ec))
    throw config::ConfigError(flag + ": '" + t + "' is a directory (allowed: a file path ending in " + ext + ", e.g. " + t + "/" +
                              example + ")");
  if (file.size() <= ext.size() || file.compare(file.size() - ext.size(), ext.size(), ext) != 0)
    throw config::ConfigError(flag + ": '" + t + "' does not end in " + ext + " (allowed: a file path ending in " + ext + ")");
  const fs::path parent = fs::path(file).parent_path().empty() ? fs::path(".") : fs::path(file).parent_path();
  // Inside the --out directory (checked by check_out_dir, made on writing).
  auto normal = [&](const fs::path& p) {
    fs::path n = fs::absolute(p, ec).lexically_normal();
    return n.has_filename() ? n : n.parent_path();
  };
  if (!out_dir.empty() && normal(parent) == normal(out_dir)) return;
  if (!fs::is_directory(parent, ec))
    throw config::ConfigError(flag + ": '" + t + "': no such directory '" + config::printable(parent.string()) +
                              "' (allowed: a file in an existing directory)");
  if (access(parent.c_str(), W_OK) != 0)
    throw config::ConfigError(flag + ": '" + t + "': directory '" + config::printable(parent.string()) +
                              "' is not writable (allowed: a file in a writable directory)");
}

void check_out_dir(const std::string& dir) {
  if (dir.empty()) return;
  namespace fs = std::filesystem;
  const std::string d = config::printable(dir);
  std::error_code ec;
  // The directory, or the nearest part of its path that exists (the rest is created on writing).
  fs::path p = fs::absolute(dir, ec);
  while (!p.empty() && !fs::exists(p, ec) && p != p.parent_path()) p = p.parent_path();
  if (!fs::is_directory(p, ec))
    throw config::ConfigError("--out: '" + d + "': '" + config::printable(p.string()) +
                              "' is not a directory (allowed: a directory, or a path one can be created at)");
  // A file made and removed there: access() would pass every path for root.
  std::string probe = (p / ".normsim-write-check-XXXXXX").string();
  const int fd = mkstemp(probe.data());
  if (fd < 0)
    throw config::ConfigError("--out: '" + d + "': cannot write in '" + config::printable(p.string()) + "': " +
                              std::strerror(errno) + " (allowed: a directory this user can write)");
  close(fd);
  fs::remove(probe, ec);
}

asic::AsicOptions asic_options(const AsicFlags& f) {
  asic::AsicOptions o;
  o.algorithm = f.algorithm;
  o.path = parse_path_flag(f.path);
  o.numerics = !f.no_numerics;
  o.keep_outputs = f.save_outputs || f.save_inputs;
  o.keep_inputs = f.save_inputs;
  o.threads = thread_count(f.threads);
  o.trace_file = f.trace;
  if (!f.trace.empty()) check_output_file("--trace", f.trace, ".vcd", "trace.vcd");
  if (f.trace_rows && f.trace.empty())
    throw config::ConfigError("--trace-rows: there is no trace without --trace FILE.vcd (allowed: both, or neither)");
  if (f.trace_rows) o.trace_rows = f.trace_rows;
  o.rtl = f.rtl;
  o.rtl_full = f.rtl_full;
  o.fast_forward = !f.no_fast_forward;
  if (f.rtl && f.no_numerics)
    throw config::ConfigError("--rtl: the RTL computes the numerics (allowed: one of --rtl, --no-numerics)");
  if (f.no_numerics && (f.save_outputs || f.save_inputs))
    throw config::ConfigError(std::string(f.save_outputs ? "--save-outputs" : "--save-inputs") +
                              ": there are no outputs with --no-numerics (allowed: one of them)");
  return o;
}

int thread_count(int threads) {
  if (threads > 0) return threads;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

simt::GpuArch load_gpu(const std::string& path, const std::vector<std::string>& sets) {
  std::vector<config::Override> ov;
  for (const auto& s : sets) {
    ov.push_back(config::parse_override(s));
    if (ov.back().target != "gpu")
      throw config::ConfigError("--set: key '" + s + "': simt takes GPU keys only (allowed: gpu.KEY[.KEY]=VALUE)");
  }
  simt::GpuArch g = simt::gpu_arch_by_name_or_path(path, ov);
  report::record_config({"gpu", g.name, g.source, g.sha256, g.overrides});
  return g;
}

int64_t parse_int_flag(const std::string& flag, const std::string& text, int64_t lo, int64_t hi) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const std::string allowed = " (allowed: " + std::to_string(lo) + ".." + std::to_string(hi) + ")";
  const bool whole = end == text.data() + text.size();
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && whole && (v < lo || v > hi)))
    throw CLI::ValidationError(flag, "value '" + config::printable(text) + "' out of range" + allowed);
  if (ec != std::errc() || !whole)
    throw CLI::ValidationError(flag, "expected an integer, got '" + config::printable(text) + "'" + allowed);
  return v;
}

double parse_number_flag(const std::string& flag, const std::string& text, double lo, double hi) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  char range[96];
  std::snprintf(range, sizeof range, " (allowed: a number in %.15g..%.15g)", lo, hi);
  if (ec != std::errc() || end != text.data() + text.size())
    throw CLI::ValidationError(flag, "expected a number, got '" + config::printable(text) + "'" + range);
  if (!std::isfinite(v) || v < lo || v > hi)
    throw CLI::ValidationError(flag, "value '" + config::printable(text) + "' out of range" + range);
  return v;
}

void check_report(const nlohmann::json& report, const std::string& what) {
  const auto problems = report::check_report_numbers(report);
  if (!problems.empty()) throw config::CheckFailure(what + ": " + report::describe(problems));
}

void check_no_overflow(const nlohmann::json& report, const std::string& what) {
  if (!report.contains("numerics") || !report["numerics"].contains("overflow")) return;
  std::string stages;
  for (const auto& [stage, count] : report["numerics"]["overflow"].items())
    if (count.is_number() && count.get<double>() > 0) stages += (stages.empty() ? "" : ", ") + stage + " " + count.dump();
  if (!stages.empty())
    throw config::CheckFailure(what + ": --fail-on-overflow: results overflowed in stage " + stages +
                               " (the warnings above say how; the report is written)");
}

void log_warnings(const nlohmann::json& report, const std::string& what) {
  if (!report.contains("numerics") || !report["numerics"].contains("warnings")) return;
  for (const auto& w : report["numerics"]["warnings"])
    if (w.is_string()) spdlog::warn("{}: {}", what, config::printable(w.get<std::string>()));
}

void write_report_file(const std::string& dir, const std::string& name, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  report::write_file_atomic(dir + "/" + name, text);
}

}  // namespace normsim::cli
