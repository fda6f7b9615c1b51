#include "sim/core/functional_run.hpp"

#include "sim/core/row_inputs.hpp"

namespace normsim::core {

FunctionalResult run_functional(const NormProblem& p, const DatapathConfig& cfg, bool keep_outputs) {
  FunctionalResult res;
  std::vector<float> gamma, beta;
  generate_params(p, gamma, beta);
  NormDatapath dp(cfg, gamma, beta);

  NumericsResult& num = res.numerics;
  init_numerics(num, p, cfg);
  num.counters.add(dp.parameter_counters());
  OutputChecker checker(p, cfg.formats[static_cast<int>(Stage::output)], dp.output_lsb(), gamma, beta, keep_outputs, num);

  std::vector<double> x, y(static_cast<size_t>(p.hidden));
  for (int64_t r = 0; r < p.rows; ++r) {
    generate_input_row(p, r, x, &num.input_saturations);
    const RowStats s = dp.process_row(x, y, num.counters);
    checker.check_row(x, y, s);
  }
  res.outputs = std::move(checker.kept);
  return res;
}

}  // namespace normsim::core
