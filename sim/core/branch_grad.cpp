#include "sim/core/branch_grad.hpp"

#include "sim/core/dropout_mask.hpp"

namespace normsim::core {

void branch_grad_row(const ResidualSpec& spec, const ResidualAddConfig& cfg, uint64_t seed, int64_t tensor_row,
                     std::span<const double> dz, std::span<double> out, ResidualAddCounters& c) {
  const size_t C = dz.size();
  const bool dropout = spec.dropout_p > 0;
  const uint32_t threshold = rng::dropout_threshold(spec.dropout_p);
  const float scale = rng::dropout_scale(spec.dropout_p);
  const uint64_t base = static_cast<uint64_t>(tensor_row) * C;
  c.elements += C;
  auto keep_of = [&](size_t i) {
    const bool keep = !dropout || rng::dropout_keep(seed, base + i, threshold);
    c.dropped += !keep;
    return keep;
  };
  if (!cfg.fixed) {
    for (size_t i = 0; i < C; ++i) {
      const bool keep = keep_of(i);
      const float d = static_cast<float>(dz[i]);
      out[i] = !dropout ? d : keep ? d * scale : 0.0f;
    }
    return;
  }
  const auto into_format = [&](double v) { return quantize_counted(v, cfg.format, c); };
  const Fx s = dropout ? into_format(static_cast<double>(scale)) : Fx{};
  const Fx zero = quantize(0.0, cfg.format);
  for (size_t i = 0; i < C; ++i) {
    const Fx d = into_format(dz[i]);
    const bool keep = keep_of(i);
    QuantFlags fl;
    const Fx g = residual_add_fixed(d, zero, dropout ? &s : nullptr, keep, cfg.format, &fl);
    ++c.quantizations;
    c.overflows += fl.overflow;
    out[i] = to_double(g);
  }
}

bool branch_kept(const ResidualSpec& spec, uint64_t seed, int64_t tensor_row, int64_t hidden, int64_t column) {
  if (!(spec.dropout_p > 0)) return true;
  return rng::dropout_keep(seed, static_cast<uint64_t>(tensor_row) * static_cast<uint64_t>(hidden) + static_cast<uint64_t>(column),
                           rng::dropout_threshold(spec.dropout_p));
}

}  // namespace normsim::core
