// The `run` report: JSON (the command contract of DESIGN.md), a one-line CSV
// with units in its column names, and the console summary table.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/config/arch.hpp"
#include "sim/core/backward_run.hpp"
#include "sim/config/workload.hpp"
#include "sim/core/output_checker.hpp"

namespace normsim::report {

nlohmann::json run_report_json(const config::Workload& w, const config::Arch& a, const core::NumericsResult& n);
/// Header + one row; columns are the JSON leaves, each with its unit in brackets.
/// A report's leaves in order, by their dotted paths ("timing.cycles"); a
/// list is one leaf. The CSV's columns and the Python package's rows.
std::vector<std::pair<std::string, nlohmann::json>> report_leaves(const nlohmann::json& report);
std::string run_report_csv(const nlohmann::json& report);
std::string run_summary_table(const config::Workload& w, const config::Arch& a, const core::NumericsResult& n);

/// A backward run's numerics (docs/REPORTS.md): dx's errors at the top level
/// (the names a forward's y uses, so tables and sweeps read either), dgamma's
/// and dbeta's beside them, and the backward stages' overflows.
nlohmann::json backward_numerics_json(const config::Workload& w, const config::Arch& a, const core::BackwardNumerics& n);
/// The same as the run's text table.
std::string backward_numerics_table(const config::Workload& w, const config::Arch& a, const core::BackwardNumerics& n);

/// Writes report.json, report.csv and (when kept) y.npy in the output's
/// element type (bf16 as its bits, '<u2'), mean.npy (LayerNorm only), rstd.npy, and x.npy in
/// the input's type with y_ref.npy (the fp64 reference) into `dir`, each
/// atomically. Then removes the .npy files of those names that this run did
/// not write (an earlier run's, which would not belong to this report) and
/// returns their names.
/// A backward run's kept outputs (`backward`, non-empty) are dx.npy in the
/// output's type and dgamma.npy, dbeta.npy (LayerNorm) in fp32, instead.
std::vector<std::string> write_run_outputs(const std::string& dir, const config::Workload& w, const core::KeptOutputs& out,
                                           const nlohmann::json& report, const core::BackwardOutputs* backward = nullptr);

/// The warning line of a fixed-point stage whose results overflowed:
/// "overflow: stage 'output': 37 of 2048 results saturated (s16.13, range +-4; ...)".
std::string overflow_warning(const std::string& stage, const core::FixedFormat& f, uint64_t overflows, uint64_t quantizations);

/// The config's warnings and the result's own (non-finite outputs, with their count).
std::vector<std::string> result_warnings(const core::NumericsResult& n);

/// A CSV field: quoted (quotes doubled) when it holds a comma, a quote or a newline.
std::string csv_escape(const std::string& s);

/// The CSV column of a report leaf: its path and its unit, "timing.cycles
/// [cycles]" -- the same header in run's report.csv and sweep's sweep.csv.
std::string csv_column(const std::string& path);

/// A JSON number; a non-finite one stays in memory for check_report_numbers
/// and is written as null (JSON has no Inf/NaN).
nlohmann::json json_number(double v);

}  // namespace normsim::report
