#include "sim/simt/emulate.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "sim/core/counter_rng.hpp"
#include "sim/core/element_format.hpp"
#include "sim/core/float_norm.hpp"
#include "sim/core/npy.hpp"
#include "sim/core/rng_batch.hpp"
#include "sim/core/gz_file.hpp"
#include "sim/simt/kernels/emulation_kit.hpp"
#include "sim/simt/kernels/kernel_registry.hpp"

namespace normsim::simt {

// --- hardware rsqrtf ------------------------------------------------------------

HardwareRsqrt::HardwareRsqrt(const std::string& gz_path) {
  std::istringstream npy(core::read_gz(gz_path));
  const core::NpyArray a = core::read_npy(npy, gz_path);
  if (a.dtype != "|i1" || a.elements() != (int64_t(1) << 24))
    throw std::runtime_error(gz_path + ": expected 2^24 int8 entries");
  delta_ = a.as<int8_t>();
}

float HardwareRsqrt::operator()(float x) const {
  if (std::isnan(x) || x < 0) return std::bit_cast<float>(0x7fffffffu);  // the GPU's canonical NaN
  if (x == 0) return INFINITY;
  if (std::isinf(x)) return 0.0f;
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const int e = static_cast<int>(bits >> 23);
  if (e == 0) throw std::domain_error("HardwareRsqrt: subnormal input is outside the measured table");
  const int unb = e - 127;
  const int p = ((unb % 2) + 2) % 2, k = (unb - p) / 2;
  const uint32_t idx = (static_cast<uint32_t>(p) << 23) | (bits & 0x7fffffu);
  // The table's input m in [1, 4) and its correctly rounded reference, as gpu_ref's packer computed it.
  const float m = std::bit_cast<float>(((127u + static_cast<uint32_t>(p)) << 23) | (bits & 0x7fffffu));
  const float ref = static_cast<float>(1.0 / std::sqrt(static_cast<double>(m)));
  const uint32_t t = static_cast<uint32_t>(static_cast<int64_t>(std::bit_cast<uint32_t>(ref)) + delta_[idx]);
  // rsqrt(x) = t 2^-k: move the exponent field.
  const int te = static_cast<int>((t >> 23) & 0xff) - k;
  return std::bit_cast<float>((static_cast<uint32_t>(te) << 23) | (t & 0x7fffffu));
}

// --- inputs ------------------------------------------------------------------------

KernelInputs gpu_ref_inputs(int64_t rows, int64_t hidden, DType dtype, const std::string& dist, double mean,
                            double sigma, uint64_t seed) {
  KernelInputs in;
  in.rows = rows;
  in.hidden = hidden;
  in.seed = seed;
  in.bf16 = dtype == DType::bf16;
  const rng::Distribution d =
      dist == "cancellation" ? rng::Distribution::cancellation(mean, sigma) : rng::Distribution::normal(mean, sigma);
  const size_t n = static_cast<size_t>(rows * hidden);
  std::vector<double> v(n);
  rng::sample_batch(d, seed, rng::kInput, 0, n, v.data());
  in.x.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const float f = static_cast<float>(v[i]);  // input_gen.cu: float first, then bf16
    in.x[i] = in.bf16 ? core::bf16_bits_to_fp32(emu::bf16_rne(f)) : f;
  }
  in.gamma.resize(static_cast<size_t>(hidden));
  in.beta.resize(static_cast<size_t>(hidden));
  for (int64_t i = 0; i < hidden; ++i) {
    in.gamma[static_cast<size_t>(i)] = static_cast<float>(
        rng::sample(rng::Distribution::normal(1.0, 0.1), seed, rng::kGamma, static_cast<uint64_t>(i)));
    in.beta[static_cast<size_t>(i)] = static_cast<float>(
        rng::sample(rng::Distribution::normal(0.0, 0.1), seed, rng::kBeta, static_cast<uint64_t>(i)));
  }
  return in;
}

namespace {
// A second input tensor ~ N(0, 1) from its own RNG stream, rounded like x.
std::vector<float> second_input(const KernelInputs& in, uint64_t seed, rng::Stream stream) {
  const size_t n = static_cast<size_t>(in.rows * in.hidden);
  std::vector<double> v(n);
  rng::sample_batch(rng::Distribution::normal(0.0, 1.0), seed, stream, 0, n, v.data());
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) {
    const float f = static_cast<float>(v[i]);
    out[i] = in.bf16 ? core::bf16_bits_to_fp32(emu::bf16_rne(f)) : f;
  }
  return out;
}
}  // namespace

std::vector<float> as_bf16(std::vector<float> v) {
  for (float& f : v) f = core::bf16_bits_to_fp32(emu::bf16_rne(f));
  return v;
}

void add_residual(KernelInputs& in, uint64_t seed) { in.residual = second_input(in, seed, rng::kResidual); }
void add_grad_out(KernelInputs& in, uint64_t seed) { in.grad_out = second_input(in, seed, rng::kGradOut); }

// --- the kernels' arithmetic: each family's, from the registry ----------------------

KernelOutputs emulate(const LaunchPlan& plan, const KernelInputs& in, const HardwareRsqrt& rsqrt) {
  if (in.rows != plan.rows || in.hidden != plan.hidden) throw std::invalid_argument("emulate: inputs differ from the plan");
  KernelOutputs out;
  const KernelEntry& k = kernel_entry(plan.ran);
  if (!k.emulate) throw std::invalid_argument("emulate: no emulation of kernel " + std::string(kernel_name(plan.ran)));
  EmulationContext ctx(plan, in, rsqrt, out);
  k.emulate(ctx);
  return out;
}

}  // namespace normsim::simt
