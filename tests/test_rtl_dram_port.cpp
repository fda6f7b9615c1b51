// The testbench's memory port (rtl_models/tb/dram_port.v) against the
// SystemC model's BandwidthServer, cycle for cycle: random request streams
// at whole cycles, over rates that are whole, fractional and the shipped
// archs' own, every request's done edge equal to ceil() of the model's
// fluid done time (docs/RTL.md, "The memory port"). The build with the
// first byte a cycle early (NORMSIM_MUTATE_PORT) must disagree.
#include <gtest/gtest.h>
#include <systemc.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <deque>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>

#include RTL_TOP_HEADER
#include "sim/asic/bandwidth_server.hpp"
#include "sim/asic/port_signal.hpp"
#include "sim/asic/sim_time.hpp"
#include "tests/rtl/clocked_bench.hpp"

int sc_main(int, char**) { return 0; }  // libsystemc wants one; gtest's main runs the tests

namespace {
using namespace normsim;

struct Bench : rtl_test::ClockedBench {
  RTL_TOP dut{"dram_port"};
#define NORMSIM_PORT(p) decltype(asic::bind_signal(dut.p))& p = asic::bind_signal(dut.p);
  NORMSIM_PORT(rst) NORMSIM_PORT(rate_num) NORMSIM_PORT(rate_den) NORMSIM_PORT(latency) NORMSIM_PORT(req_valid)
  NORMSIM_PORT(req_bytes) NORMSIM_PORT(req_not_before) NORMSIM_PORT(req_ready) NORMSIM_PORT(done_count)
  NORMSIM_PORT(grant_first) NORMSIM_PORT(grant_end)
#undef NORMSIM_PORT
  Bench() { dut.clk(clk); }
};

// A disagreement: a failure, except in the mutated build, which must have some.
void disagree(const std::string& what) {
#ifndef RTL_EXPECT_MISMATCH
  ADD_FAILURE() << what;
#else
  (void)what;
#endif
}

struct Port {
  uint32_t num, den, latency;
  std::string what;
};

#ifndef RTL_PORT_REQS
#define RTL_PORT_REQS 1
#endif
constexpr int kReqs = RTL_PORT_REQS;  // requesters the port was built with
constexpr int kCountBits = 5;         // done_count's bits a requester (DEPTH_LOG2 + 1)

// Requester r's field of a packed input word: the word itself for one
// requester, a field of a bit vector for several.
template <class Word>
uint64_t get_field(const Word& word, int r, int bits) {
  if constexpr (std::is_integral_v<Word>) {
    return static_cast<uint64_t>(word);
  } else {
    return word.range(r * bits + bits - 1, r * bits).to_uint64();
  }
}
template <class Word, class V>
void set_field(Word& word, int r, int bits, V value) {
  if constexpr (std::is_integral_v<Word>) {
    word = static_cast<Word>(value);
  } else {
    word.range(r * bits + bits - 1, r * bits) = static_cast<uint64_t>(value);
  }
}

// A stream of requests at whole cycles, up to kReqs an edge (requester 0's
// first), through the RTL and the model; returns the requests whose done
// edges differ (the first few reported). Some requests carry a not-before
// time (a replay read held until its row's write has ended).
int64_t run_stream(Bench& b, const Port& p, uint64_t seed, int64_t cycles, int64_t& checked, int64_t& shared_edges) {
  b.rate_num.write(p.num);
  b.rate_den.write(p.den);
  b.latency.write(p.latency);
  b.req_valid.write(0);
  b.rst.write(true);
  b.cycle();
  b.rst.write(false);
  b.settle();
  asic::BandwidthServer model(core::BytesPerCycle(static_cast<double>(p.num) / p.den), core::Cycles(p.latency));
  std::mt19937_64 rng(seed);
  std::deque<int64_t> expected[kReqs];  // per requester: done edges of its requests in flight, in issue order
  uint64_t free_units = 0;              // the exact fluid model, in 1/num cycles
  int64_t mismatches = 0, done = 0;
  // Bursts and gaps: the issue probability changes every few hundred cycles.
  double p_issue = 0.5;
  const uint64_t rate_bytes = std::max<uint64_t>(1, p.num / p.den);
  for (int64_t c = 0; c < cycles; ++c) {
    if (c % 256 == 0) p_issue = std::uniform_real_distribution<double>(0.02, 1.0)(rng) / kReqs;
    const bool room = b.req_ready.read();
    uint32_t valid = 0;
    int asked = 0;
    std::pair<uint64_t, uint64_t> grants[kReqs] = {};  // each request's first byte and end (units), exactly
    // The packed inputs, written once an edge (a signal reads back its old value until then).
    auto bytes_word = b.req_bytes.read();
    auto not_before_word = b.req_not_before.read();
    for (int r = 0; r < kReqs; ++r) {
      const bool issue = room && std::uniform_real_distribution<double>(0, 1)(rng) < p_issue;
      uint64_t bytes = 0, not_before = 0;
      if (issue) {
        // Sizes by the port's rate, so that every port sees requests shorter
        // than a cycle, of a few cycles, and whole 1 KiB transactions.
        const uint64_t kind = rng() % 10;
        if (kind < 4) bytes = 1 + rng() % rate_bytes;                  // within a cycle
        else if (kind < 7) bytes = 1 + rng() % (4 * rate_bytes);       // a few cycles
        else if (kind < 9) bytes = 1 + rng() % 64;                     // small
        else bytes = std::min<uint64_t>(1024, 16 * rate_bytes + 64);  // a transaction
        // One in eight held until a time up to 40 cycles ahead, at any fraction of a cycle.
        if (rng() % 8 == 0) not_before = static_cast<uint64_t>(c) * p.num + rng() % (40 * static_cast<uint64_t>(p.num));
        const uint64_t first = std::max({(static_cast<uint64_t>(c) + p.latency) * p.num, free_units, not_before});
        free_units = first + bytes * p.den;
        const int64_t edge = static_cast<int64_t>((free_units + p.num - 1) / p.num);
        const asic::Grant g = model.issue(static_cast<double>(c), static_cast<double>(bytes),
                                          static_cast<double>(not_before) / p.num);
        // The model's double arithmetic is the exact fluid time to within rounding.
        EXPECT_NEAR(g.done * p.num, static_cast<double>(free_units), 1e-9 * static_cast<double>(free_units) + 1e-6)
            << p.what << ": the model's done " << g.done << " is not the exact " << free_units << " / " << p.num;
        expected[r].push_back(edge);
        grants[r] = {first, free_units};
        valid |= 1u << r;
        ++asked;
      }
      set_field(bytes_word, r, 24, bytes);
      set_field(not_before_word, r, 64, not_before);
    }
    b.req_bytes.write(bytes_word);
    b.req_not_before.write(not_before_word);
    shared_edges += asked > 1;
    b.req_valid.write(valid);
    // The port answers each request at its edge with its grant, as the model's issue() does.
    b.settle();
    for (int r = 0; r < kReqs; ++r)
      if (valid >> r & 1) {
        const uint64_t first = get_field(b.grant_first.read(), r, 64), end = get_field(b.grant_end.read(), r, 64);
        if ((first != grants[r].first || end != grants[r].second) && ++mismatches <= 3)
          disagree(p.what + ": requester " + std::to_string(r) + "'s grant at edge " + std::to_string(c) + ": first " +
                   std::to_string(first) + ", end " + std::to_string(end) + " units; exactly " +
                   std::to_string(grants[r].first) + ", " + std::to_string(grants[r].second));
      }
    b.cycle();  // edge c + 1: done_count counts each requester's requests done by it
    const int64_t now = c + 1;
    const uint64_t counts = b.done_count.read();
    for (int r = 0; r < kReqs; ++r) {
      const uint64_t n = (counts >> (r * kCountBits)) & ((1u << kCountBits) - 1);
      for (uint64_t k = 0; k < n; ++k, ++done) {
        const int64_t want = expected[r].empty() ? -1 : expected[r].front();
        if (!expected[r].empty()) expected[r].pop_front();
        if (want != now && ++mismatches <= 3)
          disagree(p.what + ": requester " + std::to_string(r) + "'s request done at edge " + std::to_string(now) +
                   " in the RTL, ceil(model) = " + std::to_string(want));
      }
      // The model says done by now: the RTL must have said so too.
      while (!expected[r].empty() && expected[r].front() < now) {
        if (++mismatches <= 3)
          disagree(p.what + ": requester " + std::to_string(r) + "'s request not done at edge " + std::to_string(now) +
                   ", ceil(model) = " + std::to_string(expected[r].front()));
        expected[r].pop_front();
        ++done;
      }
    }
  }
  checked += done;
  return mismatches;
}

TEST(RtlDramPort, EveryRequestDoneAtTheCeilingOfTheModelsTime) {
  asic::set_cycle_resolution();  // the kernel at the port's 1 fs
  Bench b;
  // Whole, fractional and awkward rates; the default arch's 64 B/cycle DRAM
  // port, the gpu-warp arch's 2130.8 B/cycle, an SRAM's banks x access bytes.
  const Port ports[] = {{64, 1, 200, "64 B/cycle, 200 cycles"},       {10654, 5, 300, "2130.8 B/cycle, 300 cycles"},
                        {1, 3, 1, "1/3 B/cycle, 1 cycle"},             {7, 2, 17, "3.5 B/cycle, 17 cycles"},
                        {1000003, 1000, 64, "1000.003 B/cycle"},      {128, 1, 2, "an SRAM of 4 banks x 32 B"},
                        {65, 64, 5, "65/64 B/cycle"},                 {3, 1, 1, "3 B/cycle, 1 cycle"}};
  int64_t mismatches = 0, checked = 0, shared_edges = 0;
  uint64_t seed = 1;
  for (const Port& p : ports) {
    const int64_t before = checked;
    mismatches += run_stream(b, p, seed++, 40000, checked, shared_edges);
    EXPECT_GT(checked - before, 500) << p.what << ": too few requests finished to compare";
  }
  if (kReqs > 1) {
    EXPECT_GT(shared_edges, 1000) << "few edges with several requests: the arbiter's order is not shown";
  }
  std::printf("%d requesters: %lld requests compared, %lld disagree; %lld edges with several requests\n", kReqs,
              static_cast<long long>(checked), static_cast<long long>(mismatches), static_cast<long long>(shared_edges));
#ifdef RTL_EXPECT_MISMATCH
  EXPECT_GT(mismatches, 0) << "the mutated port (first byte a cycle early) agreed with the model: the test cannot fail";
#else
  EXPECT_EQ(mismatches, 0);
#endif
}

}  // namespace
