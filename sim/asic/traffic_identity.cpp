#include "sim/asic/traffic_identity.hpp"

#include <algorithm>
#include <cmath>

#include "sim/asic/replay_path.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/merge_schedule.hpp"

namespace normsim::asic {

int stats_bytes_per_row(const config::Workload& w) { return w.norm == core::NormKind::layernorm ? 8 : 4; }

int saved_stats_bytes_per_row(const config::Workload& w, const AsicConfig& c) {
  return w.norm == core::NormKind::rmsnorm || c.backward.xhat == config::XhatSource::stored ? 4 : 8;
}

int param_grad_count(const config::Workload& w) { return w.norm == core::NormKind::layernorm ? 2 : 1; }

int param_grad_acc_bytes(const config::Arch& a) {
  if (a.arithmetic != core::Arithmetic::fixed || !a.backward_formats) return 4;
  return ((*a.backward_formats)[static_cast<int>(core::BackwardStage::dgamma)].total_bits + 7) / 8;
}

int row_elem_bytes(const config::Workload& w) {
  return core::elem_bytes(w.input.dtype) + (w.is_backward() ? core::elem_bytes(w.backward.dy.dtype) : 0);
}

int param_elem_bytes(const config::Arch& a, core::Stage stage) {
  if (a.arithmetic != core::Arithmetic::fixed) return 4;
  return (a.formats[static_cast<int>(stage)].total_bits + 7) / 8;
}

int64_t param_bytes(const config::Workload& w, const config::Arch& a) {
  const bool beta = w.beta && !w.is_backward();  // the backward reads gamma alone
  return w.hidden * (param_elem_bytes(a, core::Stage::gamma) + (beta ? param_elem_bytes(a, core::Stage::beta) : 0));
}

int64_t transaction_elems(const config::Workload& w, const AsicConfig& c) {
  const int64_t in = core::elem_bytes(w.input.dtype);
  const int64_t window = static_cast<int64_t>(c.dram.max_outstanding) * c.dram.burst_bytes;
  const int64_t cap = std::max<int64_t>(1, window / 16 / in);
  return std::max<int64_t>(1, std::min({w.hidden, c.transaction_elems, cap}));
}

uint64_t reread_fifo_target_bytes(const AsicConfig& c) {
  if (c.reread_fifo_bytes > 0) return c.reread_fifo_bytes;
  const DramPort port = c.dram_port();
  const double bytes = (port.sustained_bytes_per_cycle * core::Cycles(port.latency_cycles.value())).value();
  const double bursts = std::ceil(bytes / c.dram.burst_bytes);
  return static_cast<uint64_t>(std::max(1.0, bursts)) * static_cast<uint64_t>(c.dram.burst_bytes);
}

int reread_fifo_transactions(const config::Workload& w, const AsicConfig& c) {
  const uint64_t chunk = static_cast<uint64_t>(transaction_elems(w, c)) * static_cast<uint64_t>(row_elem_bytes(w));
  return static_cast<int>(std::max<uint64_t>(1, reread_fifo_target_bytes(c) / chunk));
}

Fusion fusion_of(const config::Workload& w, const config::Arch& a) {
  // A backward whose forward kept z reads it as its input: nothing to add.
  if (!w.residual || (w.is_backward() && !w.backward_remakes_sum())) return Fusion::none;
  return config::unit_adds_residual(w, a) ? Fusion::fused : Fusion::separate_adder;
}

TrafficIdentity traffic_identity(const config::Workload& w, const config::Arch& a, const AsicConfig& c) {
  TrafficIdentity t;
  const uint64_t in = static_cast<uint64_t>(core::elem_bytes(w.input.dtype));
  const uint64_t out = static_cast<uint64_t>(core::elem_bytes(w.output.dtype));
  const uint64_t N = static_cast<uint64_t>(w.rows), C = static_cast<uint64_t>(w.hidden);
  const uint64_t stored = static_cast<uint64_t>(replay_stored_elems(c, w.hidden));
  const uint64_t reread = C - stored;
  t.param_bytes = static_cast<uint64_t>(param_bytes(w, a));
  auto& kind = t.dram_bytes;
  kind[static_cast<int>(Traffic::input)] = N * C * in;  // x, or z after a separate adder (stored in x's type)
  kind[static_cast<int>(Traffic::input_reread)] = N * reread * in;
  kind[static_cast<int>(Traffic::params)] = t.param_bytes;
  kind[static_cast<int>(Traffic::output)] = N * C * out;
  kind[static_cast<int>(Traffic::stats)] = c.write_stats ? N * static_cast<uint64_t>(stats_bytes_per_row(w)) : 0;
  const uint64_t rb = w.residual ? static_cast<uint64_t>(core::elem_bytes(w.residual->tensor.dtype)) : 0;
  switch (fusion_of(w, a)) {
    case Fusion::none: break;
    case Fusion::fused:  // r read beside x; z written when kept, else the part the path re-reads (it must be in DRAM first)
      kind[static_cast<int>(Traffic::residual)] = N * C * rb;
      kind[static_cast<int>(Traffic::sum)] = (w.residual->sum_written() ? N * C : N * reread) * in;
      break;
    case Fusion::separate_adder:  // x and r read, z written, before the unit reads z as its input
      kind[static_cast<int>(Traffic::adder_read)] = N * C * (in + rb);
      kind[static_cast<int>(Traffic::adder_write)] = N * C * in;
      break;
  }
  // The backward: dy beside x (kept and re-read with it), the forward's
  // statistics read instead of written, dgamma/dbeta by their path.
  const uint64_t row_elem = static_cast<uint64_t>(row_elem_bytes(w));
  uint64_t acc_sram = 0;  // the on-chip accumulator's read-modify-write bytes (each way)
  if (w.is_backward()) {
    const uint64_t dyb = static_cast<uint64_t>(core::elem_bytes(w.backward.dy.dtype));
    const uint64_t P = static_cast<uint64_t>(param_grad_count(w)), acc = static_cast<uint64_t>(param_grad_acc_bytes(a));
    kind[static_cast<int>(Traffic::stats)] = 0;
    kind[static_cast<int>(Traffic::grad)] = N * C * dyb;
    kind[static_cast<int>(Traffic::grad_reread)] = N * reread * dyb;
    kind[static_cast<int>(Traffic::saved_stats)] = N * static_cast<uint64_t>(saved_stats_bytes_per_row(w, c));
    if (w.writes_branch_grad()) {  // beside dz, or by a separate pass that reads dz back (fuse none)
      kind[static_cast<int>(Traffic::branch_grad)] = N * C * out;
      if (a.fuse.mode == config::FuseMode::none) kind[static_cast<int>(Traffic::branch_pass_read)] = N * C * out;
    }
    const uint64_t partials = (N + static_cast<uint64_t>(c.param_grad_accumulator.partial_rows) - 1) / static_cast<uint64_t>(c.param_grad_accumulator.partial_rows);
    switch (c.param_grad_accumulator.path) {
      case config::ParamGradPath::onchip:  // every row's RMW in SRAM, the total read out once and written in fp32
        kind[static_cast<int>(Traffic::param_grads)] = P * C * 4;
        acc_sram = N * P * C * acc;
        t.accumulator_bytes = P * C * acc;
        break;
      case config::ParamGradPath::partials:  // ... and every partial_rows rows read out to DRAM; the second pass sums them
        kind[static_cast<int>(Traffic::partials)] = partials * P * C * acc;
        kind[static_cast<int>(Traffic::partials_read)] = partials * P * C * acc;
        kind[static_cast<int>(Traffic::param_grads)] = P * C * 4;
        acc_sram = N * P * C * acc;
        t.accumulator_bytes = P * C * acc;
        break;
      case config::ParamGradPath::dram_rmw:  // no accumulator: every row reads (after the first) and writes it in DRAM
        kind[static_cast<int>(Traffic::grad_acc_read)] = (N - 1) * P * C * acc;
        kind[static_cast<int>(Traffic::grad_acc_write)] = N * P * C * acc;
        break;
    }
    // The accumulator is read out once at the end (onchip) or once a partial.
    t.sram_bytes_read += c.param_grad_accumulator.path == config::ParamGradPath::onchip ? P * C * acc
                         : c.param_grad_accumulator.path == config::ParamGradPath::partials ? partials * P * C * acc
                                                                                    : 0;
  }
  for (int k = 0; k < kTrafficKinds; ++k)
    (is_read(static_cast<Traffic>(k)) ? t.dram_bytes_read : t.dram_bytes_written) += kind[static_cast<size_t>(k)];
  // The row buffers are written as the lanes consume and read back to
  // normalise; the parameters are written once and read every row; the
  // re-read passes through its FIFO; the backward's accumulator is read and
  // written for every element.
  t.sram_bytes_written += N * stored * row_elem + t.param_bytes + N * reread * row_elem + acc_sram;
  t.sram_bytes_read += N * stored * row_elem + N * t.param_bytes + N * reread * row_elem + acc_sram;
  t.sram_row_buffer_bytes = replay_row_buffer_bytes(c, w.hidden, static_cast<int>(row_elem), c.rows_in_flight);
  if (reread > 0) {
    const uint64_t chunk = static_cast<uint64_t>(transaction_elems(w, c)) * row_elem;
    t.reread_fifo_bytes = static_cast<uint64_t>(reread_fifo_transactions(w, c)) * chunk;
  }
  const double dram_cycles = (core::Bytes(static_cast<double>(t.dram_bytes_read + t.dram_bytes_written)) / c.dram_port().sustained_bytes_per_cycle).value();
  // A row holds the lanes ceil(C/L) cycles and shared merge units their
  // occupancy; the slower of the two sets the rate.
  const core::MergeSchedule merge{a.lanes, a.merge.units};
  const double merge_occupancy = merge.shared() ? merge.occupancy_cycles(c.tree_level_cycles(w.is_backward())) : 0;
  const double per_row = std::max(std::ceil(static_cast<double>(C) / a.lanes), merge_occupancy);
  const double lane_cycles = static_cast<double>(N) * per_row / c.datapaths;
  t.lower_bound_cycles = std::max(dram_cycles, lane_cycles);
  return t;
}

}  // namespace normsim::asic
