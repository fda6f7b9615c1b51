// The SystemC kernel's own cost per timed wait: the floor under the ASIC
// model's timing-only mode, whose time is its units' waits (a transaction
// each: the input window, the lanes' SRAM writes, the normalise unit's start
// and output writes). One elaboration per process, so one shape per run:
//   bench_systemc_wait alone|units|method [WAITS]
// alone: one thread's timed waits; units: six threads whose waits
// interleave (as the model's units do); method: an SC_METHOD's timed
// next_trigger. Prints ns per wait, timed around sc_start.
#include <systemc>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace {
using namespace sc_core;

SC_MODULE(Waiter) {
  int64_t waits = 0;
  int64_t step_ps = 1000;
  SC_CTOR(Waiter) { SC_THREAD(run); }
  void run() {
    for (int64_t i = 0; i < waits; ++i) wait(sc_time::from_value(static_cast<sc_time::value_type>(step_ps + i % 7)));
  }
};

SC_MODULE(Triggered) {
  int64_t triggers = 0, done = 0;
  SC_CTOR(Triggered) { SC_METHOD(run); }
  void run() {
    if (done++ < triggers) next_trigger(sc_time::from_value(static_cast<sc_time::value_type>(1000 + done % 7)));
  }
};
}  // namespace

// libsystemc references sc_main; this tool has its own main (as normsim does)
// so that the kernel's banner is off before SystemC starts.
int sc_main(int, char**) { return 0; }

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  const char* shape = argc > 1 ? argv[1] : "units";
  char* end = nullptr;
  const int64_t n = argc > 2 ? std::strtoll(argv[2], &end, 10) : 300000;
  if (argc > 2 && (*end != '\0' || n < 6)) {
    std::fprintf(stderr, "bench_systemc_wait: WAITS '%s': allowed an integer >= 6\n", argv[2]);
    return 2;
  }
  std::vector<std::unique_ptr<Waiter>> threads;
  std::unique_ptr<Triggered> method;
  if (std::strcmp(shape, "alone") == 0) {
    threads.push_back(std::make_unique<Waiter>("alone"));
    threads.back()->waits = n;
  } else if (std::strcmp(shape, "units") == 0) {
    for (int i = 0; i < 6; ++i) {
      threads.push_back(std::make_unique<Waiter>(sc_gen_unique_name("unit")));
      threads.back()->waits = n / 6;
      threads.back()->step_ps = 6000 + 131 * i;  // interleaved, rarely at the same time
    }
  } else if (std::strcmp(shape, "method") == 0) {
    method = std::make_unique<Triggered>("method");
    method->triggers = n;
  } else {
    std::fprintf(stderr, "bench_systemc_wait: shape '%s': allowed alone, units, method\n", shape);
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  sc_start();
  const auto t1 = std::chrono::steady_clock::now();
  std::printf("%s %.1f\n", shape, std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n));
  return 0;
}
