// The timing model's time per design point, with and without the
// steady-state fast-forward (sim/asic/steady_state.hpp), measured side by
// side in one process: run_asic alone (process start, config reading and
// the report excluded), the median of several runs each way, at two row
// counts to show how it grows with the rows.
//
//   build/bench_fast_forward [REPS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <systemc.h>

#include "sim/asic/asic_run.hpp"
#include "sim/config/arch.hpp"
#include "sim/config/workload.hpp"

int sc_main(int, char**) { return 0; }

namespace {
using namespace normsim;

struct Design {
  const char* name;
  std::vector<std::string> sets;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const std::vector<Design> designs = {
      {"default (16 lanes, sram-replay)", {}},
      {"32 lanes, sram-replay", {"arch.lanes=32"}},
      {"4 lanes, sram-replay", {"arch.lanes=4"}},
      {"16 lanes, dram-reread", {"arch.asic.input_path=dram-reread"}},
      {"16 lanes, partial-replay 0.5", {"arch.asic.input_path=partial-replay"}},
      {"16 lanes, 2 rows in flight", {"arch.asic.rows_in_flight=2"}},
  };
  std::printf("llama3-70b (hidden 8192, bf16), timing only, run_asic wall time, median of %d\n", reps);
  std::printf("%-32s %8s %12s %12s %9s %10s\n", "design", "rows", "ff_ms", "full_ms", "speedup", "simulated");
  for (const Design& d : designs) {
    double ff_small = 0;
    for (const int64_t rows : {int64_t{8192}, int64_t{131072}}) {
      std::vector<config::Override> wo{config::parse_override("workload.rows=" + std::to_string(rows))}, ao;
      for (const auto& s : d.sets) ao.push_back(config::parse_override(s));
      const config::Workload w = config::load_workload("llama3-70b", wo);
      const config::Arch a = config::load_arch("asic-default", ao);
      std::vector<double> t[2];
      int64_t simulated = 0;
      for (int r = 0; r < reps; ++r)
        for (int ff = 0; ff < 2; ++ff) {
          asic::AsicOptions o;
          o.numerics = false;
          o.fast_forward = ff == 1;
          const auto t0 = std::chrono::steady_clock::now();
          const asic::AsicResult res = asic::run_asic(w, a, o);
          t[ff].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
          if (ff) simulated = res.fast_forward.rows_simulated;
        }
      const double ff_ms = median(t[1]), full_ms = median(t[0]);
      std::printf("%-32s %8lld %12.3f %12.3f %8.1fx %10lld\n", d.name, static_cast<long long>(rows), ff_ms, full_ms, full_ms / ff_ms,
                  static_cast<long long>(simulated));
      if (rows == 8192) ff_small = ff_ms;
      else std::printf("%-32s %8s %12s 131072 / 8192 rows with the fast-forward: %.2fx the time\n", "", "", "", ff_ms / ff_small);
    }
  }
  return 0;
}
