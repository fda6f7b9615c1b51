#include "sim/core/row_sample.hpp"

#include <algorithm>
#include <memory>

#include "sim/core/row_inputs.hpp"

namespace normsim::core {

namespace {
// Row k: the whole problem's row rows_[k], as stored.
class SampledRowsInput : public InputSource {
 public:
  SampledRowsInput(const NormProblem& whole, std::vector<int64_t> rows) : whole_(whole), rows_(std::move(rows)) {
    whole_.input_source = whole.input_source;
  }
  void fill_row(int64_t row, int64_t hidden, double* x) const override {
    thread_local std::vector<double> buf;
    generate_input_row(whole_, rows_[static_cast<size_t>(row)], buf, nullptr);
    std::copy(buf.begin(), buf.begin() + hidden, x);
  }
  bool stored_values() const override { return true; }

 private:
  NormProblem whole_;
  std::vector<int64_t> rows_;
};
}  // namespace

std::vector<int64_t> sampled_rows(int64_t rows, int64_t n) {
  n = std::clamp<int64_t>(n, 1, rows);
  std::vector<int64_t> r(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    r[static_cast<size_t>(k)] = static_cast<int64_t>((static_cast<unsigned __int128>(k) * static_cast<uint64_t>(rows)) / static_cast<uint64_t>(n));
  return r;
}

NormProblem sample_rows(const NormProblem& p, int64_t n) {
  if (n >= p.rows) return p;
  return rows_of(p, sampled_rows(p.rows, std::max<int64_t>(1, n)));
}

NormProblem rows_of(const NormProblem& p, std::vector<int64_t> rows) {
  NormProblem s = p;
  s.rows = static_cast<int64_t>(rows.size());
  if (s.residual) {  // r and the dropout mask follow the whole tensor's rows
    auto whole = std::make_shared<std::vector<int64_t>>(rows.size());
    for (size_t k = 0; k < rows.size(); ++k) (*whole)[k] = p.residual->tensor_row(rows[k]);
    s.residual->tensor_rows = std::move(whole);
  }
  s.input_source = std::make_shared<SampledRowsInput>(p, std::move(rows));
  return s;
}

}  // namespace normsim::core
