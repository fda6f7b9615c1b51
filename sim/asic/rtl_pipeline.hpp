// `normsim run --rtl`: the verilated norm_row_pipeline (rtl_models/, built at
// the embedded default arch's formats) in lock step with the SystemC model.
// At each row's statistics and again at its normalise pass, the model's
// units post the row to the RTL's driver thread, which runs it through the
// pins at the same simulated time -- clocked in delta cycles, so the model's
// own timing is untouched -- and the RTL's mean, variance,
// rstd and y must equal sim/core's bit for bit, and its pipeline must take
// exactly the cycles the model's latency parameters say. Any difference
// stops the run.
#pragma once

#include <systemc.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/config/arch.hpp"
#include "sim/core/norm_datapath.hpp"

namespace normsim::asic {

/// Empty when `arch` with this datapath can run on the built RTL, else why
/// not (naming the key that differs).
std::string rtl_pipeline_mismatch(const config::Arch& arch, const core::DatapathConfig& dp);

class RtlPipeline {
 public:
  RtlPipeline(const config::Arch& arch, const core::DatapathConfig& dp, std::span<const float> gamma,
              std::span<const float> beta);
  ~RtlPipeline();
  /// Queues the row's statistics for the RTL (compared with the model's `s`).
  void post_stats(int64_t row, std::span<const double> x, const core::RowState& s);
  /// Queues the row's normalise pass for the RTL (compared with the model's y).
  void post_normalize(int64_t row, std::span<const double> x, const core::RowState& s, std::span<const double> y);

  int64_t rows_checked() const { return rows_; }
  int64_t rtl_cycles() const { return cycles_; }  ///< RTL clock cycles simulated
  int stats_latency_cycles() const { return stats_latency_; }    ///< last x beat -> stats_valid
  int normalize_latency_cycles() const { return norm_latency_; }  ///< n beat -> y
  double seconds() const { return seconds_; }  ///< wall time spent driving the RTL

  struct Impl;
  struct Driver;

 private:
  void check_stats(int64_t row, std::span<const double> x, const core::RowState& s);
  void check_normalize(int64_t row, std::span<const double> x, const core::RowState& s, std::span<const double> y);
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<Driver> driver_;
  int64_t rows_ = 0, cycles_ = 0;
  int stats_latency_ = 0, norm_latency_ = 0;
  double seconds_ = 0;
};

}  // namespace normsim::asic
