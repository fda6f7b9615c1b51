#include "sim/asic/input_path_unit.hpp"

#include "sim/run/functional_run.hpp"

namespace normsim::asic {

InputPathUnit::InputPathUnit(sc_core::sc_module_name n, AccelContext& ctx) : sc_module(n), ctx_(ctx) {
  SC_THREAD(run);
}

void InputPathUnit::run() {
  const int64_t stored = ctx_.path->stored_elems(ctx_.hidden);
  (void)stored;
  // gamma/beta first: read once from DRAM into their on-chip buffer.
  ctx_.params_done = ctx_.dram->read(now_cycles(), static_cast<double>(ctx_.param_bytes), Traffic::params).done;
  for (int64_t r = 0; r < ctx_.rows; ++r) {
    RowSlot* slot = free_slots.read();  // blocks while every row buffer is busy
    slot->row = r;
    if (ctx_.numerics) run::generate_input_row(*ctx_.workload, r, slot->x, &ctx_.numerics->input_saturations);
    ctx_.sram->hold(stored * ctx_.in_bytes);
    slot->sram_write.assign(static_cast<size_t>(ctx_.chunks), Grant{});
    const double t = now_cycles();
    for (int k = 0; k < ctx_.chunks; ++k) {
      const int64_t b = ctx_.chunk_begin(k), e = ctx_.chunk_end(k);
      to_lanes.write(ChunkToken{slot, k, ctx_.chunks, ctx_.dram->read(t, static_cast<double>((e - b) * ctx_.in_bytes), Traffic::input)});
    }
  }
}

}  // namespace normsim::asic
