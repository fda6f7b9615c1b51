#include "sim/core/backward_units.hpp"

#include "sim/core/fixed_units.hpp"

namespace normsim::core {

Fx quantize_backward(const Exact& v, BackwardStage s, const BackwardFormats& f, BackwardCounters& c) {
  QuantFlags fl;
  const Fx r = quantize(v, f[static_cast<int>(s)], &fl);
  ++c.quantizations[static_cast<int>(s)];
  if (fl.overflow) ++c.overflows[static_cast<int>(s)];
  return r;
}

BackwardOperands backward_operands(NormKind kind, bool xhat_stored, Fx x, Fx mean, Fx rstd, Fx dy, Fx gamma,
                                   const BackwardFormats& f, BackwardCounters& c) {
  using S = BackwardStage;
  BackwardOperands o;
  if (xhat_stored) {
    o.xhat = x;
  } else {
    const Exact centred = kind == NormKind::rmsnorm ? exact(x) : sub(exact(x), exact(mean));
    o.xhat = quantize_backward(mul(centred, exact(rstd)), S::xhat, f, c);
  }
  o.g = quantize_backward(mul(exact(dy), exact(gamma)), S::g, f, c);
  return o;
}

RowSums row_sum_update(NormKind kind, const RowSums& acc, const BackwardOperands& o, const BackwardFormats& f,
                       BackwardCounters& c) {
  using S = BackwardStage;
  RowSums r = acc;
  if (kind != NormKind::rmsnorm) r.s1 = quantize_backward(add(exact(acc.s1), exact(o.g)), S::sum_g, f, c);
  r.s2 = quantize_backward(add(exact(acc.s2), mul(exact(o.g), exact(o.xhat))), S::sum_gxhat, f, c);
  return r;
}

Fx backward_add(Fx a, Fx b, BackwardStage s, const BackwardFormats& f, BackwardCounters& c) {
  return quantize_backward(add(exact(a), exact(b)), s, f, c);
}

Fx row_mean(Fx sum, int64_t hidden, Fx recip_hidden, const BackwardFormats& f, BackwardCounters& c) {
  return quantize_backward(times_recip(exact(sum), hidden, recip_hidden), BackwardStage::row_mean, f, c);
}

Fx dx_value(NormKind kind, const BackwardOperands& o, Fx rstd, Fx m1, Fx m2, const BackwardFormats& f,
            BackwardCounters& c) {
  Exact inner = sub(exact(o.g), mul(exact(o.xhat), exact(m2)));
  if (kind != NormKind::rmsnorm) inner = sub(inner, exact(m1));
  return quantize_backward(mul(exact(rstd), inner), BackwardStage::dx, f, c);
}

ParamGrads param_grad_update(NormKind kind, const ParamGrads& acc, Fx dy, Fx xhat, const BackwardFormats& f,
                             BackwardCounters& c) {
  using S = BackwardStage;
  ParamGrads r = acc;
  r.dgamma = quantize_backward(add(exact(acc.dgamma), mul(exact(dy), exact(xhat))), S::dgamma, f, c);
  if (kind != NormKind::rmsnorm) r.dbeta = quantize_backward(add(exact(acc.dbeta), exact(dy)), S::dbeta, f, c);
  return r;
}

}  // namespace normsim::core
