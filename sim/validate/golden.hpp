// The golden cases recorded on a real GPU by gpu_ref (index.json): what each
// case ran and what the card measured.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/simt/kernel_desc.hpp"

namespace normsim::validate {

struct GoldenCase {
  std::string id;
  simt::KernelId kernel{};  ///< as asked
  simt::KernelId ran{};     ///< as normref launched it (v6 may run v5)
  simt::DType dtype = simt::DType::fp32;
  std::string dist;
  int64_t rows = 0, hidden = 0;
  int block = 0;
  int64_t grid = 0;  ///< blocks of the first launch, as normref reported
  uint64_t seed = 0;
  double time_us = 0;    ///< CUDA events, median, L2 flushed before each run
  double copy_gbps = 0;  ///< the same run's copy kernel
  // ncu (caches flushed before the kernel)
  double dram_bytes_read = 0, dram_bytes_written = 0, l2_bytes = 0, duration_us = 0, sm_cycles = 0;
  int registers_per_thread = 0;
  std::map<std::string, std::string> outputs;  ///< "y", "mean", "rstd" -> .npy path (relative to the golden dir)
  /// Rows the outputs keep: all, or (a long-row forward case, normref
  /// --npy-max-elements) the first ones -- from rstd's length.
  int64_t output_rows = 0;
  double dist_mean = 0, dist_sigma = 1, eps = 1e-5;
  double dropout_p = 0;  ///< fused_residual_dropout: the drop probability it ran with
};

/// The golden index is read like a config: at most this many bytes.
inline constexpr uint64_t kMaxGoldenIndexBytes = 64ull << 20;

/// Reads <dir>/index.json; ConfigError (exit 2) naming the file, the case,
/// the key, the value and what is allowed on a malformed one: a duplicate
/// key or case id, a value out of its range, an output path that is absolute
/// or leaves the golden folder (checked before anything is opened).
std::vector<GoldenCase> load_golden(const std::string& dir);

/// The same, from the index's text (`file` for messages; output files are
/// opened under `dir` only for cases whose row count they set).
std::vector<GoldenCase> parse_golden_index(const std::string& text, const std::string& file, const std::string& dir);

/// The counters a baseline holds, in the order of RegressBaseline's rows.
inline constexpr std::array<const char*, 4> kBaselineCounters = {"dram_bytes_read", "dram_bytes_written", "l2_bytes",
                                                                 "duration_us"};

/// Each case's |relative error| per counter when the baseline was taken
/// (regress_baseline.json beside the golden index; `normsim regress
/// --write-baseline`): a later model may not make a case worse by more than
/// Thresholds::baseline_slack. NaN: the counter had no relative error.
struct RegressBaseline {
  std::string gpu;
  std::map<std::string, std::array<double, 4>> cases;
};

/// A golden JSON file's text parsed, refusing a key given twice in one
/// object (nlohmann would keep the last); ConfigError naming `file` otherwise.
nlohmann::json parse_golden_json(const std::string& text, const std::string& file);

/// A regular golden file of at most kMaxGoldenIndexBytes, whole; ConfigError naming it and `what` otherwise.
std::string read_golden_file(const std::string& file, const std::string& what);

/// Reads a baseline; ConfigError (exit 2) naming the file, the key and the value.
RegressBaseline load_regress_baseline(const std::string& file);
RegressBaseline parse_regress_baseline(const std::string& text, const std::string& file);

}  // namespace normsim::validate
