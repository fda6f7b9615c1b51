// HandshakeFifo, the ASIC model's unit-to-unit channel: bounded (a full FIFO
// stalls its writer, an empty one its reader), entries in order, readable as
// soon as written, and a waiting side woken on the edge it waits for -- by
// a blocking thread and by an SC_METHOD that re-triggers on the events, as
// the model's units do. One TEST per process (SystemC elaborates once).
#include <gtest/gtest.h>

#include <vector>

#include "sim/asic/handshake_fifo.hpp"

using normsim::asic::HandshakeFifo;

int sc_main(int, char**) { return 0; }

namespace {
using namespace sc_core;

// Writes 0..n-1 with blocking writes, recording when each write completed.
SC_MODULE(Producer) {
  sc_fifo_out<int> out;
  int n = 10;
  std::vector<sc_time> written_at;
  SC_CTOR(Producer) { SC_THREAD(run); }
  void run() {
    for (int i = 0; i < n; ++i) {
      out.write(i);
      written_at.push_back(sc_time_stamp());
    }
  }
};

// Takes one entry every 10 ns: an SC_METHOD waiting on data_written_event
// when the FIFO is empty, as WelfordLaneArray does.
SC_MODULE(SlowConsumer) {
  sc_fifo_in<int> in;
  std::vector<int> got;
  std::vector<sc_time> got_at;
  SC_CTOR(SlowConsumer) { SC_METHOD(step); }
  void step() {
    int v = 0;
    if (!in.nb_read(v)) {
      next_trigger(in.data_written_event());
      return;
    }
    got.push_back(v);
    got_at.push_back(sc_time_stamp());
    next_trigger(10, SC_NS);
  }
};
}  // namespace

TEST(HandshakeFifo, BoundsTheWriterAndKeepsOrder) {
  HandshakeFifo<int> fifo("fifo", 2);
  Producer p("producer");
  SlowConsumer c("consumer");
  p.out(fifo);
  c.in(fifo);
  sc_start();
  ASSERT_EQ(c.got.size(), 10u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(c.got[static_cast<size_t>(i)], i);
    // The consumer takes entry i at 10 i ns: readable the instant it was
    // written (the first at 0 ns, not a delta later in another timestep).
    EXPECT_EQ(c.got_at[static_cast<size_t>(i)], sc_time(10.0 * i, SC_NS)) << i;
  }
  // Depth 2: writes 0, 1 and 2 fit by 0 ns (0 is taken at once); write i >= 3
  // waits for the read of entry i - 2 at 10 (i - 2) ns.
  ASSERT_EQ(p.written_at.size(), 10u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(p.written_at[static_cast<size_t>(i)], SC_ZERO_TIME) << i;
  for (int i = 3; i < 10; ++i) EXPECT_EQ(p.written_at[static_cast<size_t>(i)], sc_time(10.0 * (i - 2), SC_NS)) << i;
  EXPECT_EQ(fifo.num_available(), 0);
  EXPECT_EQ(fifo.num_free(), 2);
}
