#include "sim/asic/normalize_unit.hpp"

namespace normsim::asic {

NormalizeUnit::NormalizeUnit(sc_core::sc_module_name n, AccelContext& ctx)
    : sc_module(n),
      ctx_(ctx),
      write_buffer_bytes_(static_cast<double>(ctx.cfg.dram.max_outstanding) * ctx.cfg.dram.burst_bytes),
      fetch_sram_(static_cast<size_t>(ctx.chunks)),
      fetch_dram_(static_cast<size_t>(ctx.chunks)) {
  stalls_.register_in(stats_);
  stats_.add("busy_cycles", "cycles", "cycles the unit normalised elements", &busy_cycles_);
  stats_.add("param_buffer_read_bytes", "bytes", "gamma/beta bytes read from their on-chip buffer", &param_buffer_read_bytes_);
  stats_.add("reread_fifo_read_bytes", "bytes", "re-read bytes taken from the re-read FIFO", &reread_fifo_read_bytes_);
  SC_METHOD(step);
}

void NormalizeUnit::step() {
  const int64_t stored = ctx_.stored_elems;
  for (;;) {
    switch (phase_) {
      case Phase::take: {
        if (!from_rsqrt.nb_read(slot_)) {
          next_trigger(from_rsqrt.data_written_event());
          return;
        }
        double ready = std::max(free_at_, ctx_.params_done);
        if (slot_->t_ready > ready) {
          stalls_.dependency += slot_->t_ready - ready;
          ready = slot_->t_ready;
        }
        ready_ = ready;
        k_ = 0;
        phase_ = Phase::start;
        if (trigger_at(ready_)) return;  // the requests below are issued at this cycle
        break;
      }
      case Phase::start:
      case Phase::fetch:
        // The stored part comes back from SRAM once it has been written; the
        // rest is already streaming in through the re-read FIFO.
        for (; k_ < ctx_.chunks; ++k_) {
          const int64_t b = ctx_.chunk_begin(k_), e = ctx_.chunk_end(k_);
          const int64_t sb = std::max<int64_t>(0, std::min(e, stored) - b);
          const auto k = static_cast<size_t>(k_);
          // The replay address generator runs ahead of the lanes: the row's
          // SRAM reads go out the SRAM's latency before the lanes are ready
          // (never before the previous row's), so a pipelined SRAM's latency
          // is paid once, not per row -- it would otherwise bound short rows
          // on many datapaths, where a row takes about a cycle.
          if (phase_ == Phase::start) {
            const double issue = std::max(replay_issued_, ready_ - ctx_.sram->latency());
            if (sb > 0) replay_issued_ = issue;
            fetch_sram_[k] = sb > 0 ? ctx_.sram->read(issue, static_cast<double>(sb * ctx_.in_bytes),
                                                       slot_->sram_write[k].done)
                                    : Grant{ready_, ready_, ready_};
          }
          phase_ = Phase::start;
          if ((e - b) - sb > 0) {
            if (!reread.nb_read(fetch_dram_[k])) {
              phase_ = Phase::fetch;  // the SRAM read is out; wait for the re-read
              next_trigger(reread.data_written_event());
              return;
            }
            reread_fifo_read_bytes_ += static_cast<uint64_t>(((e - b) - sb) * ctx_.in_bytes);
          } else {
            fetch_dram_[k] = Grant{ready_, ready_, ready_};
          }
        }
        t_ = ready_;
        k_ = 0;
        schedule_chunk();
        phase_ = Phase::write;
        if (trigger_at(issue_)) return;
        break;
      case Phase::write:  // at issue_
        write_chunk();
        if (++k_ < ctx_.chunks) {
          schedule_chunk();
          if (trigger_at(issue_)) return;
          break;
        }
        finish_row();
        phase_ = Phase::hand_back;
        [[fallthrough]];
      case Phase::hand_back:
        if (!free_slots.nb_write(slot_)) {  // the row buffer is free once replayed
          next_trigger(free_slots.data_read_event());
          return;
        }
        phase_ = Phase::take;
        break;
    }
  }
}

void NormalizeUnit::schedule_chunk() {
  const auto k = static_cast<size_t>(k_);
  const int64_t elems = ctx_.chunk_end(k_) - ctx_.chunk_begin(k_);
  const double work = ctx_.lane_cycles(elems);
  const Grant& gs = fetch_sram_[k];
  const Grant& gd = fetch_dram_[k];
  const double start = std::max({t_, gs.first_byte, gd.first_byte});
  const double end = std::max({start + work, gs.done, gd.done});
  const double stall = end - t_ - work;
  if (stall > 0) {
    // Charge the stall to whichever source finished last.
    if (gd.done >= gs.done) {
      double lat = 0, bw = 0;
      BandwidthServer::attribute(gd, t_, ctx_.dram->latency(), lat, bw);
      lat = std::min(lat, stall);
      stalls_.dram_latency += lat;
      stalls_.dram_bandwidth += stall - lat;
    } else {
      stalls_.sram_port += stall;
    }
  }
  busy_cycles_ += work;
  // Output: the write buffer must have room for this transaction.
  const double out = static_cast<double>(elems * ctx_.out_bytes);
  issue_ = end;
  auto retire_front = [&] {
    write_bytes_in_flight_ -= writes_.front().second;
    writes_.pop_front();
  };
  while (!writes_.empty() && writes_.front().first.done <= issue_) retire_front();
  while (!writes_.empty() && write_bytes_in_flight_ + out > write_buffer_bytes_) {
    if (writes_.front().first.done > issue_) {
      stalls_.dram_write += writes_.front().first.done - issue_;
      issue_ = writes_.front().first.done;
    }
    retire_front();
  }
}

void NormalizeUnit::write_chunk() {
  const int64_t elems = ctx_.chunk_end(k_) - ctx_.chunk_begin(k_);
  const double out = static_cast<double>(elems * ctx_.out_bytes);
  const Grant gw = ctx_.dram->write(issue_, out, Traffic::output);
  writes_.emplace_back(gw, out);
  write_bytes_in_flight_ += out;
  // The pipeline's latency lies on the output path: a chunk's last outputs
  // leave normalize_cycles after its last element went in. The port sees
  // the write when that element is computed (requests stay in time order;
  // the latency is small against the DRAM's), so it is added here.
  last_output_cycle_ = std::max(last_output_cycle_, gw.done + ctx_.cfg.latency.normalize_cycles);
  t_ = issue_;
}

void NormalizeUnit::finish_row() {
  // Pipelined across rows: the next row's first elements enter the cycle
  // after this row's last (its outputs are still in the pipeline's latency).
  if (ctx_.cfg.write_stats) {
    const Grant gs = ctx_.dram->write(now_cycles(), ctx_.workload->norm == core::NormKind::layernorm ? 8.0 : 4.0, Traffic::stats);
    last_output_cycle_ = std::max(last_output_cycle_, gs.done);
  }
  last_output_cycle_ = std::max(last_output_cycle_, t_);
  free_at_ = t_;
  if (ctx_.numerics) {
    y_.resize(static_cast<size_t>(ctx_.hidden));
    ctx_.datapath->normalize(slot_->state, y_, ctx_.numerics->counters);
    if (ctx_.rtl) ctx_.rtl->post_normalize(slot_->row, slot_->x, slot_->state, y_);
    ctx_.checker->check_row(slot_->row, slot_->x, y_, slot_->state.stats(), *ctx_.numerics);
  }
  ctx_.sram->hold(-ctx_.stored_elems * ctx_.in_bytes);
  param_buffer_read_bytes_ += static_cast<uint64_t>(ctx_.param_bytes);  // gamma/beta read once per row
  ++ctx_.rows_done;
  if (ctx_.rows_done_out) ctx_.rows_done_out->store(ctx_.rows_done, std::memory_order_relaxed);
}

}  // namespace normsim::asic
