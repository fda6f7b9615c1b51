#include "sim/asic/normalize_unit.hpp"

namespace normsim::asic {

NormalizeUnit::NormalizeUnit(sc_core::sc_module_name n, AccelContext& ctx) : sc_module(n), ctx_(ctx) {
  SC_THREAD(run);
}

void NormalizeUnit::run() {
  const int64_t stored = ctx_.path->stored_elems(ctx_.hidden);
  // The write buffer holds what the DRAM can have in flight.
  const double write_buffer = static_cast<double>(ctx_.cfg.dram.max_outstanding) * ctx_.cfg.dram.burst_bytes;
  std::vector<Grant> fetch_sram(static_cast<size_t>(ctx_.chunks)), fetch_dram(static_cast<size_t>(ctx_.chunks));
  for (;;) {
    RowSlot* slot = from_rsqrt.read();
    double ready = std::max(free_at_, ctx_.params_done);
    if (slot->t_ready > ready) {
      ctx_.normalize_stalls.dependency += slot->t_ready - ready;
      ready = slot->t_ready;
    }
    wait_until(ready);  // requests below are issued at this cycle
    // The stored part comes back from SRAM once it has been written; the rest
    // is already streaming in through the re-read FIFO.
    for (int k = 0; k < ctx_.chunks; ++k) {
      const int64_t b = ctx_.chunk_begin(k), e = ctx_.chunk_end(k);
      const int64_t sb = std::max<int64_t>(0, std::min(e, stored) - b);
      fetch_sram[k] = sb > 0 ? ctx_.sram->read(ready, static_cast<double>(sb * ctx_.in_bytes), slot->sram_write[k].done)
                             : Grant{ready, ready, ready};
      fetch_dram[k] = (e - b) - sb > 0 ? reread.read() : Grant{ready, ready, ready};
    }
    double t = ready;
    for (int k = 0; k < ctx_.chunks; ++k) {
      const int64_t elems = ctx_.chunk_end(k) - ctx_.chunk_begin(k);
      const double work = ctx_.lane_cycles(elems);
      const Grant& gs = fetch_sram[k];
      const Grant& gd = fetch_dram[k];
      const double start = std::max({t, gs.first_byte, gd.first_byte});
      const double end = std::max({start + work, gs.done, gd.done});
      const double stall = end - t - work;
      if (stall > 0) {
        // Charge the stall to whichever source finished last.
        if (gd.done >= gs.done) {
          double lat = 0, bw = 0;
          BandwidthServer::attribute(gd, t, ctx_.dram->latency(), lat, bw);
          lat = std::min(lat, stall);
          ctx_.normalize_stalls.dram_latency += lat;
          ctx_.normalize_stalls.dram_bandwidth += stall - lat;
        } else {
          ctx_.normalize_stalls.sram_port += stall;
        }
      }
      ctx_.normalize_busy += work;
      // Output: the write buffer must have room for this transaction.
      const double out = static_cast<double>(elems * ctx_.out_bytes);
      double issue = end;
      auto retire_front = [&] {
        write_bytes_in_flight_ -= writes_.front().second;
        writes_.pop_front();
      };
      while (!writes_.empty() && writes_.front().first.done <= issue) retire_front();
      while (!writes_.empty() && write_bytes_in_flight_ + out > write_buffer) {
        if (writes_.front().first.done > issue) {
          ctx_.normalize_stalls.dram_write += writes_.front().first.done - issue;
          issue = writes_.front().first.done;
        }
        retire_front();
      }
      wait_until(issue);
      const Grant gw = ctx_.dram->write(issue, out, Traffic::output);
      writes_.emplace_back(gw, out);
      write_bytes_in_flight_ += out;
      ctx_.last_output_cycle = std::max(ctx_.last_output_cycle, gw.done);
      t = issue;
    }
    // The last outputs leave the pipeline; with K datapaths the next row enters
    // another copy meanwhile, so a row holds the unit for 1/K of the drain.
    t += static_cast<double>(ctx_.cfg.latency.normalize_cycles) / ctx_.cfg.datapaths;
    if (ctx_.cfg.write_stats) {
      const Grant gs = ctx_.dram->write(now_cycles(), ctx_.workload->norm == core::NormKind::layernorm ? 8.0 : 4.0, Traffic::stats);
      ctx_.last_output_cycle = std::max(ctx_.last_output_cycle, gs.done);
    }
    ctx_.last_output_cycle = std::max(ctx_.last_output_cycle, t);
    free_at_ = t;
    if (ctx_.numerics) {
      y_.resize(static_cast<size_t>(ctx_.hidden));
      ctx_.datapath->normalize(slot->state, y_, ctx_.numerics->counters);
      if (ctx_.rtl) ctx_.rtl->check_normalize(slot->row, slot->x, slot->state, y_);
      ctx_.checker->check_row(slot->x, y_, slot->state.stats());
    }
    ctx_.sram->hold(-stored * ctx_.in_bytes);
    ctx_.param_buffer_reads += static_cast<uint64_t>(ctx_.param_bytes);  // gamma/beta read once per row
    ++ctx_.rows_done;
    free_slots.write(slot);  // the row buffer is free once replayed
  }
}

}  // namespace normsim::asic
