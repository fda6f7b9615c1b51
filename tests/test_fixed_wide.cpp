// The machine-word fixed-point path (fixed_wide.hpp, fixed_kernels.hpp)
// against the 128-bit sign-magnitude Exact path: the same bits, the same
// overflow counts, on random operands in every mode and on whole datapaths
// (every shipped fixed-point arch x workload x algorithm, and random formats
// narrow enough to overflow).
#include <gtest/gtest.h>

#include <random>

#include "sim/core/fixed_wide.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/row_inputs.hpp"

using namespace normsim;
using namespace normsim::core;

namespace {
std::string src() { return std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR; }

FixedFormat random_format(std::mt19937_64& g, int max_bits) {
  FixedFormat f;
  f.is_signed = g() % 4 != 0;
  f.total_bits = static_cast<int>(g() % static_cast<uint64_t>(max_bits - 1)) + 2;
  f.frac_bits = static_cast<int>(g() % static_cast<uint64_t>(f.total_bits + 1));
  f.rounding = static_cast<Rounding>(g() % 3);
  f.overflow = static_cast<Overflow>(g() % 2);
  return f;
}

// A value of `bits` magnitude bits, either sign, with low bits at a tie
// (exactly half an output lsb) a quarter of the time.
template <class I>
I random_value(std::mt19937_64& g, int bits, int tie_shift) {
  using U = std::make_unsigned_t<I>;
  U m = (static_cast<U>(g()) << 64 % (8 * sizeof(U))) ^ static_cast<U>(g());
  if (bits < static_cast<int>(8 * sizeof(U))) m &= (U(1) << bits) - 1;
  if (tie_shift > 0 && tie_shift < bits && g() % 4 == 0) {
    m &= ~((U(1) << tie_shift) - 1);
    m |= U(1) << (tie_shift - 1);
  }
  const I v = static_cast<I>(m);
  return g() % 2 ? static_cast<I>(-v) : v;
}

template <class I>
void check_requant(int value_bits, int iterations) {
  std::mt19937_64 g(value_bits * 7919 + sizeof(I));
  for (int it = 0; it < iterations; ++it) {
    const FixedFormat f = random_format(g, 62);
    const int from_frac = static_cast<int>(g() % 80);
    int shift = from_frac - f.frac_bits;
    const int bits = shift >= 0 ? value_bits : std::min(value_bits, value_bits + shift);  // room to append zeros
    if (bits < 1 || shift >= value_bits) continue;
    const I v = random_value<I>(g, bits, shift);
    QuantFlags fw, fe;
    const Fx a{static_cast<i128>(Requant<I>(from_frac, f)(v, fw)), f.frac_bits};
    const Exact e{v < 0, v < 0 ? static_cast<u128>(-static_cast<i128>(v)) : static_cast<u128>(v), from_frac};
    const Fx b = quantize(e, f, &fe);
    ASSERT_EQ(a.raw, b.raw) << f.describe() << " from frac " << from_frac << " value " << static_cast<double>(v);
    ASSERT_EQ(a.frac, b.frac);
    ASSERT_EQ(fw.overflow, fe.overflow) << f.describe();
    ASSERT_EQ(fw.inexact, fe.inexact) << f.describe();
  }
}
}  // namespace

TEST(FixedWide, Int64RequantIsTheExactQuantiser) { check_requant<int64_t>(61, 300000); }
TEST(FixedWide, Int128RequantIsTheExactQuantiser) { check_requant<i128>(125, 300000); }

TEST(FixedWide, DoubleInputQuantiserIsTheExactOne) {
  std::mt19937_64 g(42);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int it = 0; it < 300000; ++it) {
    const FixedFormat f = random_format(g, 62);
    double x = std::ldexp(u(g), static_cast<int>(g() % 80) - 40);
    if (g() % 4 == 0) x = std::ldexp(std::round(std::ldexp(x, f.frac_bits + 1)) + 0.5, -f.frac_bits - 1);  // ties
    if (g() % 50 == 0) x = std::ldexp(u(g), 70 + static_cast<int>(g() % 200));  // beyond 2^62 lsb: exact fallback
    QuantFlags fa, fb;
    const int64_t a = quantize_double_raw(x, f, fa);
    const Fx b = quantize(exact_from_double(x), f, &fb);
    ASSERT_EQ(static_cast<i128>(a), b.raw) << f.describe() << " x " << x;
    ASSERT_EQ(fa.overflow, fb.overflow) << f.describe() << " x " << x;
    ASSERT_EQ(fa.inexact, fb.inexact) << f.describe() << " x " << x;
  }
}

TEST(FixedWide, Fixed16ChoosesTheNarrowestExactInteger) {
  const config::Arch a = config::load_arch(src() + "/workloads/arch/fixed16.yaml");
  // RMSNorm lanes: x^2 (48 bits) + sumsq (48 bits) fit 64; x rstd (no mean to subtract) 56 bits: 64.
  EXPECT_EQ(wide_bits_for(a.formats, NormKind::rmsnorm, VarianceAlgorithm::welford, ElementLoop::lanes), 64);
  EXPECT_EQ(wide_bits_for(a.formats, NormKind::rmsnorm, VarianceAlgorithm::welford, ElementLoop::xhat), 64);
  // LayerNorm's (x - mean) rstd, x aligned to the mean's 24 fraction bits: 67 bits, 128.
  EXPECT_EQ(wide_bits_for(a.formats, NormKind::layernorm, VarianceAlgorithm::welford, ElementLoop::xhat), 128);
  EXPECT_EQ(wide_bits_for(a.formats, NormKind::rmsnorm, VarianceAlgorithm::welford, ElementLoop::affine), 64);
  // Welford: delta (35 bits) x recip (32 bits) is 67 bits.
  EXPECT_EQ(wide_bits_for(a.formats, NormKind::layernorm, VarianceAlgorithm::welford, ElementLoop::lanes), 128);
  // A 64-bit stage format cannot be held in an int64_t raw: the Exact path.
  StageFormats wide = a.formats;
  wide[static_cast<int>(Stage::m2)].total_bits = 64;
  EXPECT_EQ(wide_bits_for(wide, NormKind::layernorm, VarianceAlgorithm::welford, ElementLoop::lanes), 0);
}

namespace {
struct PathResult {
  std::vector<double> y;
  std::vector<RowStats> stats;
  StageCounters counters;
};

PathResult run_rows(const DatapathConfig& cfg, const config::Workload& w, int64_t rows, bool exact_only) {
  DatapathConfig c = cfg;
  c.exact_path_only = exact_only;
  std::vector<float> gamma, beta;
  core::generate_params(w, gamma, beta);
  NormDatapath dp(c, gamma, beta);
  PathResult r;
  std::vector<double> x, y(static_cast<size_t>(w.hidden));
  for (int64_t row = 0; row < rows; ++row) {
    core::generate_input_row(w, row, x, nullptr);
    r.stats.push_back(dp.process_row(x, y, r.counters));
    r.y.insert(r.y.end(), y.begin(), y.end());
  }
  return r;
}

void expect_same(const PathResult& a, const PathResult& b, const std::string& what) {
  ASSERT_EQ(a.y.size(), b.y.size());
  for (size_t i = 0; i < a.y.size(); ++i) ASSERT_EQ(a.y[i], b.y[i]) << what << " element " << i;
  for (size_t i = 0; i < a.stats.size(); ++i) {
    ASSERT_EQ(a.stats[i].mean, b.stats[i].mean) << what << " row " << i;
    ASSERT_EQ(a.stats[i].var, b.stats[i].var) << what << " row " << i;
    ASSERT_EQ(a.stats[i].rstd, b.stats[i].rstd) << what << " row " << i;
  }
  for (int s = 0; s < kStageCount; ++s) {
    EXPECT_EQ(a.counters.quantizations[s], b.counters.quantizations[s]) << what << " stage " << to_string(static_cast<Stage>(s));
    EXPECT_EQ(a.counters.overflows[s], b.counters.overflows[s]) << what << " stage " << to_string(static_cast<Stage>(s));
  }
  EXPECT_EQ(a.counters.negative_variance_clamps, b.counters.negative_variance_clamps) << what;
}
}  // namespace

TEST(FixedWide, EveryShippedDatapathIsBitIdenticalToTheExactPath) {
  int fast_loops = 0;
  for (const char* an : {"fixed16", "int8-fixed", "asic-default"}) {
    const config::Arch a = config::load_arch(src() + "/workloads/arch/" + an + ".yaml");
    for (const char* wn : {"gpt2-small", "bert-large", "llama2-7b", "llama3-70b", "long-row", "cancellation", "int8"}) {
      config::Workload w = config::load_workload(src() + "/workloads/" + wn + ".yaml");
      for (auto kind : {NormKind::layernorm, NormKind::rmsnorm}) {
        for (auto alg : {VarianceAlgorithm::welford, VarianceAlgorithm::single_pass, VarianceAlgorithm::two_pass}) {
          if (kind == NormKind::rmsnorm && alg != VarianceAlgorithm::welford) continue;  // one RMSNorm loop
          w.norm = kind;
          const DatapathConfig cfg = config::datapath_config(w, a, alg);
          const std::string what = std::string(an) + " " + wn + " " + std::string(to_string(kind)) + " " +
                                   std::string(to_string(alg));
          const int64_t rows = std::max<int64_t>(1, 20000 / w.hidden);
          expect_same(run_rows(cfg, w, rows, false), run_rows(cfg, w, rows, true), what);
          NormDatapath probe(cfg, std::vector<float>(static_cast<size_t>(w.hidden), 1.0f), {});
          fast_loops += probe.wide_bits(ElementLoop::lanes) != 0;
        }
      }
    }
  }
  EXPECT_GT(fast_loops, 0) << "no shipped datapath takes the machine-word path";
}

TEST(FixedWide, RandomNarrowFormatsAreBitIdenticalIncludingOverflows) {
  std::mt19937_64 g(7);
  config::Workload w = config::load_workload(src() + "/workloads/gpt2-small.yaml");
  w.hidden = 96;
  const config::Arch base = config::load_arch(src() + "/workloads/arch/fixed16.yaml");
  int compared = 0, with_overflow = 0;
  for (int it = 0; it < 400; ++it) {
    const VarianceAlgorithm alg = static_cast<VarianceAlgorithm>(g() % 3);
    w.norm = g() % 3 == 0 ? NormKind::rmsnorm : NormKind::layernorm;
    config::Arch a = base;
    a.lanes = 1 << (g() % 4);
    for (int s = 0; s < kStageCount; ++s) {
      FixedFormat& f = a.formats[s];
      // Perturb the shipped widths by up to +-8 bits (fewer integer bits: overflows).
      f.total_bits = std::clamp(f.total_bits + static_cast<int>(g() % 17) - 8, 4, 62);
      f.frac_bits = std::clamp(f.frac_bits + static_cast<int>(g() % 9) - 4, 1, f.total_bits - 1);
      f.rounding = static_cast<Rounding>(g() % 3);
      f.overflow = static_cast<Overflow>(g() % 2);
    }
    DatapathConfig cfg;
    try {
      cfg = config::datapath_config(w, a, alg);
    } catch (const std::exception&) {
      continue;  // an invalid random combination
    }
    const PathResult fast = run_rows(cfg, w, 3, false), exact = run_rows(cfg, w, 3, true);
    expect_same(fast, exact, "random formats #" + std::to_string(it));
    ++compared;
    uint64_t ovf = 0;
    for (uint64_t v : exact.counters.overflows) ovf += v;
    with_overflow += ovf > 0;
  }
  EXPECT_GT(compared, 300);
  EXPECT_GT(with_overflow, 50) << "the random formats should exercise saturation and wrap";
}
