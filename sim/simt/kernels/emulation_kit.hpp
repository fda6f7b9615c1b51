// Building blocks of the kernels' fp32 emulation (kernels/*.cpp), each the
// exact arithmetic of gpu_ref/kernels/common.cuh: the xor-butterfly warp
// sum, the block sum through shared memory, Welford's push and Chan's merge
// with the FMA contractions the SASS shows, and the row loops every forward
// kernel shares. Built with -ffp-contract=off: every rounding is written out.
#pragma once

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "sim/core/element_format.hpp"
#include "sim/simt/emulate.hpp"

namespace normsim::simt {

namespace emu {

inline constexpr float kEps = 1e-5f;  // gpu_ref/kernels/common.cuh
using Lanes = std::array<float, 32>;

/// __float2bfloat16_rn: round to nearest even; NaN becomes the GPU's canonical 0x7fff.
inline uint16_t bf16_rne(float f) { return std::isnan(f) ? uint16_t(0x7fff) : core::fp32_to_bf16_bits(f); }

/// v += __shfl_xor_sync(v, off) for off = 16, 8, 4, 2, 1 (common.cuh warp_sum).
inline float warp_sum(Lanes v) {
  for (int off = 16; off >= 1; off >>= 1) {
    Lanes n;
    for (int l = 0; l < 32; ++l) n[static_cast<size_t>(l)] = v[static_cast<size_t>(l)] + v[static_cast<size_t>(l ^ off)];
    v = n;
  }
  return v[0];  // every lane holds the same bits
}

/// common.cuh block_sum: butterfly per warp, partials through shared memory,
/// then one butterfly over them (zero-padded to 32).
inline float block_sum(const std::vector<float>& per_thread) {
  const size_t warps = per_thread.size() / 32;
  Lanes partial{};
  for (size_t w = 0; w < warps; ++w) {
    Lanes v;
    std::memcpy(v.data(), per_thread.data() + 32 * w, sizeof v);
    partial[w] = warp_sum(v);
  }
  return warp_sum(partial);
}

struct Welford {
  float n = 0, mean = 0, m2 = 0;
};

/// common.cuh welford_push; SASS: the M2 update is one FFMA.
inline void push(Welford& s, float x) {
  s.n += 1.0f;
  const float d = x - s.mean;
  s.mean += d / s.n;
  s.m2 = std::fmaf(d, x - s.mean, s.m2);
}

/// common.cuh chan_merge (Chan, Golub & LeVeque 1979); SASS: mean = FFMA(d,
/// n_b/n, mean_a), M2 = FFMA(d*d, (n_a n_b)/n, M2_a + M2_b).
inline Welford chan_merge(const Welford& a, const Welford& b) {
  if (b.n == 0.0f) return a;
  if (a.n == 0.0f) return b;
  Welford r;
  r.n = a.n + b.n;
  const float d = b.mean - a.mean;
  r.mean = std::fmaf(d, b.n / r.n, a.mean);
  r.m2 = std::fmaf(d * d, (a.n * b.n) / r.n, a.m2 + b.m2);
  return r;
}

inline Welford warp_welford(std::array<Welford, 32> s) {
  for (int off = 16; off >= 1; off >>= 1) {
    std::array<Welford, 32> n;
    for (int l = 0; l < 32; ++l) {
      const Welford& mine = s[static_cast<size_t>(l)];
      const Welford& other = s[static_cast<size_t>(l ^ off)];
      n[static_cast<size_t>(l)] = (l & off) ? chan_merge(other, mine) : chan_merge(mine, other);
    }
    s = n;
  }
  return s[0];
}

inline Welford block_welford(const std::vector<Welford>& per_thread) {
  const size_t warps = per_thread.size() / 32;
  std::array<Welford, 32> partial{};
  for (size_t w = 0; w < warps; ++w) {
    std::array<Welford, 32> v;
    for (size_t l = 0; l < 32; ++l) v[l] = per_thread[32 * w + l];
    partial[w] = warp_welford(v);
  }
  return warp_welford(partial);
}

inline Lanes lanes(const std::vector<float>& v) {
  Lanes l;
  std::memcpy(l.data(), v.data(), sizeof l);
  return l;
}
inline float add(float a, float x) { return a + x; }

struct Row {
  const float* x;
  int64_t C;
  float fC;
};

}  // namespace emu

/// One emulation: the plan that ran, its inputs, the GPU's rsqrtf and the
/// outputs it fills; the stores and row loops the forward kernels share.
struct EmulationContext {
  EmulationContext(const LaunchPlan& p, const KernelInputs& i, const HardwareRsqrt& r, KernelOutputs& o)
      : plan(p), in(i), rsqrt(r), out(o), C(i.hidden), B(p.block) {}

  const LaunchPlan& plan;
  const KernelInputs& in;
  const HardwareRsqrt& rsqrt;
  KernelOutputs& out;
  int64_t C;
  int B;

  /// Sizes y (and its bf16 bits), rstd and, for LayerNorm, mean.
  void begin_forward(bool rms) {
    out.y.resize(static_cast<size_t>(in.rows * C));
    if (in.bf16) out.y_bf16.resize(out.y.size());
    out.rstd.resize(static_cast<size_t>(in.rows));
    if (!rms) out.mean.resize(static_cast<size_t>(in.rows));
  }
  /// fn(r, row) for every row of x.
  template <typename F>
  void for_each_row(F&& fn) {
    for (int64_t r = 0; r < in.rows; ++r) fn(r, emu::Row{in.x.data() + r * C, C, static_cast<float>(C)});
  }
  void store(int64_t r, int64_t c, float v) {
    const size_t i = static_cast<size_t>(r * C + c);
    if (in.bf16) {
      out.y_bf16[i] = emu::bf16_rne(v);
      out.y[i] = core::bf16_bits_to_fp32(out.y_bf16[i]);
    } else {
      out.y[i] = v;
    }
  }
  void stats(int64_t r, float m, float s) {
    if (!out.mean.empty()) out.mean[static_cast<size_t>(r)] = m;
    out.rstd[static_cast<size_t>(r)] = s;
  }
  float g(int64_t c) const { return in.gamma[static_cast<size_t>(c)]; }
  float b(int64_t c) const { return in.beta[static_cast<size_t>(c)]; }
  /// n = s (x - m); y = FFMA(n, w, b): the ladder's normalise (SASS: FADD, FMUL, FFMA).
  void normalize_s_first(int64_t r, const emu::Row& row, float m, float s) {
    for (int64_t c = 0; c < C; ++c) store(r, c, std::fmaf(s * (row.x[c] - m), g(c), b(c)));
  }
  /// n = (x - m) s; y = FFMA(n, w, b): the Welford kernels' normalise.
  void normalize_s_last(int64_t r, const emu::Row& row, float m, float s) {
    for (int64_t c = 0; c < C; ++c) store(r, c, std::fmaf((row.x[c] - m) * s, g(c), b(c)));
  }
  /// Per-thread strided partial sums: thread t of T takes t, t + T, ...
  template <typename F>
  std::vector<float> strided(const emu::Row& row, int threads, F&& term) const {
    std::vector<float> acc(static_cast<size_t>(threads), 0.0f);
    for (int t = 0; t < threads; ++t)
      for (int64_t i = t; i < row.C; i += threads) acc[static_cast<size_t>(t)] = term(acc[static_cast<size_t>(t)], row.x[i]);
    return acc;
  }
};

}  // namespace normsim::simt
