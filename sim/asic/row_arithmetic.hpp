// The arithmetic the units run on each row as it passes them: sim/core's
// datapath stage by stage, the output check, where their counts go, and the
// lock-stepped RTL (`run --rtl`). Only a run whose numerics run inside the
// units has one; the units take a null pointer otherwise (timing only, or
// numerics beside the simulation, core::run_functional), and no cycle
// depends on which.
#pragma once

#include "sim/asic/rtl_pipeline.hpp"
#include "sim/config/workload.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/core/output_checker.hpp"

namespace normsim::asic {

struct RowArithmetic {
  const config::Workload* workload = nullptr;  ///< the rows' inputs (core::datapath_input_row)
  core::NormDatapath* datapath = nullptr;
  core::OutputChecker* checker = nullptr;
  core::NumericsResult* numerics = nullptr;
  RtlPipeline* rtl = nullptr;  ///< lock-stepped RTL (--rtl), else null
};

}  // namespace normsim::asic
