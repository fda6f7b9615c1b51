#include "sim/core/llm_activation.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/core/counter_rng.hpp"
#include "sim/core/rng_batch.hpp"

namespace normsim::core {

namespace {
// `k` distinct channels of [0, hidden), drawn in order from `stream`.
std::vector<int64_t> pick_channels(uint64_t seed, uint32_t stream, int64_t k, int64_t hidden) {
  std::set<int64_t> picked;
  k = std::min(k, hidden);
  for (uint64_t i = 0; static_cast<int64_t>(picked.size()) < k; ++i) {
    const uint64_t b = rng::bits64(seed, stream, i);
    picked.insert(static_cast<int64_t>((static_cast<unsigned __int128>(b) * static_cast<uint64_t>(hidden)) >> 64));
  }
  return {picked.begin(), picked.end()};
}
}  // namespace

LlmActivationInput::LlmActivationInput(const LlmActivation& p, uint64_t seed, int64_t hidden) : p_(p), seed_(seed) {
  scale_.resize(static_cast<size_t>(hidden));
  for (int64_t c = 0; c < hidden; ++c)
    scale_[static_cast<size_t>(c)] =
        p.sigma * std::exp(p.channel_spread * rng::standard_normal(seed, rng::kChannelScale, static_cast<uint64_t>(c)));
  outliers_ = pick_channels(seed, rng::kOutlierChannels, p.outlier_channels, hidden);
  for (int64_t c : outliers_) scale_[static_cast<size_t>(c)] *= p.outlier_scale;
  massive_ = pick_channels(seed, rng::kMassiveChannels, p.massive_channels, hidden);
  for (int64_t c : massive_) {
    const bool negative = rng::bits64(seed, rng::kMassiveChannels, ~static_cast<uint64_t>(c)) >> 63;
    massive_value_.push_back((negative ? -1.0 : 1.0) * p.massive_ratio * p.sigma);
  }
}

void LlmActivationInput::fill_row(int64_t row, int64_t hidden, double* x) const {
  const uint64_t base = static_cast<uint64_t>(row) * static_cast<uint64_t>(hidden);
  rng::sample_batch(rng::Distribution::normal(0.0, 1.0), seed_, rng::kInput, base, static_cast<size_t>(hidden), x);
  const double* s = scale_.data();
  for (int64_t c = 0; c < hidden; ++c) x[c] *= s[c];
  if (p_.massive_every > 0 && row % p_.massive_every == 0)
    for (size_t k = 0; k < massive_.size(); ++k) x[massive_[k]] = massive_value_[k];
}

}  // namespace normsim::core
