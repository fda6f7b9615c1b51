// A bounded FIFO between two units: the ready/valid handshake of the
// datapath (a full FIFO stalls its writer, an empty one its reader). It
// offers sc_fifo's interfaces, so the units' sc_fifo_in/sc_fifo_out ports
// bind to it, with two differences that matter to a model whose units
// exchange one token per transaction:
//  * an entry is readable as soon as it is written (sc_fifo publishes it in
//    the update phase, a delta cycle later), so a hand-over costs no delta
//    cycle and no update request;
//  * the other side is notified only when it can have been waiting: a
//    reader on the empty -> non-empty edge, a writer on full -> not full.
// Both change when, within one simulated instant, a unit runs -- never the
// simulated time of anything: each unit computes its times from grants.
// A FIFO that carries an announcement made at the end of a unit's step (a
// fused row's z in DRAM) wakes its reader in the next delta cycle instead
// (Wake::next_delta), after the writer's other requests of that instant.
#pragma once

#include <systemc.h>

#include <cstdint>
#include <deque>
#include <string>

namespace normsim::asic {

/// What every HandshakeFifo shows whatever its token: the handshake as a
/// waveform draws it (NormAccelerator's trace reads channels through this).
class FifoState {
 public:
  int depth() const { return depth_; }
  int occupancy() const { return occupancy_; }
  bool valid() const { return occupancy_ > 0; }       ///< the reader side holds a token
  bool ready() const { return occupancy_ < depth_; }  ///< the writer side can take one
  int writers_waiting() const { return writers_waiting_; }  ///< writers stalled on full
  int readers_waiting() const { return readers_waiting_; }  ///< readers starved on empty
  uint64_t writes() const { return writes_; }               ///< tokens handed over so far
  uint64_t reads() const { return reads_; }                 ///< tokens taken so far

 protected:
  explicit FifoState(int depth) : depth_(depth) {}
  int depth_;
  int occupancy_ = 0;
  int writers_waiting_ = 0, readers_waiting_ = 0;
  uint64_t writes_ = 0, reads_ = 0;
};

template <class T>
class HandshakeFifo : public FifoState,
                      public sc_core::sc_prim_channel,
                      public sc_core::sc_fifo_in_if<T>,
                      public sc_core::sc_fifo_out_if<T> {
 public:
  enum class Wake { now, next_delta };
  HandshakeFifo(const char* name, int depth, Wake reader_wake = Wake::now)
      : FifoState(depth), sc_core::sc_prim_channel(name), reader_wake_(reader_wake) {}

  // Reader side.
  bool nb_read(T& v) override {
    if (q_.empty()) return false;
    const bool was_full = static_cast<int>(q_.size()) == depth_;
    v = q_.front();
    q_.pop_front();
    occupancy_ = static_cast<int>(q_.size());
    ++reads_;
    if (was_full) read_event_.notify();
    return true;
  }
  void read(T& v) override {
    ++readers_waiting_;
    while (q_.empty()) sc_core::wait(written_event_);
    --readers_waiting_;
    nb_read(v);
  }
  T read() override {
    T v;
    read(v);
    return v;
  }
  int num_available() const override { return static_cast<int>(q_.size()); }
  const sc_core::sc_event& data_written_event() const override { return written_event_; }

  // Writer side.
  bool nb_write(const T& v) override {
    if (static_cast<int>(q_.size()) == depth_) return false;
    q_.push_back(v);
    occupancy_ = static_cast<int>(q_.size());
    ++writes_;
    if (q_.size() == 1) {
      if (reader_wake_ == Wake::now)
        written_event_.notify();
      else
        written_event_.notify(sc_core::SC_ZERO_TIME);
    }
    return true;
  }
  void write(const T& v) override {
    ++writers_waiting_;
    while (static_cast<int>(q_.size()) == depth_) sc_core::wait(read_event_);
    --writers_waiting_;
    nb_write(v);
  }
  int num_free() const override { return depth_ - static_cast<int>(q_.size()); }
  const sc_core::sc_event& data_read_event() const override { return read_event_; }

  /// Fills the FIFO during elaboration (no one can be waiting yet).
  void preload(const T& v) {
    q_.push_back(v);
    occupancy_ = static_cast<int>(q_.size());
  }

  const char* kind() const override { return "HandshakeFifo"; }

  const std::deque<T>& contents() const { return q_; }  ///< the tokens held, oldest first (the fast-forward's state)

 private:
  Wake reader_wake_;
  std::deque<T> q_;
  sc_core::sc_event written_event_, read_event_;
};

}  // namespace normsim::asic
