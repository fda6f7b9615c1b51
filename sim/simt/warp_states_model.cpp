#include "sim/simt/warp_states_model.hpp"

#include <algorithm>
#include <cmath>

namespace normsim::simt {

double resident_warps_per_sm(const SubKernel& k, const Occupancy& o, const GpuArch& g) {
  const double warps_per_block = std::ceil(static_cast<double>(k.block) / g.warp_size);
  const double grid = static_cast<double>(k.grid);
  double blocks;
  if (grid <= g.sms) blocks = 1;
  else if (o.waves < 1) blocks = grid / g.sms;
  else blocks = o.blocks_per_sm * o.waves / std::ceil(o.waves);
  return std::min(blocks, static_cast<double>(o.blocks_per_sm)) * warps_per_block;
}

WarpProfile predict_warp_states(const SubKernel& k, const GpuArch& g, const LaunchPrediction& r) {
  WarpProfile p;
  const double clk = g.cycles_per_us();
  const double sms_active = std::min<double>(g.sms, static_cast<double>(k.grid));
  const double main_cycles = r.bounds_us * clk, fill_cycles = r.fill_us * clk, epilogue_cycles = r.epilogue_us * clk;
  // The bounds without block dispatch: while the SMs wait for blocks no warp
  // is resident, so the warps are there for this share of the main phase (Little's law).
  const double q = g.bound_overlap_exponent;
  const double memory_us = r.memory_us;
  const double resident_us =
      std::pow(std::pow(memory_us, q) + std::pow(r.issue_us, q) + std::pow(r.smem_us, q) + std::pow(r.request_us, q), 1.0 / q);
  const double resident_share = r.bounds_us > 0 ? std::min(1.0, resident_us / r.bounds_us) : 1.0;
  const double warps_sm = resident_warps_per_sm(k, r.occ, g) * resident_share;
  const double warps_total = warps_sm * sms_active;
  const double active_cycles = main_cycles + fill_cycles + epilogue_cycles;
  const double issued = std::max(1.0, r.warp_instructions);
  std::array<double, kWarpStates> c{};  // warp cycles per state
  auto at = [&](WarpState s) -> double& { return c[static_cast<size_t>(s)]; };

  const double schedulers = sms_active * g.schedulers_per_sm;
  const double u = std::min(g.issue_per_scheduler, issued / std::max(1.0, schedulers * active_cycles));
  const double warps_per_scheduler = warps_sm / g.schedulers_per_sm;
  at(WarpState::selected) = issued;
  at(WarpState::not_selected) = issued * std::min(u / (1 - u), std::max(0.0, warps_per_scheduler - 1));

  // The row chain, once per warp and row. Every issue holds its warp for
  // the control code's stall count (the SASS's mean): the cycles beyond the
  // issue are ncu's `wait`.
  const double warps_per_row = static_cast<double>(k.threads_per_row) / g.warp_size;
  const double warp_rows = static_cast<double>(k.rows) * warps_per_row;
  const RowChain& ch = r.chain;
  at(WarpState::long_scoreboard) = warp_rows * ch.global_load;
  at(WarpState::short_scoreboard) = warp_rows * (ch.shared_load + ch.shuffle + ch.smem);
  at(WarpState::barrier) = warp_rows * ch.barrier;
  at(WarpState::wait) = issued * std::max(0.0, k.mean_stall_cycles - 1);

  double base = 0;
  for (double v : c) base += v;
  const double main_warp_cycles = warps_total * main_cycles;
  if (main_warp_cycles > base) {
    // The stretch, by the bounds' shares of their p-norm. Issue throughput
    // is in not_selected's queue already; block dispatch holds no warps.
    const double parts[] = {std::pow(memory_us, q), std::pow(r.smem_us, q), std::pow(r.request_us, q)};
    double sum = 0;
    for (double v : parts) sum += v;
    const double stretch = main_warp_cycles - base;
    auto share = [&](int i) { return sum > 0 ? stretch * parts[i] / sum : (i == 0 ? stretch : 0.0); };
    // A row's warps that meet at a barrier wait there for the slowest: of w
    // warps whose loads land spread evenly over the stretch, (w - 1) / 2w of it.
    const double w = std::max(1.0, warps_per_row);
    const double at_barrier = ch.barrier > 0 ? (w - 1) / (2 * w) : 0.0;
    // Scattered loads queued as L1-miss requests are loads in flight too: long scoreboard.
    const double loads = share(0) + share(2);
    at(WarpState::long_scoreboard) += loads * (1 - at_barrier);
    at(WarpState::barrier) += loads * at_barrier;
    at(WarpState::mio_throttle) += share(1);
  } else if (base > issued) {
    // The chain overlaps more than the bounds say: every stall shrinks alike.
    const double scale = std::max(0.0, main_warp_cycles - issued) / (base - issued);
    for (size_t i = 0; i < kWarpStates; ++i)
      if (static_cast<WarpState>(i) != WarpState::selected) c[i] *= scale;
  }
  at(WarpState::long_scoreboard) += warps_total * fill_cycles;
  // The scalar epilogue: a warp's operations wait for room in the LSU's
  // queue, which the L2 empties at its rate, until the last has left; then
  // the warp drains. One operation in n is drained, the rest throttled.
  const double ops = k.epilogue_atomics_per_thread + k.epilogue_stores_per_thread;
  if (ops > 0) {
    at(WarpState::lg_throttle) += warps_total * epilogue_cycles * (ops - 1) / ops;
    at(WarpState::drain) += warps_total * epilogue_cycles / ops;
  }

  double total = 0;
  for (double v : c) total += v;
  for (size_t i = 0; i < kWarpStates; ++i) p.share[i] = total > 0 ? c[i] / total : 0.0;
  p.warp_cycles_per_issue = total / issued;
  p.achieved_occupancy = warps_sm * g.warp_size / g.max_threads_per_sm;
  p.issue_active = u;
  p.dram_throughput = r.duration_us > 0 ? (r.dram_bytes_read + r.dram_bytes_written) /
                                              (r.duration_us * 1e-6 * g.dram.peak_bytes_per_s.value())
                                        : 0.0;
  // No spill traffic: ptxas reports 8-12 bytes a thread for three fast_norm
  // functions (a stack slot), none for the others.
  p.local_memory_bytes = 0;
  return p;
}

}  // namespace normsim::simt
