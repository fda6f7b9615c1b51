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
  const auto into_format = [&](double v) { return quantize_counted(v, cfg.format, c); };
  const Fx s = dropout ? into_format(static_cast<double>(scale)) : Fx{};
  for (size_t i = 0; i < C; ++i) {
    const Fx xq = into_format(x[i]), rq = into_format(r[i]);
    const bool keep = !dropout || rng::dropout_keep(seed, base + i, threshold);
    c.dropped += !keep;
    QuantFlags fl;
    const Fx z = residual_add_fixed(xq, rq, dropout ? &s : nullptr, keep, cfg.format, &fl);
    ++c.quantizations;
    c.overflows += fl.overflow;
    x[i] = round_to_elem(to_double(z), z_type);
  }
}

Fx quantize_counted(double v, const FixedFormat& f, ResidualAddCounters& c) {
  QuantFlags fl;
  const Fx q = quantize(v, f, &fl);
  ++c.quantizations;
  c.overflows += fl.overflow;
  return q;
}

Fx residual_add_fixed(Fx x, Fx r, const Fx* scale, bool keep, const FixedFormat& f, QuantFlags* flags) {
  const Exact branch = !scale ? exact(x) : keep ? mul(exact(x), exact(*scale)) : exact_from_int(0);
  return quantize(add(branch, exact(r)), f, flags);
}

}  // namespace normsim::core
