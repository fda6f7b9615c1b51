#include "sim/asic/normalize_unit.hpp"

#include <algorithm>

#include "sim/asic/sim_time.hpp"

namespace normsim::asic {

NormalizeUnit::NormalizeUnit(sc_core::sc_module_name n, const RunGeometry& g, const Config& cfg, double dram_window_bytes,
                             RowArithmetic* arith)
    : sc_module(n),
      g_(g),
      cfg_(cfg),
      arith_(arith),
      write_buffer_bytes_(dram_window_bytes),
      fetch_sram_(static_cast<size_t>(g.chunks)),
      fetch_dram_(static_cast<size_t>(g.chunks)) {
  stalls_.register_in(stats_);
  stats_.add("busy_cycles", "cycles", "cycles the unit normalised elements", &busy_cycles_);
  stats_.add("param_buffer_read_bytes", "bytes", "gamma/beta bytes read from their on-chip buffer", &param_buffer_read_bytes_);
  stats_.add("reread_fifo_read_bytes", "bytes", "re-read bytes taken from the re-read FIFO", &reread_fifo_read_bytes_);
  SC_METHOD(step);
  if (g_whole_cycles) {
    SC_METHOD(replay_generator);
  }
}

void NormalizeUnit::period_state(PeriodState& s) const {
  s.time(free_at_);
  s.time(replay_issued_);
  s.queue(writes_);
  s.value(write_bytes_in_flight_);
  s.value(static_cast<double>(phase_));
  s.slot(slot_);
  s.time(ready_);
  s.time(t_);
  s.time(issue_);
  s.value(k_);
  s.grants(fetch_sram_);
  s.grants(fetch_dram_);
  s.time(last_output_cycle_);
  s.row_index(rows_done_ - 1);
  if (!g_whole_cycles) return;  // the replay generator's
  s.value(static_cast<double>(rows_generated_ - rows_done_));
  s.value(static_cast<double>(rows_scheduled_ - rows_done_));
  s.time(row_end_);
  s.slot(generating_);
  s.time(generating_ready_);
  s.value(static_cast<double>(replays_.size()));
  for (const Replay& r : replays_) {
    s.slot(r.slot);
    s.time(r.ready);
    s.grants(r.sram);
  }
}

void NormalizeUnit::replay_generator() {
  if (await_slot()) return;  // clocked: act in this unit's slot of the cycle
  for (;;) {
    if (!generating_) {
      // A row ahead at most: row r is taken once row r - 1's end is known.
      if (rows_scheduled_ < rows_generated_) {
        next_trigger(row_end_known_);
        return;
      }
      if (!from_stats.nb_read(generating_)) {
        next_trigger(from_stats.data_written_event());
        return;
      }
      // The row starts once the unit is free (the row before has ended),
      // gamma/beta are on chip, and its statistics are out of the pipeline.
      const double free = std::max(row_end_, params_on_chip->cycle());
      generating_ready_ = std::max(free, generating_->t_ready);
      stalls_.dependency += generating_ready_ - free;
    }
    if (trigger_at(std::max(replay_issued_, generating_ready_ - sram->latency()))) return;
    Replay r{generating_, generating_ready_, std::vector<Grant>(static_cast<size_t>(g_.chunks))};
    for (int k = 0; k < g_.chunks; ++k) r.sram[static_cast<size_t>(k)] = replay_read(*generating_, k, now_cycles(), r.ready);
    replays_.push_back(std::move(r));
    replay_issued_event_.notify(sc_core::SC_ZERO_TIME);
    generating_ = nullptr;
    ++rows_generated_;
  }
}

void NormalizeUnit::step() {
  if (await_slot()) return;  // clocked: act in this unit's slot of the cycle
  for (;;) {
    switch (phase_) {
      case Phase::take: {
        if (g_whole_cycles) {  // the generator took the row and issued its reads
          if (replays_.empty()) {
            next_trigger(replay_issued_event_);
            return;
          }
          slot_ = replays_.front().slot;
          ready_ = replays_.front().ready;
          fetch_sram_ = std::move(replays_.front().sram);
          replays_.pop_front();
          k_ = 0;
          phase_ = Phase::start;
          if (trigger_at(ready_)) return;
          break;
        }
        if (!from_stats.nb_read(slot_)) {
          next_trigger(from_stats.data_written_event());
          return;
        }
        // The input path reads gamma/beta before any row, so they are announced by now.
        double ready = std::max(free_at_, params_on_chip->cycle());
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
        for (; k_ < g_.chunks; ++k_) {
          const int64_t db = g_.reread_in_chunk(k_);
          const auto k = static_cast<size_t>(k_);
          // The replay address generator runs ahead of the lanes: the row's
          // SRAM reads go out the SRAM's latency before the lanes are ready
          // (never before the previous row's), so a pipelined SRAM's latency
          // is paid once, not per row -- it would otherwise bound short rows
          // on many datapaths, where a row takes about a cycle.
          if (phase_ == Phase::start && !g_whole_cycles) {
            fetch_sram_[k] = replay_read(*slot_, k_, std::max(replay_issued_, ready_ - sram->latency()), ready_);
          }
          phase_ = Phase::start;
          if (db > 0) {
            if (!reread.nb_read(fetch_dram_[k])) {
              phase_ = Phase::fetch;  // the SRAM read is out; wait for the re-read
              next_trigger(reread.data_written_event());
              return;
            }
            reread_fifo_read_bytes_ += static_cast<uint64_t>(db * g_.row_elem_bytes());
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
        if (++k_ < g_.chunks) {
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

Grant NormalizeUnit::replay_read(const RowSlot& row, int k, double at, double ready) {
  const int64_t sb = g_.stored_in_chunk(k);
  if (sb <= 0) return Grant{ready, ready, ready};  // nothing kept: the transaction is all re-read
  replay_issued_ = at;
  return sram->read(at, static_cast<double>(sb * g_.row_elem_bytes()), row.sram_write[static_cast<size_t>(k)].done);
}

void NormalizeUnit::schedule_chunk() {
  const auto k = static_cast<size_t>(k_);
  const int64_t elems = g_.chunk_size(k_);
  const double work = g_.lane_cycles(elems);
  const Grant& gs = fetch_sram_[k];
  const Grant& gd = fetch_dram_[k];
  const double start = std::max({t_, gs.first_byte, gd.first_byte});
  const double end = std::max({start + work, gs.done, gd.done});
  const double stall = end - t_ - work;
  if (stall > 0) {
    // Charge the stall to whichever source finished last.
    if (gd.done >= gs.done) {
      double lat = 0, bw = 0;
      BandwidthServer::attribute(gd, t_, dram->latency(), lat, bw);
      lat = std::min(lat, stall);
      stalls_.dram_latency += lat;
      stalls_.dram_bandwidth += stall - lat;
    } else {
      stalls_.sram_port += stall;
    }
  }
  busy_cycles_ += work;
  // Output: the write buffer must have room for this transaction.
  const double out = static_cast<double>(elems * (g_.out_bytes + g_.branch_grad_bytes));
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
  if (g_whole_cycles && k_ + 1 == g_.chunks) {  // the row's end is known: the generator may take the next
    row_end_ = issue_;
    ++rows_scheduled_;
    row_end_known_.notify(sc_core::SC_ZERO_TIME);
  }
}

void NormalizeUnit::write_chunk() {
  const double out = static_cast<double>(g_.chunk_size(k_) * g_.out_bytes);
  Grant gw = dram->write(request_cycle(issue_), out, Traffic::output);
  if (g_.branch_grad_bytes) {  // the branch's gradient leaves beside dz, through the same write buffer
    const double branch = static_cast<double>(g_.chunk_size(k_) * g_.branch_grad_bytes);
    const Grant gb = dram->write(request_cycle(issue_), branch, Traffic::branch_grad);
    gw.done = std::max(gw.done, gb.done);
    write_bytes_in_flight_ += branch;
    writes_.emplace_back(gb, branch);
  }
  writes_.emplace_back(gw, out);
  write_bytes_in_flight_ += out;
  // The pipeline's latency lies on the output path: a chunk's last outputs
  // leave normalize_cycles after its last element went in. The port sees
  // the write when that element is computed (requests stay in time order;
  // the latency is small against the DRAM's), so it is added here.
  last_output_cycle_ = std::max(last_output_cycle_, gw.done + cfg_.latency_cycles);
  t_ = issue_;
}

void NormalizeUnit::finish_row() {
  // Pipelined across rows: the next row's first elements enter the cycle
  // after this row's last (its outputs are still in the pipeline's latency).
  if (cfg_.write_stats) {
    const Grant gs = dram->write(now_cycles(), static_cast<double>(g_.stats_bytes_per_row), Traffic::stats);
    last_output_cycle_ = std::max(last_output_cycle_, gs.done);
  }
  last_output_cycle_ = std::max(last_output_cycle_, t_);
  free_at_ = t_;
  if (arith_) {
    y_.resize(static_cast<size_t>(g_.hidden));
    arith_->datapath->normalize(slot_->state, y_, arith_->numerics->counters);
    if (arith_->rtl) arith_->rtl->post_normalize(slot_->row, slot_->x, slot_->state, y_);
    arith_->checker->check_row(slot_->row, slot_->x, y_, slot_->state.stats(), *arith_->numerics);
  }
  sram->hold(-g_.stored_elems * g_.row_elem_bytes());
  param_buffer_read_bytes_ += static_cast<uint64_t>(g_.param_bytes);  // gamma/beta read once per row
  ++rows_done_;
  if (cfg_.rows_done_out) cfg_.rows_done_out->store(rows_done_, std::memory_order_relaxed);
  if (cfg_.row_done) cfg_.row_done();
}

}  // namespace normsim::asic
