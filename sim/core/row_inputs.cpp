#include "sim/core/row_inputs.hpp"

#include "sim/core/rng_batch.hpp"
#include "sim/core/vector_build.hpp"

namespace normsim::core {

namespace {
// round_to_elem(v, bf16) over a row without a branch (fp32_to_bf16_bits's
// NaN test as a select), so it vectorises: the same bits.
NORMSIM_ROW_CLONES void round_row_to_bf16(double* x, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint32_t u = fp32_bits(static_cast<float>(x[i]));
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const uint32_t quiet_nan = (u >> 16) | 0x0040u;
    const uint32_t b = (u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded;
    x[i] = fp32_from_bits(b << 16);
  }
}
}  // namespace

void generate_input_row(const NormProblem& p, int64_t r, std::vector<double>& x, uint64_t* saturations) {
  x.resize(static_cast<size_t>(p.hidden));
  if (p.input_source) {
    p.input_source->fill_row(r, p.hidden, x.data());
    if (p.input_source->stored_values()) return;  // a file's values: already the tensor's
  } else {
    const uint64_t base = static_cast<uint64_t>(r) * static_cast<uint64_t>(p.hidden);
    rng::sample_batch(p.input_dist, p.seed, rng::kInput, base, x.size(), x.data());
  }
  switch (p.input.dtype) {
    case ElemType::fp32:
      for (double& v : x) v = round_to_elem(v, ElemType::fp32);
      return;
    case ElemType::bf16:
      round_row_to_bf16(x.data(), x.size());
      return;
    case ElemType::fp16:
      for (double& v : x) v = round_to_elem(v, ElemType::fp16);
      return;
    case ElemType::int8:
      if (!p.input_source && p.input_dist.kind == rng::Distribution::kInt8) {
        for (double& v : x) v *= p.input.scale.scale;  // the codes themselves
        return;
      }
      for (double& v : x) {
        bool sat = false;
        v = dequantize_int8(quantize_int8(v, p.input.scale, &sat), p.input.scale);
        if (sat && saturations) ++*saturations;
      }
      return;
  }
}

void generate_residual_row(const NormProblem& p, int64_t r, std::vector<double>& out) {
  const ResidualSpec& spec = *p.residual;
  out.resize(static_cast<size_t>(p.hidden));
  const int64_t row = spec.tensor_row(r);
  if (spec.source) {
    spec.source->fill_row(row, p.hidden, out.data());
    if (spec.source->stored_values()) return;
  } else {
    rng::sample_batch(spec.dist, p.seed, rng::kResidual, static_cast<uint64_t>(row) * static_cast<uint64_t>(p.hidden),
                      out.size(), out.data());
  }
  if (spec.tensor.dtype == ElemType::bf16) {
    round_row_to_bf16(out.data(), out.size());
    return;
  }
  for (double& v : out) v = round_to_elem(v, spec.tensor.dtype);
}

void generate_grad_row(const NormProblem& p, int64_t r, std::vector<double>& out) {
  const BackwardSpec& spec = p.backward;
  out.resize(static_cast<size_t>(p.hidden));
  if (spec.source) {
    spec.source->fill_row(r, p.hidden, out.data());
    if (spec.source->stored_values()) return;
  } else {
    rng::sample_batch(spec.dist, p.seed, rng::kGradOut, static_cast<uint64_t>(r) * static_cast<uint64_t>(p.hidden), out.size(),
                      out.data());
  }
  if (spec.dy.dtype == ElemType::bf16) {
    round_row_to_bf16(out.data(), out.size());
    return;
  }
  for (double& v : out) v = round_to_elem(v, spec.dy.dtype);
}

void datapath_input_row(const NormProblem& p, const ResidualAddConfig& add, int64_t r, std::vector<double>& x,
                        uint64_t* saturations, ResidualAddCounters* counters) {
  generate_input_row(p, r, x, saturations);
  if (!p.residual) return;
  thread_local std::vector<double> res;
  generate_residual_row(p, r, res);
  ResidualAddCounters none;
  residual_add_row(*p.residual, add, p.seed, p.residual->tensor_row(r), x, res, p.input.dtype, counters ? *counters : none);
}

void generate_params(const NormProblem& p, std::vector<float>& gamma, std::vector<float>& beta) {
  gamma.resize(static_cast<size_t>(p.hidden));
  for (int64_t i = 0; i < p.hidden; ++i)
    gamma[i] = static_cast<float>(rng::sample(p.gamma, p.seed, rng::kGamma, static_cast<uint64_t>(i)));
  beta.clear();
  if (!p.beta) return;
  beta.resize(static_cast<size_t>(p.hidden));
  for (int64_t i = 0; i < p.hidden; ++i)
    beta[i] = static_cast<float>(rng::sample(*p.beta, p.seed, rng::kBeta, static_cast<uint64_t>(i)));
}

}  // namespace normsim::core
