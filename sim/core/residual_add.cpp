#include "sim/core/residual_add.hpp"

#include "sim/core/dropout_mask.hpp"
#include "sim/core/element_format.hpp"

namespace normsim::core {

std::string ResidualAddConfig::describe() const { return fixed ? format.describe() : "fp32"; }

void ResidualAddCounters::add(const ResidualAddCounters& o) {
  elements += o.elements;
  dropped += o.dropped;
  quantizations += o.quantizations;
  overflows += o.overflows;
}

void residual_add_row(const ResidualSpec& spec, const ResidualAddConfig& cfg, uint64_t seed, int64_t tensor_row,
                      std::span<double> x, std::span<const double> r, ElemType z_type, ResidualAddCounters& c) {
  const size_t C = x.size();
  const bool dropout = spec.dropout_p > 0;
  const uint32_t threshold = rng::dropout_threshold(spec.dropout_p);
  const float scale = rng::dropout_scale(spec.dropout_p);
  const uint64_t base = static_cast<uint64_t>(tensor_row) * C;
  c.elements += C;
  if (!cfg.fixed) {
    for (size_t i = 0; i < C; ++i) {
      float branch = static_cast<float>(x[i]);
      if (dropout) {
        const bool keep = rng::dropout_keep(seed, base + i, threshold);
        c.dropped += !keep;
        branch = keep ? branch * scale : 0.0f;
      }
      const float z = branch + static_cast<float>(r[i]);
      x[i] = round_to_elem(z, z_type);
    }
    return;
  }
  // Fixed point: operands into F (counted), one exact multiply-add, one rounding.
  const auto count = [&](const QuantFlags& fl) {
    ++c.quantizations;
    c.overflows += fl.overflow;
  };
  const auto into_format = [&](double v) {
    QuantFlags fl;
    const Fx q = quantize(v, cfg.format, &fl);
    count(fl);
    return exact(q);
  };
  const Exact s = dropout ? into_format(static_cast<double>(scale)) : Exact{};
  for (size_t i = 0; i < C; ++i) {
    Exact branch = into_format(x[i]);
    if (dropout) {
      const bool keep = rng::dropout_keep(seed, base + i, threshold);
      c.dropped += !keep;
      branch = keep ? mul(branch, s) : exact_from_int(0);
    }
    QuantFlags fl;
    const Fx z = quantize(add(branch, into_format(r[i])), cfg.format, &fl);
    count(fl);
    x[i] = round_to_elem(to_double(z), z_type);
  }
}

}  // namespace normsim::core
