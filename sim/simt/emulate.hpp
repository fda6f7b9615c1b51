// fp32 emulation of each gpu_ref kernel's arithmetic, in the kernel's own
// order: per-thread strided partial sums, the xor-butterfly of the warp
// reductions, the shared-memory stage of block reductions, Welford and Chan
// merges, the FMA contractions the SASS shows (golden normref.sass.gz), IEEE
// division and square root, and the hardware rsqrtf (MUFU.RSQ) replayed from
// a table measured on the GPU. The inputs are the ones gpu_ref generates
// (the shared counter RNG), so the outputs can be compared bit for bit with
// the golden .npy files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/simt/kernel_desc.hpp"

namespace normsim::simt {

/// rsqrtf as the GPU computes it: the result for x = m 2^(2k + p) is the
/// table entry for (p, m) scaled by 2^-k (verified on the GPU over 2^30
/// random inputs); the table stores each entry's difference in ULPs from
/// the correctly rounded 1/sqrt (gpu_ref/golden/h200/rsqrt_table.json).
class HardwareRsqrt {
 public:
  /// Loads rsqrt_delta.npy.gz (int8, 2^24 entries); runtime_error naming the file.
  explicit HardwareRsqrt(const std::string& gz_path);
  float operator()(float x) const;

 private:
  std::vector<int8_t> delta_;
};

/// Inputs as a gpu_ref run stores them (x rounded to its dtype, as floats).
struct KernelInputs {
  int64_t rows = 0, hidden = 0;
  bool bf16 = false;
  std::vector<float> x, gamma, beta;
  std::vector<float> residual;  ///< fused_residual's r (add_residual)
  uint64_t seed = 0;            ///< the run's seed (the dropout mask's key)
  double dropout_p = 0;         ///< fused_residual_dropout's drop probability
  std::vector<float> grad_out;  ///< the backward's dy (add_grad_out)
};

/// x ~ dist (normal or cancellation, mean, sigma) from the counter RNG with
/// `seed`, rounded to float then (bf16) to bf16; gamma ~ N(1, 0.1), beta ~
/// N(0, 0.1) -- exactly as gpu_ref/normref.cu and input_gen.cu build them.
KernelInputs gpu_ref_inputs(int64_t rows, int64_t hidden, DType dtype, const std::string& dist, double mean,
                            double sigma, uint64_t seed);

/// Values rounded to bf16 (RNE) and widened back: fast_* bf16 reads gamma/beta so.
std::vector<float> as_bf16(std::vector<float> v);

/// fused_residual's second input: r ~ N(0, 1) from the counter RNG's
/// residual stream, rounded like x (normref.cu).
void add_residual(KernelInputs& in, uint64_t seed);

/// The backward's dy ~ N(0, 1) from the counter RNG's gradient stream,
/// rounded like x (normref.cu).
void add_grad_out(KernelInputs& in, uint64_t seed);

struct KernelOutputs {
  std::vector<float> y;       ///< fp32 outputs, or bf16 outputs widened to float (the backward: dx)
  std::vector<uint16_t> y_bf16;  ///< raw bf16 bits (bf16 kernels)
  std::vector<float> z;       ///< fused_residual: z = x + r (widened like y)
  std::vector<float> mean;    ///< empty for RMSNorm
  std::vector<float> rstd;
  std::vector<float> dgamma, dbeta;  ///< the backward's parameter gradients
  /// dgamma/dbeta were summed in an order the GPU does not fix (atomics):
  /// the emulation gives one order, the comparison reports the gap.
  bool parameter_order_free = false;
};

/// Runs the planned kernel's arithmetic (the kernel that ran: v6 may be v5).
KernelOutputs emulate(const LaunchPlan& plan, const KernelInputs& in, const HardwareRsqrt& rsqrt);

}  // namespace normsim::simt
