// The `simt` report: a kernel's predicted launches (occupancy, reuse,
// bounds), DRAM and L2 bytes and duration, as JSON and as text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/simt/simt_model.hpp"

namespace normsim::report {

nlohmann::json simt_report_json(const simt::Prediction& p, const simt::GpuArch& gpu);
std::string simt_report_text(const simt::Prediction& p, const simt::GpuArch& gpu);

}  // namespace normsim::report
