#include "sim/asic/norm_accelerator.hpp"

namespace normsim::asic {

namespace {
int fifo_depth(const AccelContext& ctx) { return std::max(2, ctx.cfg.rows_in_flight * ctx.chunks); }
}  // namespace

NormAccelerator::NormAccelerator(sc_core::sc_module_name n, AccelContext& ctx)
    : sc_module(n),
      dram("dram", ctx.cfg.dram),
      sram("sram", ctx.cfg.sram),
      input_path("input_path", ctx),
      merge_tree("chan_merge_tree", ctx),
      rsqrt("rsqrt", ctx),
      lanes("welford_lanes", ctx, merge_tree, rsqrt),
      normalize("normalize", ctx),
      reread("reread_stream", ctx),
      free_slots_("free_row_buffers", ctx.cfg.rows_in_flight),
      stats_to_normalize_("stats_to_normalize", ctx.cfg.rows_in_flight),
      input_to_lanes_("input_to_lanes", fifo_depth(ctx)),
      reread_fifo_("reread_fifo", ctx.reread_fifo_transactions),
      ctx_(ctx) {
  ctx.dram = &dram;
  ctx.sram = &sram;
  for (int i = 0; i < ctx.cfg.rows_in_flight; ++i) {
    slots_.push_back(std::make_unique<RowSlot>());
    slots_.back()->index = i;
    free_slots_.preload(slots_.back().get());
  }
  input_path.free_slots(free_slots_);
  input_path.to_lanes(input_to_lanes_);
  lanes.from_input(input_to_lanes_);
  lanes.to_normalize(stats_to_normalize_);
  normalize.from_rsqrt(stats_to_normalize_);
  normalize.free_slots(free_slots_);
  normalize.reread(reread_fifo_);
  reread.to_normalize(reread_fifo_);
  ctx.sram->hold(ctx.param_bytes);  // gamma/beta live on chip for the whole run
  SC_THREAD(trace_process);
}

std::vector<core::StatSet> NormAccelerator::stats() const {
  return {lanes.stats().snapshot(), merge_tree.stats().snapshot(), normalize.stats().snapshot(), dram.stats().snapshot(),
          sram.stats().snapshot()};
}

void NormAccelerator::trace(sc_core::sc_trace_file* tf) {
  tracing_ = true;
  sc_core::sc_trace(tf, free_row_buffers_, "free_row_buffers");
  sc_core::sc_trace(tf, rows_in_lanes_, "chunks_waiting_for_lanes");
  sc_core::sc_trace(tf, rows_in_normalize_, "rows_waiting_for_normalize");
  sc_core::sc_trace(tf, dram_bytes_read_, "dram_bytes_read");
  sc_core::sc_trace(tf, dram_bytes_written_, "dram_bytes_written");
  sc_core::sc_trace(tf, sram_occupancy_, "sram_row_bytes_held");
}

void NormAccelerator::trace_process() {
  if (!tracing_) return;
  // Sample once a cycle for the first rows (the trace is for looking, not for counting).
  const int64_t trace_rows = std::min<int64_t>(ctx_.rows, 8);
  while (ctx_.rows_done < trace_rows) {
    free_row_buffers_.write(free_slots_.num_available());
    rows_in_lanes_.write(input_to_lanes_.num_available());
    rows_in_normalize_.write(stats_to_normalize_.num_available());
    dram_bytes_read_.write(static_cast<double>(dram.bytes_read()));
    dram_bytes_written_.write(static_cast<double>(dram.bytes_written()));
    sram_occupancy_.write(static_cast<double>(sram.held_bytes()));
    wait(sc_core::sc_time(1, sc_core::SC_NS));
  }
}

}  // namespace normsim::asic
