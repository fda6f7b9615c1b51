// Where a workload's input rows come from when they are not drawn from one of
// the counter RNG's plain distributions: a tensor in a .npy file
// (npy_input.hpp) or the LLM-activation model (llm_activation.hpp). Either
// gives row r's values; generate_input_row (row_inputs.hpp) rounds them to the
// tensor's element type, which leaves a file's values unchanged.
#pragma once

#include <cstdint>

namespace normsim::core {

class InputSource {
 public:
  virtual ~InputSource() = default;
  /// Writes row `row`'s `hidden` values into x. Re-entrant: rows are filled
  /// from several threads at once.
  virtual void fill_row(int64_t row, int64_t hidden, double* x) const = 0;
  /// True when the values are the stored tensor's own (nothing to round or quantise).
  virtual bool stored_values() const = 0;
};

}  // namespace normsim::core
