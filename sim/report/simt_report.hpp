// The `simt` report: a kernel's predicted launches (occupancy, reuse,
// bounds), DRAM and L2 bytes and duration, as JSON and as text.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sim/simt/simt_model.hpp"

namespace normsim::report {

nlohmann::json simt_report_json(const simt::Prediction& p, const simt::GpuArch& gpu);
std::string simt_report_text(const simt::Prediction& p, const simt::GpuArch& gpu);

/// ncu's measurement of the same launch (a golden case), shown beside the prediction.
struct MeasuredWarps {
  std::string case_id;
  simt::WarpProfile warps;
};

/// `simt --explain`: per launch and for the plan, where the warps spend
/// their cycles, occupancy, issue activity, DRAM throughput, the limiter and
/// the optimisation it implies (simt/limiter.hpp); ncu's beside it when given.
/// `no_ncu`: why ncu's column is absent when `ncu` is empty (no golden
/// folder, or no golden case ran this launch), said in the report.
nlohmann::json simt_explain_json(const simt::Prediction& p, const std::optional<MeasuredWarps>& ncu, const std::string& no_ncu);
std::string simt_explain_text(const simt::Prediction& p, const std::optional<MeasuredWarps>& ncu, const std::string& no_ncu);

}  // namespace normsim::report
