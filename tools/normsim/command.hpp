// What every normsim subcommand shares: how it registers with the command
// line (one cmd_<name>.cpp each, listed in main.cpp), the exit codes, and
// the workload/arch loading that run, compare, sweep and area have in common.
#pragma once

#include "sim/report/sweep_journal.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/asic/asic_run.hpp"
#include "sim/config/arch.hpp"
#include "sim/config/shipped_configs.hpp"
#include "sim/config/workload.hpp"
#include "sim/simt/gpu_arch.hpp"

namespace normsim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;

/// A subcommand: its CLI11 parser and what runs when the user names it.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command add_run(CLI::App& app);
Command add_compare(CLI::App& app);
Command add_sweep(CLI::App& app);
Command add_simt(CLI::App& app);
Command add_regress(CLI::App& app);
Command add_calibrate(CLI::App& app);
Command add_area(CLI::App& app);
Command add_merge(CLI::App& app);
Command add_widths(CLI::App& app);
Command add_netlist(CLI::App& app);
Command add_list(CLI::App& app);

/// The help of a NAME|PATH argument, from the shipped-config registry:
/// "<what>: a shipped name (a, b, ...) or a YAML path (<rest>)".
std::string name_or_path_help(config::ShippedKind k, const std::string& what, const std::string& rest);

/// A file normsim ships beside its configs (`tools/sweep/pareto_plot.py`,
/// `rtl_models`): under $NORMSIM_DATA_DIR if set, else under the install's
/// share/normsim (found from this binary or module's own location), else in
/// the source tree it was built from.
std::string data_path(const std::string& relative);

/// The H200's golden data (regress's default, simt --explain's ncu column),
/// relative to data_path's roots: found from any folder, installed or not.
inline constexpr const char* kGoldenH200 = "gpu_ref/golden/h200";

/// The workload and arch a command names, with its --set overrides.
struct InputArgs {
  std::string workload, arch;
  std::vector<std::string> sets;
};

struct Inputs {
  config::Workload workload;
  config::Arch arch;
};

/// What a command's workload positional, --arch and --set say in its help:
/// `arch_what` (what the arch must be), `workload_note` (after the default),
/// `set_note` (after "override a key"), and `default_from` ("the study's,
/// else ") before each default.
struct InputHelp {
  std::string arch_what = "arch";
  std::string workload_note;
  std::string set_note;
  std::string default_from;
};
/// Adds the workload positional, --arch and --set that fill `in`.
void add_input_options(CLI::App* c, InputArgs& in, const InputHelp& help);

/// The workload and arch of `a` (or the embedded defaults), --set applied;
/// ConfigError for gpu keys (they belong to `normsim simt`). `digest`: the
/// configs' sha256, recorded for the report's stamp (a sweep's points skip it).
Inputs load_inputs(const InputArgs& a, bool digest = true);
/// The arch as load_inputs reads it with `also` (arch.KEY=VALUE overrides)
/// after --set's, unrecorded in the report's stamp (a variant of the inputs).
config::Arch load_arch_also(const InputArgs& a, const std::vector<std::string>& also);

/// --path: nullopt when not given; ConfigError naming the allowed values.
std::optional<config::InputPath> parse_path_flag(const std::string& p);

/// The ASIC model's options from run's flags (--rtl, --no-numerics,
/// --save-outputs, --trace are checked against each other here).
struct AsicFlags {
  std::string path, trace;
  int64_t trace_rows = 0;  ///< 0: not given (the default, 8)
  bool no_numerics = false, rtl = false, rtl_full = false, save_outputs = false, save_inputs = false, no_fast_forward = false;
  int threads = 0;  ///< 0: every core
  std::optional<core::VarianceAlgorithm> algorithm;
};
asic::AsicOptions asic_options(const AsicFlags& f);
inline constexpr const char* kNoFastForwardHelp =
    "simulate every row (default: skip whole periods of the steady state; the same figures, bit for bit)";
/// Refuses an --out DIR no report could be written into (exit 2, with the
/// OS's reason), before any work: it must be a writable directory, or be
/// creatable under the nearest existing part of its path.
void check_out_dir(const std::string& dir);
/// Refuses an output file (--trace, --plot) that is a directory, lacks the
/// extension `ext`, or lies in a directory that is missing or not writable.
void check_output_file(const std::string& flag, const std::string& file, const std::string& ext, const std::string& example,
                       const std::string& out_dir = "");
/// --threads N, or every core for 0.
int thread_count(int threads);

/// The GPU arch of `path` (or the embedded h200) with gpu.* overrides.
simt::GpuArch load_gpu(const std::string& path, const std::vector<std::string>& sets);

/// An integer option, read as text so that a value out of range is refused
/// as the user wrote it (CLI11 would clamp 99999999999999999999 first).
/// `text` as an integer in [lo, hi]; CLI::ValidationError naming `flag` and the text otherwise.
int64_t parse_int_flag(const std::string& flag, const std::string& text, int64_t lo, int64_t hi);
template <class Int>
CLI::Option* add_int_option(CLI::App* c, const std::string& name, Int& value, int64_t lo, int64_t hi,
                            const std::string& help) {
  const std::string flag = name.substr(name.rfind(',') == std::string::npos ? 0 : name.rfind(',') + 1);
  return c->add_option_function<std::string>(
              name, [&value, lo, hi, flag](const std::string& text) { value = static_cast<Int>(parse_int_flag(flag, text, lo, hi)); },
              help)
      ->type_name("INT");
}

/// A number option the same way: `text` as a finite number in [lo, hi].
double parse_number_flag(const std::string& flag, const std::string& text, double lo, double hi);
inline CLI::Option* add_number_option(CLI::App* c, const std::string& name, double& value, double lo, double hi,
                                      const std::string& help) {
  const std::string flag = name.substr(name.rfind(',') == std::string::npos ? 0 : name.rfind(',') + 1);
  return c->add_option_function<std::string>(
              name, [&value, lo, hi, flag](const std::string& text) { value = parse_number_flag(flag, text, lo, hi); }, help)
      ->type_name("NUMBER");
}

/// config::CheckFailure (exit 1) naming the first non-finite or negative
/// number of `report` (sim/report/report_check.hpp), before anything is written.
void check_report(const nlohmann::json& report, const std::string& what);

/// --fail-on-overflow: config::CheckFailure (exit 1) naming the stages of
/// `report` ("numerics.overflow") whose results saturated or wrapped.
void check_no_overflow(const nlohmann::json& report, const std::string& what);

/// Logs each of the report's warnings ("numerics.warnings") on stderr.
void log_warnings(const nlohmann::json& report, const std::string& what);

/// Writes `text` to DIR/NAME atomically, creating DIR.
void write_report_file(const std::string& dir, const std::string& name, const std::string& text);

/// A whole sweep's outputs (sweep and merge write the same): sweep.json and
/// sweep.csv in `out_dir` (if given), the Pareto plot (if asked), the table
/// or the JSON on stdout. ConfigError when no point could be built.
/// A sweep's outputs from its journals (the whole sweep's, or every shard's):
/// sweep.json and sweep.csv into `out_dir` (if given), the table or (`json`)
/// the JSON on stdout, the Pareto plot.
int write_sweep_outputs(const report::SweepJournalSet& set, const std::string& out_dir, bool json, const std::string& plot);
/// ConfigError with the first point's reason when no point of a sweep ran.
void check_some_point_ran(const std::vector<nlohmann::json>& points);

}  // namespace normsim::cli
