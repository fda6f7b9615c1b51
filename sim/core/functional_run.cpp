#include "sim/core/functional_run.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "sim/core/row_inputs.hpp"

namespace normsim::core {

int64_t functional_block_rows(int64_t hidden) { return std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(1, hidden)); }

FunctionalResult run_functional(const NormProblem& p, const DatapathConfig& cfg, const FunctionalOptions& o) {
  FunctionalResult res;
  std::vector<float> gamma, beta;
  generate_params(p, gamma, beta);
  const NormDatapath proto(cfg, gamma, beta);

  NumericsResult& num = res.numerics;
  init_numerics(num, p, cfg);
  num.counters.add(proto.parameter_counters());
  if (o.keep_outputs) res.outputs.allocate(p.rows, p.hidden, o.keep_inputs);

  const int64_t block_rows = functional_block_rows(p.hidden);
  const int64_t blocks = (p.rows + block_rows - 1) / block_rows;
  std::vector<NumericsResult> parts(static_cast<size_t>(blocks));
  std::atomic<int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    try {
      NormDatapath dp(proto);
      OutputChecker checker(p, o.ulp_floor >= 0 ? o.ulp_floor : dp.output_lsb(), gamma, beta,
                            o.keep_outputs ? &res.outputs : nullptr);
      std::vector<double> x, y(static_cast<size_t>(p.hidden));
      for (int64_t b; (b = next.fetch_add(1)) < blocks;) {
        NumericsResult& part = parts[static_cast<size_t>(b)];
        for (int64_t r = b * block_rows, end = std::min(p.rows, r + block_rows); r < end; ++r) {
          datapath_input_row(p, cfg.residual_add, r, x, &part.input_saturations, &part.residual_add);
          const RowStats s = dp.process_row(x, y, part.counters);
          checker.check_row(r, x, y, s, part);
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next = blocks;  // the others stop at their next block
    }
  };
  const int threads = static_cast<int>(std::clamp<int64_t>(o.threads, 1, std::max<int64_t>(1, blocks)));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  for (const NumericsResult& part : parts) merge_numerics(num, part);
  return res;
}

}  // namespace normsim::core
