// A model of the activations an LLM's RMSNorm/LayerNorm reads (the residual
// stream), for choosing fixed-point ranges: Gaussian-like values whose scale
// differs from channel to channel, a few outlier channels many times larger
// in every row (Dettmers et al., "LLM.int8()", NeurIPS 2022: systematic
// outlier features in a handful of hidden dimensions), and massive
// activations -- a couple of fixed channels holding values about 10^4 times
// the median magnitude, in the first token of each sequence (Sun et al.,
// "Massive Activations in Large Language Models", COLM 2024). The defaults
// and their sources are in workloads/README.md.
//
//   x[r][c] = s_c z[r][c],  z ~ N(0, 1) from (seed, input stream, r C + c)
//   s_c = sigma exp(channel_spread n_c) (x outlier_scale on outlier channels)
//   x[r][m] = +-massive_ratio sigma on the massive channels m of rows r with
//             r mod massive_every == 0
//
// Channels, their scales and signs come from the seed alone (own RNG
// streams), so every row of a workload shares them, as a model's features do.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/input_source.hpp"

namespace normsim::core {

struct LlmActivation {
  double sigma = 1.0;             ///< scale of a typical channel (value units)
  double channel_spread = 0.5;    ///< standard deviation of ln(channel scale)
  int64_t outlier_channels = 6;   ///< channels scaled by outlier_scale
  double outlier_scale = 20.0;    ///< outlier channels' scale over a typical one's
  int64_t massive_channels = 2;   ///< channels holding the massive activations
  double massive_ratio = 1.0e4;   ///< massive activation / sigma
  int64_t massive_every = 4096;   ///< rows between massive rows (a sequence's length); 0: none
};

class LlmActivationInput : public InputSource {
 public:
  LlmActivationInput(const LlmActivation& p, uint64_t seed, int64_t hidden);
  void fill_row(int64_t row, int64_t hidden, double* x) const override;
  bool stored_values() const override { return false; }

  const LlmActivation& params() const { return p_; }
  const std::vector<double>& channel_scales() const { return scale_; }
  const std::vector<int64_t>& outlier_channels() const { return outliers_; }
  const std::vector<int64_t>& massive_channels() const { return massive_; }

 private:
  LlmActivation p_;
  uint64_t seed_;
  std::vector<double> scale_;      ///< s_c
  std::vector<int64_t> outliers_;  ///< ascending
  std::vector<int64_t> massive_;   ///< ascending
  std::vector<double> massive_value_;  ///< signed value of each massive channel
};

}  // namespace normsim::core
