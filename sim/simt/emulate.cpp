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
#include "sim/simt/golden.hpp"

namespace normsim::simt {

// --- hardware rsqrtf ------------------------------------------------------------

HardwareRsqrt::HardwareRsqrt(const std::string& gz_path) {
  std::istringstream npy(read_gz(gz_path));
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

namespace {
// __float2bfloat16_rn: round to nearest even; NaN becomes the GPU's canonical 0x7fff.
uint16_t bf16_rne(float f) { return std::isnan(f) ? uint16_t(0x7fff) : core::fp32_to_bf16_bits(f); }
}  // namespace

KernelInputs gpu_ref_inputs(int64_t rows, int64_t hidden, const std::string& dtype, const std::string& dist,
                            double mean, double sigma, uint64_t seed) {
  KernelInputs in;
  in.rows = rows;
  in.hidden = hidden;
  in.bf16 = dtype == "bf16";
  const rng::Distribution d =
      dist == "cancellation" ? rng::Distribution::cancellation(mean, sigma) : rng::Distribution::normal(mean, sigma);
  const size_t n = static_cast<size_t>(rows * hidden);
  std::vector<double> v(n);
  rng::sample_batch(d, seed, rng::kInput, 0, n, v.data());
  in.x.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const float f = static_cast<float>(v[i]);  // input_gen.cu: float first, then bf16
    in.x[i] = in.bf16 ? core::bf16_bits_to_fp32(bf16_rne(f)) : f;
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
    out[i] = in.bf16 ? core::bf16_bits_to_fp32(bf16_rne(f)) : f;
  }
  return out;
}
}  // namespace

std::vector<float> as_bf16(std::vector<float> v) {
  for (float& f : v) f = core::bf16_bits_to_fp32(bf16_rne(f));
  return v;
}

void add_residual(KernelInputs& in, uint64_t seed) { in.residual = second_input(in, seed, rng::kResidual); }
void add_grad_out(KernelInputs& in, uint64_t seed) { in.grad_out = second_input(in, seed, rng::kGradOut); }

// --- the kernels' arithmetic ----------------------------------------------------------

namespace {

constexpr float kEps = 1e-5f;  // gpu_ref/kernels/common.cuh
using Lanes = std::array<float, 32>;

// v += __shfl_xor_sync(v, off) for off = 16, 8, 4, 2, 1 (common.cuh warp_sum).
float warp_sum(Lanes v) {
  for (int off = 16; off >= 1; off >>= 1) {
    Lanes n;
    for (int l = 0; l < 32; ++l) n[static_cast<size_t>(l)] = v[static_cast<size_t>(l)] + v[static_cast<size_t>(l ^ off)];
    v = n;
  }
  return v[0];  // every lane holds the same bits
}

// common.cuh block_sum: butterfly per warp, partials through shared memory,
// then one butterfly over them (zero-padded to 32).
float block_sum(const std::vector<float>& per_thread) {
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

// common.cuh welford_push; SASS: the M2 update is one FFMA.
void push(Welford& s, float x) {
  s.n += 1.0f;
  const float d = x - s.mean;
  s.mean += d / s.n;
  s.m2 = std::fmaf(d, x - s.mean, s.m2);
}

// common.cuh chan_merge; SASS: mean = FFMA(d, n_b/n, mean_a),
// M2 = FFMA(d*d, (n_a n_b)/n, M2_a + M2_b).
Welford chan_merge(const Welford& a, const Welford& b) {
  if (b.n == 0.0f) return a;
  if (a.n == 0.0f) return b;
  Welford r;
  r.n = a.n + b.n;
  const float d = b.mean - a.mean;
  r.mean = std::fmaf(d, b.n / r.n, a.mean);
  r.m2 = std::fmaf(d * d, (a.n * b.n) / r.n, a.m2 + b.m2);
  return r;
}

Welford warp_welford(std::array<Welford, 32> s) {
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

Welford block_welford(const std::vector<Welford>& per_thread) {
  const size_t warps = per_thread.size() / 32;
  std::array<Welford, 32> partial{};
  for (size_t w = 0; w < warps; ++w) {
    std::array<Welford, 32> v;
    for (size_t l = 0; l < 32; ++l) v[l] = per_thread[32 * w + l];
    partial[w] = warp_welford(v);
  }
  return warp_welford(partial);
}

struct Row {
  const float* x;
  int64_t C;
  float fC;
};

class Emulator {
 public:
  Emulator(const LaunchPlan& p, const KernelInputs& in, const HardwareRsqrt& rsqrt, KernelOutputs& out)
      : p_(p), in_(in), rsqrt_(rsqrt), out_(out), C_(in.hidden), B_(p.block) {}

  void run() {
    const std::string& k = p_.ran;
    if (k == "bwd_atomic" || k == "bwd_twolevel") return backward(k == "bwd_twolevel");
    const bool is_rms = k.rfind("rms_", 0) == 0;
    out_.y.resize(static_cast<size_t>(in_.rows * C_));
    if (in_.bf16) out_.y_bf16.resize(out_.y.size());
    out_.rstd.resize(static_cast<size_t>(in_.rows));
    if (!is_rms) out_.mean.resize(static_cast<size_t>(in_.rows));
    if (k == "fast_ln" || k == "fast_rms" || k == "fused_residual") frontier_setup(k);
    for (int64_t r = 0; r < in_.rows; ++r) {
      const Row row{in_.x.data() + r * C_, C_, static_cast<float>(C_)};
      if (k == "v1") v1(r, row);
      else if (k == "v2") v2(r, row);
      else if (k == "v3") v3(r, row);
      else if (k == "v4") v4(r, row);
      else if (k == "v5") v5(r, row);
      else if (k == "v6") v6(r, row);
      else if (k == "welford_warp_reg") welford_warp(r, row);
      else if (k == "welford_block_smem" || k == "block_reread") welford_block(r, row);
      else if (k == "rms_warp") rms(r, row, false);
      else if (k == "rms_block") rms(r, row, true);
      else if (k == "fast_ln" || k == "fast_rms") fast_norm(r, row, k == "fast_rms");
      else if (k == "fused_residual") fused_residual(r);
      else throw std::invalid_argument("emulate: no emulation of kernel " + k);
    }
  }

 private:
  void store(int64_t r, int64_t c, float v) {
    const size_t i = static_cast<size_t>(r * C_ + c);
    if (in_.bf16) {
      out_.y_bf16[i] = bf16_rne(v);
      out_.y[i] = core::bf16_bits_to_fp32(out_.y_bf16[i]);
    } else {
      out_.y[i] = v;
    }
  }
  void stats(int64_t r, float m, float s) {
    if (!out_.mean.empty()) out_.mean[static_cast<size_t>(r)] = m;
    out_.rstd[static_cast<size_t>(r)] = s;
  }
  float g(int64_t c) const { return in_.gamma[static_cast<size_t>(c)]; }
  float b(int64_t c) const { return in_.beta[static_cast<size_t>(c)]; }
  // n = s (x - m); y = FFMA(n, w, b): the ladder's normalise (SASS: FADD, FMUL, FFMA).
  void normalize_s_first(int64_t r, const Row& row, float m, float s) {
    for (int64_t c = 0; c < C_; ++c) store(r, c, std::fmaf(s * (row.x[c] - m), g(c), b(c)));
  }
  // n = (x - m) s; y = FFMA(n, w, b): the Welford kernels' normalise.
  void normalize_s_last(int64_t r, const Row& row, float m, float s) {
    for (int64_t c = 0; c < C_; ++c) store(r, c, std::fmaf((row.x[c] - m) * s, g(c), b(c)));
  }
  // Per-thread strided partial sums: thread t of T takes t, t + T, ...
  template <typename F>
  std::vector<float> strided(const Row& row, int threads, F&& term) const {
    std::vector<float> acc(static_cast<size_t>(threads), 0.0f);
    for (int t = 0; t < threads; ++t)
      for (int64_t i = t; i < row.C; i += threads) acc[static_cast<size_t>(t)] = term(acc[static_cast<size_t>(t)], row.x[i]);
    return acc;
  }
  static Lanes lanes(const std::vector<float>& v) {
    Lanes l;
    std::memcpy(l.data(), v.data(), sizeof l);
    return l;
  }
  static float add(float a, float x) { return a + x; }

  void v1(int64_t r, const Row& row) {
    float m = 0.0f;
    for (int64_t i = 0; i < C_; ++i) m += row.x[i];
    m = m / row.fC;
    float v = 0.0f;
    for (int64_t i = 0; i < C_; ++i) {
      const float xs = row.x[i] - m;
      v = std::fmaf(xs, xs, v);
    }
    v = v / row.fC;
    const float s = 1.0f / std::sqrt(v + kEps);
    normalize_s_first(r, row, m, s);
    stats(r, m, s);
  }
  // Shared-memory tree of ln_v2_mean / ln_v2_rstd: shared[t] += shared[t + stride].
  float smem_tree(std::vector<float> sh) const {
    for (int stride = B_ / 2; stride >= 1; stride /= 2)
      for (int t = 0; t < stride; ++t) sh[static_cast<size_t>(t)] += sh[static_cast<size_t>(t + stride)];
    return sh[0];
  }
  void v2(int64_t r, const Row& row) {
    const float m = smem_tree(strided(row, B_, add)) / row.fC;
    const float ss = smem_tree(strided(row, B_, [m](float a, float x) {
      const float d = x - m;
      return std::fmaf(d, d, a);
    }));
    const float s = 1.0f / std::sqrt(ss / row.fC + kEps);
    for (int64_t c = 0; c < C_; ++c) store(r, c, std::fmaf((row.x[c] - m) * s, g(c), b(c)));
    stats(r, m, s);
  }
  void v3(int64_t r, const Row& row) {
    const float m = warp_sum(lanes(strided(row, 32, add))) / row.fC;
    const float v = warp_sum(lanes(strided(row, 32, [m](float a, float x) {
      const float d = x - m;
      return std::fmaf(d, d, a);
    })));
    const float s = rsqrt_(v / row.fC + kEps);
    normalize_s_first(r, row, m, s);
    stats(r, m, s);
  }
  void v4(int64_t r, const Row& row) {
    const float sum = warp_sum(lanes(strided(row, 32, add))) / row.fC;
    const float sum2 = warp_sum(lanes(strided(row, 32, [](float a, float x) { return std::fmaf(x, x, a); }))) / row.fC;
    const float var = std::fmaf(-sum, sum, sum2);  // SASS: FFMA(-sum, sum, sum2)
    const float s = rsqrt_(var + kEps);
    normalize_s_first(r, row, sum, s);
    stats(r, sum, s);
  }
  void v5(int64_t r, const Row& row) {
    const float bsum = block_sum(strided(row, B_, add)) / row.fC;
    const float bsum2 = block_sum(strided(row, B_, [](float a, float x) { return std::fmaf(x, x, a); })) / row.fC;
    const float s = rsqrt_(std::fmaf(-bsum, bsum, bsum2) + kEps);
    normalize_s_first(r, row, bsum, s);
    stats(r, bsum, s);
  }
  // v6: lane l takes 16-byte chunks l*V, l*V + 32V, ..., the V elements of a chunk in order.
  template <typename F>
  Lanes chunked(const Row& row, F&& term) const {
    const int V = in_.bf16 ? 8 : 4;
    Lanes acc{};
    for (int l = 0; l < 32; ++l)
      for (int64_t c = static_cast<int64_t>(l) * V; c < row.C; c += 32 * V)
        for (int k = 0; k < V; ++k) acc[static_cast<size_t>(l)] = term(acc[static_cast<size_t>(l)], row.x[c + k]);
    return acc;
  }
  void v6(int64_t r, const Row& row) {
    const float m = warp_sum(chunked(row, add)) / row.fC;
    const float v = warp_sum(chunked(row, [m](float a, float x) {
      const float d = x - m;
      return std::fmaf(d, d, a);
    }));
    const float s = rsqrt_(v / row.fC + kEps);
    normalize_s_first(r, row, m, s);
    stats(r, m, s);
  }
  void welford_warp(int64_t r, const Row& row) {
    std::array<Welford, 32> st{};
    for (int l = 0; l < 32; ++l)
      for (int64_t c = l; c < row.C; c += 32) push(st[static_cast<size_t>(l)], row.x[c]);
    const Welford w = warp_welford(st);
    const float s = 1.0f / std::sqrt(w.m2 / row.fC + kEps);
    normalize_s_last(r, row, w.mean, s);
    stats(r, w.mean, s);
  }
  void welford_block(int64_t r, const Row& row) {
    std::vector<Welford> st(static_cast<size_t>(B_));
    for (int t = 0; t < B_; ++t)
      for (int64_t c = t; c < row.C; c += B_) push(st[static_cast<size_t>(t)], row.x[c]);
    const Welford w = block_welford(st);
    const float s = 1.0f / std::sqrt(w.m2 / row.fC + kEps);
    normalize_s_last(r, row, w.mean, s);
    stats(r, w.mean, s);
  }
  void rms(int64_t r, const Row& row, bool block) {
    auto sq = [](float a, float x) { return std::fmaf(x, x, a); };
    const float ss = block ? block_sum(strided(row, B_, sq)) : warp_sum(lanes(strided(row, 32, sq)));
    const float s = rsqrt_(ss / row.fC + kEps);
    for (int64_t c = 0; c < C_; ++c) store(r, c, (row.x[c] * s) * g(c));
    stats(r, 0.0f, s);
  }

  // --- the frontier kernels (fast_norm.cuh, fused_bwd.cuh) ---
  // A row's T threads sit in `blocks_` blocks (a cluster; one block but for
  // fast_norm_cluster_stream). Block b holds vectors [b P, b P + P) of the
  // row (P = ceil(vectors / blocks)); its thread t holds vectors b P + t,
  // b P + t + T/blocks, ... (zero beyond its share), each of kN elements.
  void frontier_setup(const std::string& k) {
    const SubKernel& s = p_.launches.at(0);
    if (s.name != "fast_norm" && s.name != "fused_residual_ln" && s.name != "fast_norm_cluster_stream")
      throw std::invalid_argument("emulate: no emulation of " + s.function + " (only the register-resident kernels)");
    threads_ = s.threads_per_row;
    blocks_ = s.blocks_per_row;
    kn_ = in_.bf16 ? 8 : 4;
    block_threads_ = threads_ / blocks_;
    per_block_ = (C_ / kn_ + blocks_ - 1) / blocks_;
    vecs_ = static_cast<int>((per_block_ + block_threads_ - 1) / block_threads_);
    const bool bf16_params = k != "fused_residual" && in_.bf16;  // fast_* bf16 reads bf16 gamma/beta
    params_g_ = bf16_params ? as_bf16(in_.gamma) : in_.gamma;
    params_b_ = bf16_params ? as_bf16(in_.beta) : in_.beta;
    if (k == "fused_residual") {
      if (in_.residual.size() != in_.x.size()) throw std::invalid_argument("emulate: fused_residual needs add_residual");
      out_.z.resize(in_.x.size());
    }
  }
  // row_sum<THREADS>: a warp's butterfly, or the block's two levels; over a
  // cluster, each block's sum, added in rank order (from 0.0f, as the kernel).
  float row_sum(const std::vector<float>& per_thread) const {
    if (threads_ <= 32) return warp_sum(lanes(per_thread));
    if (blocks_ == 1) return block_sum(per_thread);
    const size_t bt = per_thread.size() / static_cast<size_t>(blocks_);
    float total = 0.0f;
    for (int b = 0; b < blocks_; ++b)
      total += block_sum(std::vector<float>(per_thread.begin() + static_cast<std::ptrdiff_t>(b * bt),
                                            per_thread.begin() + static_cast<std::ptrdiff_t>((b + 1) * bt)));
    return total;
  }
  // Vector k of thread t (global index over the cluster), or -1 past its share.
  int64_t vector_of(int t, int k) const {
    const int64_t b = t / block_threads_, local = t % block_threads_ + static_cast<int64_t>(k) * block_threads_;
    const int64_t mine = std::max<int64_t>(0, std::min(per_block_, C_ / kn_ - b * per_block_));
    return local < mine ? b * per_block_ + local : -1;
  }
  // Exact two-pass statistics from the registers, then y = FFMA(n, g, b) (RMS: n g).
  void register_row(int64_t r, const float* v, bool is_rms) {
    std::vector<float> acc(static_cast<size_t>(threads_), 0.0f);
    float mean = 0.0f;
    if (!is_rms) {
      for (int t = 0; t < threads_; ++t)
        for (int k = 0; k < vecs_; ++k) {
          const int64_t i = vector_of(t, k);
          for (int j = 0; j < kn_; ++j) acc[static_cast<size_t>(t)] += i >= 0 ? v[i * kn_ + j] : 0.0f;
        }
      mean = row_sum(acc) / static_cast<float>(C_);
    }
    for (int t = 0; t < threads_; ++t) {
      float q = 0.0f;
      for (int k = 0; k < vecs_; ++k) {
        const int64_t i = vector_of(t, k);
        if (i < 0) continue;
        for (int j = 0; j < kn_; ++j) {
          const float d = v[i * kn_ + j] - mean;
          q = std::fmaf(d, d, q);
        }
      }
      acc[static_cast<size_t>(t)] = q;
    }
    const float rstd = rsqrt_(row_sum(acc) / static_cast<float>(C_) + kEps);
    for (int64_t c = 0; c < C_; ++c) {
      const float n = (v[c] - mean) * rstd;
      store(r, c, is_rms ? n * params_g_[static_cast<size_t>(c)]
                         : std::fmaf(n, params_g_[static_cast<size_t>(c)], params_b_[static_cast<size_t>(c)]));
    }
    stats(r, mean, rstd);
  }
  void fast_norm(int64_t r, const Row& row, bool is_rms) { register_row(r, row.x, is_rms); }
  // z = x + r rounded to the dtype and stored; the row normalised from the stored z.
  void fused_residual(int64_t r) {
    std::vector<float> z(static_cast<size_t>(C_));
    for (int64_t c = 0; c < C_; ++c) {
      const size_t i = static_cast<size_t>(r * C_ + c);
      const float sum = in_.x[i] + in_.residual[i];
      z[static_cast<size_t>(c)] = in_.bf16 ? core::bf16_bits_to_fp32(bf16_rne(sum)) : sum;
      out_.z[i] = z[static_cast<size_t>(c)];
    }
    register_row(r, z.data(), false);
  }

  // ln_backward (fused_bwd.cuh, SASS of ln_backward<float, 128, 2, true>):
  // block b walks rows b, b + grid, ...; thread t holds vectors t + k T.
  //   x_hat = (x - mu) rstd (FADD, FMUL); g = dy gamma (FMUL);
  //   s1 += g (FADD); s2 = FFMA(x_hat, g, s2); pg = FFMA(dy, x_hat, pg); pb += dy;
  //   dx = FFMA(-S2, x_hat, FFMA(C, g, -S1)) (rstd / C).
  // The statistics are the harness's (core::reference_stats_fp32). Two
  // levels: partials per block, then bwd_column_sum's order (thread ty adds
  // blocks ty, ty + 32, ...; then the 32 sums in ty order).
  void backward(bool two_level) {
    const SubKernel& s = p_.launches.at(0);
    if (in_.grad_out.size() != in_.x.size()) throw std::invalid_argument("emulate: the backward needs add_grad_out");
    const int T = s.threads_per_row, kn = in_.bf16 ? 8 : 4, V = in_.bf16 ? 1 : 2;
    const int64_t blocks = s.grid, nvec = C_ / kn, rows = in_.rows;
    std::vector<float> mean, rstd;
    core::reference_stats_fp32(in_.x, rows, C_, kEps, mean, rstd);
    out_.y.assign(static_cast<size_t>(rows * C_), 0.0f);
    if (in_.bf16) out_.y_bf16.assign(out_.y.size(), 0);
    std::vector<float> pg(static_cast<size_t>(blocks * C_), 0.0f), pb(pg.size(), 0.0f);
    std::vector<float> s1(static_cast<size_t>(T)), s2(static_cast<size_t>(T)), xh(static_cast<size_t>(C_)),
        g(static_cast<size_t>(C_));
    const float Cf = static_cast<float>(C_);
    for (int64_t b = 0; b < blocks; ++b)
      for (int64_t r = b; r < rows; r += blocks) {
        const float mu = mean[static_cast<size_t>(r)], rs = rstd[static_cast<size_t>(r)];
        for (int t = 0; t < T; ++t) {
          float a1 = 0.0f, a2 = 0.0f;
          for (int k = 0; k < V; ++k) {
            const int64_t i = t + static_cast<int64_t>(k) * T;
            if (i >= nvec) continue;
            for (int j = 0; j < kn; ++j) {
              const int64_t c = i * kn + j;
              const size_t e = static_cast<size_t>(r * C_ + c), pc = static_cast<size_t>(b * C_ + c);
              const float dy = in_.grad_out[e];
              xh[static_cast<size_t>(c)] = (in_.x[e] - mu) * rs;
              g[static_cast<size_t>(c)] = dy * in_.gamma[static_cast<size_t>(c)];
              a1 += g[static_cast<size_t>(c)];
              a2 = std::fmaf(xh[static_cast<size_t>(c)], g[static_cast<size_t>(c)], a2);
              pg[pc] = std::fmaf(dy, xh[static_cast<size_t>(c)], pg[pc]);
              pb[pc] += dy;
            }
          }
          s1[static_cast<size_t>(t)] = a1;
          s2[static_cast<size_t>(t)] = a2;
        }
        const float S1 = T <= 32 ? warp_sum(lanes(s1)) : block_sum(s1);
        const float S2 = T <= 32 ? warp_sum(lanes(s2)) : block_sum(s2);
        const float scale = rs / Cf;
        for (int64_t c = 0; c < C_; ++c) {
          const float u = std::fmaf(-S2, xh[static_cast<size_t>(c)], std::fmaf(Cf, g[static_cast<size_t>(c)], -S1));
          store(r, c, u * scale);
        }
      }
    out_.dgamma.assign(static_cast<size_t>(C_), 0.0f);
    out_.dbeta.assign(static_cast<size_t>(C_), 0.0f);
    for (int64_t c = 0; c < C_; ++c) {
      float G = 0.0f, Bt = 0.0f;
      if (two_level) {
        for (int ty = 0; ty < 32; ++ty) {
          float gs = 0.0f, bs = 0.0f;
          for (int64_t k = ty; k < blocks; k += 32) gs += pg[static_cast<size_t>(k * C_ + c)], bs += pb[static_cast<size_t>(k * C_ + c)];
          G += gs, Bt += bs;
        }
      } else {  // atomics from zero, here in block order
        for (int64_t k = 0; k < blocks; ++k) G += pg[static_cast<size_t>(k * C_ + c)], Bt += pb[static_cast<size_t>(k * C_ + c)];
      }
      out_.dgamma[static_cast<size_t>(c)] = G;
      out_.dbeta[static_cast<size_t>(c)] = Bt;
    }
    out_.parameter_order_free = !two_level;
  }

  int threads_ = 0, blocks_ = 1, block_threads_ = 1, vecs_ = 0, kn_ = 4;
  int64_t per_block_ = 0;  ///< vectors of a row each block holds
  std::vector<float> params_g_, params_b_;
  const LaunchPlan& p_;
  const KernelInputs& in_;
  const HardwareRsqrt& rsqrt_;
  KernelOutputs& out_;
  int64_t C_;
  int B_;
};

}  // namespace

KernelOutputs emulate(const LaunchPlan& plan, const KernelInputs& in, const HardwareRsqrt& rsqrt) {
  if (in.rows != plan.rows || in.hidden != plan.hidden) throw std::invalid_argument("emulate: inputs differ from the plan");
  KernelOutputs out;
  Emulator(plan, in, rsqrt, out).run();
  return out;
}

}  // namespace normsim::simt
