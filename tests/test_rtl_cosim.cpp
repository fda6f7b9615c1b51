// RTL co-simulation: the Verilog units of rtl_models/, verilated as SystemC
// modules at one arch's formats (RTL_ARCH), against sim/core's functions on
// random and edge-case operands, bit for bit (values and overflow flags).
// Built once per arch; the RTL_EXPECT_MISMATCH build carries a one-bit change
// in the rounding logic and must disagree.
#include <gtest/gtest.h>
#include <systemc.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <random>
#include <sstream>

#include RTL_BENCH_HEADER
#include "sim/asic/port_signal.hpp"
#include "sim/config/arch.hpp"
#include "sim/core/backward_units.hpp"
#include "sim/core/dropout_mask.hpp"
#include "sim/core/fixed_units.hpp"
#include "sim/core/rsqrt_kind.hpp"
#include "sim/core/residual_add.hpp"
#include "sim/core/merge_schedule.hpp"
#include "sim/rtl/rtl_config.hpp"
#include "tests/rtl/clocked_bench.hpp"

int sc_main(int, char**) { return 0; }  // libsystemc wants one; gtest's main runs the tests

namespace {
using namespace normsim;
using namespace normsim::core;

constexpr int64_t kVectors = 1'000'000;
const config::Arch& arch() {
  static const config::Arch a = config::load_arch(RTL_ARCH);
  return a;
}
const FixedFormat& fmt(Stage s) { return arch().formats[static_cast<int>(s)]; }


// Operands: uniform raw words, small magnitudes, powers of two (their
// products land on rounding ties) and the format's extremes.
class Operands {
 public:
  explicit Operands(uint64_t seed) : rng_(seed) {}
  Fx operator()(const FixedFormat& f) {
    const i128 lo = f.min_raw(), hi = f.max_raw();
    i128 raw = 0;
    switch (rng_() % 8) {
      case 0: case 1: case 2: {  // any word
        const uint64_t mask = f.total_bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << f.total_bits) - 1;
        raw = from_word(rng_() & mask, f).raw;
        break;
      }
      case 3: case 4: {  // small: |raw| < 2^k
        const int k = static_cast<int>(rng_() % static_cast<uint64_t>(f.total_bits));
        raw = static_cast<i128>(rng_() & ((uint64_t(1) << k) - 1));
        if (f.is_signed && (rng_() & 1)) raw = -raw;
        break;
      }
      case 5: case 6: {  // a power of two
        const int k = static_cast<int>(rng_() % static_cast<uint64_t>(f.total_bits - (f.is_signed ? 1 : 0)));
        raw = i128(1) << k;
        if (f.is_signed && (rng_() & 1)) raw = -raw;
        break;
      }
      default: {  // extremes
        const i128 e[] = {0, 1, hi, hi - 1, lo, lo + 1, f.is_signed ? i128(-1) : i128(2)};
        raw = e[rng_() % 7];
      }
    }
    raw = std::min(std::max(raw, lo), hi);
    return Fx{raw, f.frac_bits};
  }
  uint64_t next() { return rng_(); }

 private:
  std::mt19937_64 rng_;
};

// The verilated bench with a signal on every port; one per process.
struct Bench : rtl_test::ClockedBench {
  RTL_BENCH dut{"rtl_bench"};
#define NORMSIM_PORT(p) decltype(asic::bind_signal(dut.p))& p = asic::bind_signal(dut.p);
  NORMSIM_PORT(wl_start) NORMSIM_PORT(wl_in_valid) NORMSIM_PORT(wl_x) NORMSIM_PORT(wl_count) NORMSIM_PORT(wl_mean)
  NORMSIM_PORT(wl_m2) NORMSIM_PORT(wl_mean_overflow) NORMSIM_PORT(wl_m2_overflow)
  NORMSIM_PORT(wu_x) NORMSIM_PORT(wu_mean) NORMSIM_PORT(wu_m2) NORMSIM_PORT(wu_recip) NORMSIM_PORT(wu_mean_next)
  NORMSIM_PORT(wu_m2_next) NORMSIM_PORT(wu_mean_overflow) NORMSIM_PORT(wu_m2_overflow)
  NORMSIM_PORT(cm_n_a) NORMSIM_PORT(cm_n_b) NORMSIM_PORT(cm_mean_a) NORMSIM_PORT(cm_mean_b) NORMSIM_PORT(cm_m2_a)
  NORMSIM_PORT(cm_m2_b) NORMSIM_PORT(cm_coef) NORMSIM_PORT(cm_n) NORMSIM_PORT(cm_mean) NORMSIM_PORT(cm_m2)
  NORMSIM_PORT(cm_mean_overflow) NORMSIM_PORT(cm_m2_overflow)
  NORMSIM_PORT(rs_in_valid) NORMSIM_PORT(rs_in) NORMSIM_PORT(rs_out_valid) NORMSIM_PORT(rs_out) NORMSIM_PORT(rs_overflow)
  NORMSIM_PORT(na_x) NORMSIM_PORT(na_mean) NORMSIM_PORT(na_rstd) NORMSIM_PORT(na_gamma) NORMSIM_PORT(na_beta)
  NORMSIM_PORT(na_xhat) NORMSIM_PORT(na_y) NORMSIM_PORT(na_xhat_overflow) NORMSIM_PORT(na_y_overflow)
  NORMSIM_PORT(sq_go) NORMSIM_PORT(sq_lane_n) NORMSIM_PORT(sq_lane_mean) NORMSIM_PORT(sq_lane_m2)
  NORMSIM_PORT(sq_lane_sumsq) NORMSIM_PORT(sq_coef)
  NORMSIM_PORT(sa_ready) NORMSIM_PORT(sa_out_valid) NORMSIM_PORT(sa_n) NORMSIM_PORT(sa_mean) NORMSIM_PORT(sa_root)
  NORMSIM_PORT(sb_ready) NORMSIM_PORT(sb_out_valid) NORMSIM_PORT(sb_n) NORMSIM_PORT(sb_mean) NORMSIM_PORT(sb_root)
  NORMSIM_PORT(sr_ready) NORMSIM_PORT(sr_out_valid) NORMSIM_PORT(sr_root)
  NORMSIM_PORT(pm_in_valid) NORMSIM_PORT(pm_key) NORMSIM_PORT(pm_counter) NORMSIM_PORT(pm_stream) NORMSIM_PORT(pm_threshold)
  NORMSIM_PORT(pm_out_valid) NORMSIM_PORT(pm_words) NORMSIM_PORT(pm_keep)
  NORMSIM_PORT(ra_x) NORMSIM_PORT(ra_r) NORMSIM_PORT(ra_z) NORMSIM_PORT(ra_overflow)
  NORMSIM_PORT(rd_x) NORMSIM_PORT(rd_r) NORMSIM_PORT(rd_scale) NORMSIM_PORT(rd_keep) NORMSIM_PORT(rd_z) NORMSIM_PORT(rd_overflow)
  NORMSIM_PORT(bo_start) NORMSIM_PORT(bo_in_valid) NORMSIM_PORT(bo_x) NORMSIM_PORT(bo_xs) NORMSIM_PORT(bo_mean)
  NORMSIM_PORT(bo_rstd) NORMSIM_PORT(bo_dy) NORMSIM_PORT(bo_gamma) NORMSIM_PORT(bo_m1) NORMSIM_PORT(bo_m2)
  NORMSIM_PORT(bo_dgamma) NORMSIM_PORT(bo_dbeta) NORMSIM_PORT(bo_s1a) NORMSIM_PORT(bo_s1b) NORMSIM_PORT(bo_s2a)
  NORMSIM_PORT(bo_s2b) NORMSIM_PORT(bo_recip)
#define NORMSIM_LANE(p) NORMSIM_PORT(p##_xhat) NORMSIM_PORT(p##_g) NORMSIM_PORT(p##_s1) NORMSIM_PORT(p##_s2) \
  NORMSIM_PORT(p##_xhat_overflow) NORMSIM_PORT(p##_g_overflow) NORMSIM_PORT(p##_s1_overflow) NORMSIM_PORT(p##_s2_overflow)
  NORMSIM_LANE(rl) NORMSIM_LANE(rr) NORMSIM_LANE(rt)
#undef NORMSIM_LANE
  NORMSIM_PORT(dl_dx) NORMSIM_PORT(dl_dx_overflow) NORMSIM_PORT(dr_dx) NORMSIM_PORT(dr_dx_overflow)
  NORMSIM_PORT(dt_dx) NORMSIM_PORT(dt_dx_overflow)
  NORMSIM_PORT(pl_dgamma) NORMSIM_PORT(pl_dbeta) NORMSIM_PORT(pl_dgamma_overflow) NORMSIM_PORT(pl_dbeta_overflow)
  NORMSIM_PORT(pr_dgamma) NORMSIM_PORT(pr_dbeta) NORMSIM_PORT(pr_dgamma_overflow) NORMSIM_PORT(pr_dbeta_overflow)
  NORMSIM_PORT(nl_s1) NORMSIM_PORT(nl_s2) NORMSIM_PORT(nl_s1_overflow) NORMSIM_PORT(nl_s2_overflow)
  NORMSIM_PORT(ml_m1) NORMSIM_PORT(ml_m2) NORMSIM_PORT(ml_m1_overflow) NORMSIM_PORT(ml_m2_overflow)
  NORMSIM_PORT(mp_m1) NORMSIM_PORT(mp_m2) NORMSIM_PORT(mp_m1_overflow) NORMSIM_PORT(mp_m2_overflow)
#undef NORMSIM_PORT
  Bench() { dut.clk(clk); }
};

template <class Sig>
void put(Sig& s, Fx v, const FixedFormat& f) {
  s.write(static_cast<typename std::decay_t<decltype(s.read())>>(to_word(v, f.total_bits)));
}
template <class Sig>
Fx get(const Sig& s, const FixedFormat& f) {
  return from_word(static_cast<uint64_t>(s.read()), f);
}
// Sets field `i` (`bits` wide) of a bus value of several (an sc_bv, or an
// integer up to 64 bits); a signal is then written once with all of them.
template <class V>
void set_field(V& v, int i, int bits, uint64_t word) {
  if constexpr (std::is_integral_v<V>) {  // a bus of at most 64 bits
    const uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    v = static_cast<V>((static_cast<uint64_t>(v) & ~(mask << (i * bits))) | ((word & mask) << (i * bits)));
  } else {
    v.range((i + 1) * bits - 1, i * bits) = word;
  }
}

// Mismatch bookkeeping: the first few are printed in full (the message is
// built only for those).
struct Mismatches {
  int64_t count = 0;
  template <class Describe>
  void check(bool same, Describe&& what) {
    if (same) return;
    if (++count <= 5) ADD_FAILURE_IF_EXPECTED(what());
  }
  static void ADD_FAILURE_IF_EXPECTED(const std::string& what) {
#ifdef RTL_EXPECT_MISMATCH
    std::cout << "  (expected) " << what << "\n";
#else
    ADD_FAILURE() << what;
#endif
  }
  void finish(int64_t vectors) const {
#ifdef RTL_EXPECT_MISMATCH
    EXPECT_GT(count, 0) << "the mutated RTL agreed with sim/core on all " << vectors << " vectors";
#else
    EXPECT_EQ(count, 0) << "of " << vectors << " vectors";
#endif
  }
};

std::string show(Fx v) { return std::to_string(static_cast<int64_t>(v.raw)); }

bool counted(const StageCounters& before, const StageCounters& after, Stage s) {
  return after.overflows[static_cast<int>(s)] != before.overflows[static_cast<int>(s)];
}

// The backward's formats, and whether a call overflowed a backward stage.
using BS = BackwardStage;
const BackwardFormats& bformats() { return *arch().backward_formats; }
const FixedFormat& bfmt(BS s) { return bformats()[static_cast<size_t>(s)]; }
bool counted(const BackwardCounters& before, const BackwardCounters& after, BS s) {
  return after.overflows[static_cast<int>(s)] != before.overflows[static_cast<int>(s)];
}
// The bench's three backward variants: LayerNorm, RMSNorm, LayerNorm with x_hat stored.
struct BackwardVariant {
  const char* name;
  NormKind kind;
  bool stored;
};
constexpr BackwardVariant kBackwardVariants[] = {
    {"layernorm", NormKind::layernorm, false}, {"rmsnorm", NormKind::rmsnorm, false}, {"xhat stored", NormKind::layernorm, true}};
// One element's operands (x in the input format, xs in the xhat format).
struct BackwardElement {
  Fx x, xs, mean, rstd, dy, gamma;
  explicit BackwardElement(Operands& op)
      : x(op(fmt(Stage::input))), xs(op(bfmt(BS::xhat))), mean(op(fmt(Stage::mean))), rstd(op(fmt(Stage::rsqrt_out))),
        dy(op(bfmt(BS::dy))), gamma(op(fmt(Stage::gamma))) {}
  void drive(Bench& b) const {
    put(b.bo_x, x, fmt(Stage::input));
    put(b.bo_xs, xs, bfmt(BS::xhat));
    put(b.bo_mean, mean, fmt(Stage::mean));
    put(b.bo_rstd, rstd, fmt(Stage::rsqrt_out));
    put(b.bo_dy, dy, bfmt(BS::dy));
    put(b.bo_gamma, gamma, fmt(Stage::gamma));
  }
  BackwardOperands operands(const BackwardVariant& v, BackwardCounters& c) const {
    return backward_operands(v.kind, v.stored, v.stored ? xs : x, mean, rstd, dy, gamma, bformats(), c);
  }
  std::string describe() const {
    return "x " + show(x) + " xs " + show(xs) + " mean " + show(mean) + " rstd " + show(rstd) + " dy " + show(dy) +
           " gamma " + show(gamma);
  }
};
}  // namespace

TEST(RtlCosim, WelfordUpdateMatchesCore) {
  Bench b;
  Operands op(1);
  Mismatches mm;
  StageCounters c;
  for (int64_t i = 0; i < kVectors; ++i) {
    const FxWelford s{1, op(fmt(Stage::mean)), op(fmt(Stage::m2))};
    const Fx x = op(fmt(Stage::input)), r = op(fmt(Stage::recip));
    put(b.wu_x, x, fmt(Stage::input));
    put(b.wu_mean, s.mean, fmt(Stage::mean));
    put(b.wu_m2, s.m2, fmt(Stage::m2));
    put(b.wu_recip, r, fmt(Stage::recip));
    b.settle();
    const StageCounters before = c;
    const FxWelford ref = welford_update(s, x, r, arch().formats, c);
    const Fx mean = get(b.wu_mean_next, fmt(Stage::mean)), m2 = get(b.wu_m2_next, fmt(Stage::m2));
    mm.check(mean.raw == ref.mean.raw && m2.raw == ref.m2.raw &&
                 b.wu_mean_overflow.read() == counted(before, c, Stage::mean) &&
                 b.wu_m2_overflow.read() == counted(before, c, Stage::m2), [&] {
      std::ostringstream what;
      what << "x " << show(x) << " mean " << show(s.mean) << " m2 " << show(s.m2) << " recip " << show(r) << ": rtl ("
           << show(mean) << ", " << show(m2) << ", ovf " << b.wu_mean_overflow.read() << b.wu_m2_overflow.read()
           << ") core (" << show(ref.mean) << ", " << show(ref.m2) << ", ovf " << counted(before, c, Stage::mean)
           << counted(before, c, Stage::m2) << ")";
      return what.str();
    });
  }
  mm.finish(kVectors);
}

TEST(RtlCosim, ChanMergeMatchesCore) {
  Bench b;
  Operands op(2);
  Mismatches mm;
  StageCounters c;
  const FixedFormat& rf = fmt(Stage::recip);
  for (int64_t i = 0; i < kVectors; ++i) {
    // Counts: equal (a tree over equal lanes), unequal, and an empty side.
    const int64_t na = static_cast<int64_t>(op.next() % 8 == 0 ? 0 : 1 + op.next() % (1 << 20));
    const uint64_t pick = op.next() % 8;
    const int64_t nb = pick < 3 ? na : pick == 3 ? 0 : static_cast<int64_t>(1 + op.next() % (1 << 20));
    const FxWelford a{na, op(fmt(Stage::mean)), op(fmt(Stage::m2))};
    const FxWelford bb{nb, op(fmt(Stage::mean)), op(fmt(Stage::m2))};
    const Fx coef = na + nb > 0 ? merge_coefficient(na, nb, rf) : Fx{0, rf.frac_bits};
    b.cm_n_a.write(static_cast<uint32_t>(na));
    b.cm_n_b.write(static_cast<uint32_t>(nb));
    put(b.cm_mean_a, a.mean, fmt(Stage::mean));
    put(b.cm_mean_b, bb.mean, fmt(Stage::mean));
    put(b.cm_m2_a, a.m2, fmt(Stage::m2));
    put(b.cm_m2_b, bb.m2, fmt(Stage::m2));
    put(b.cm_coef, coef, rf);
    b.settle();
    const StageCounters before = c;
    const FxWelford ref = chan_merge(a, bb, arch().formats, c);
    const Fx mean = get(b.cm_mean, fmt(Stage::mean)), m2 = get(b.cm_m2, fmt(Stage::m2));
    mm.check(static_cast<int64_t>(b.cm_n.read()) == ref.count && mean.raw == ref.mean.raw && m2.raw == ref.m2.raw &&
                 b.cm_mean_overflow.read() == counted(before, c, Stage::mean) &&
                 b.cm_m2_overflow.read() == counted(before, c, Stage::m2), [&] {
      std::ostringstream what;
      what << "n " << na << "+" << nb << " means " << show(a.mean) << "," << show(bb.mean) << " m2 " << show(a.m2)
           << "," << show(bb.m2) << ": rtl (" << b.cm_n.read() << ", " << show(mean) << ", " << show(m2) << ") core ("
           << ref.count << ", " << show(ref.mean) << ", " << show(ref.m2) << ")";
      return what.str();
    });
  }
  mm.finish(kVectors);
}

TEST(RtlCosim, RsqrtMatchesCoreThroughItsPipeline) {
  Bench b;
  Operands op(3);
  Mismatches mm;
  const auto table = make_rsqrt_rom(arch().rsqrt);
  const FixedFormat& in = fmt(Stage::rsqrt_in);
  const FixedFormat& out = fmt(Stage::rsqrt_out);
  const int latency = arch().rsqrt.stages();
  std::deque<std::pair<Fx, std::pair<Fx, bool>>> expected;  // input, (output, overflow)
  int64_t checked = 0;
  for (int64_t i = 0; i < kVectors + latency; ++i) {
    const bool feed = i < kVectors;
    if (feed) {
      const Fx v = op(in);
      QuantFlags fl;
      const Fx r = rsqrt_unit(v, arch().rsqrt, table, out, &fl);
      expected.push_back({v, {r, fl.overflow}});
      put(b.rs_in, v, in);
    }
    b.rs_in_valid.write(feed);
    b.cycle();
    if (b.rs_out_valid.read()) {
      ASSERT_FALSE(expected.empty()) << "a result the pipeline was never given";
      const auto [v, ref] = expected.front();
      expected.pop_front();
      const Fx got = get(b.rs_out, out);
      mm.check(got.raw == ref.first.raw && b.rs_overflow.read() == ref.second,
               [&] { return "rsqrt(" + show(v) + "): rtl " + show(got) + " ovf " + std::to_string(b.rs_overflow.read()) + ", core " +
                   show(ref.first) + " ovf " + std::to_string(ref.second); });
      ++checked;
    }
  }
  EXPECT_EQ(checked, kVectors) << "results out of the pipeline";
  EXPECT_TRUE(expected.empty());
  mm.finish(kVectors);
}

TEST(RtlCosim, RsqrtLatencyIsItsStages) {
  Bench b;
  put(b.rs_in, Fx{int64_t(1) << fmt(Stage::rsqrt_in).frac_bits, 0}, fmt(Stage::rsqrt_in));
  b.rs_in_valid.write(true);
  b.cycle();
  b.rs_in_valid.write(false);
  int cycles = 1;
  while (!b.rs_out_valid.read() && cycles < 64) {
    b.cycle();
    ++cycles;
  }
  EXPECT_EQ(cycles, arch().rsqrt.stages()) << arch().rsqrt.kind().name << ": its stages, operand to result";
  // rsqrt(1) is its core function's, within the seed table's resolution of 1.
  const Fx one = get(b.rs_out, fmt(Stage::rsqrt_out));
  const Fx unit{int64_t(1) << fmt(Stage::rsqrt_in).frac_bits, fmt(Stage::rsqrt_in).frac_bits};
  EXPECT_EQ(one.raw, rsqrt_unit(unit, arch().rsqrt, make_rsqrt_rom(arch().rsqrt), fmt(Stage::rsqrt_out)).raw) << show(one);
  EXPECT_LE(std::fabs(to_double(one) - 1.0), std::ldexp(1.0, -(arch().rsqrt.table_bits - 1)) + fmt(Stage::rsqrt_out).lsb())
      << show(one);
}

TEST(RtlCosim, NormalizeAffineMatchesCore) {
  Bench b;
  Operands op(4);
  Mismatches mm;
  StageCounters c;
  for (int64_t i = 0; i < kVectors; ++i) {
    const Fx x = op(fmt(Stage::input)), mean = op(fmt(Stage::mean)), rstd = op(fmt(Stage::rsqrt_out));
    const Fx g = op(fmt(Stage::gamma)), be = op(fmt(Stage::beta));
    put(b.na_x, x, fmt(Stage::input));
    put(b.na_mean, mean, fmt(Stage::mean));
    put(b.na_rstd, rstd, fmt(Stage::rsqrt_out));
    put(b.na_gamma, g, fmt(Stage::gamma));
    put(b.na_beta, be, fmt(Stage::beta));
    b.settle();
    const StageCounters before = c;
    const Fx y = normalize_affine(x, mean, rstd, g, be, arch().formats, c);
    StageCounters scratch;
    const Fx xhat = quantize_stage(mul(sub(exact(x), exact(mean)), exact(rstd)), Stage::xhat, arch().formats, scratch);
    const Fx got_y = get(b.na_y, fmt(Stage::output)), got_xhat = get(b.na_xhat, fmt(Stage::xhat));
    mm.check(got_y.raw == y.raw && got_xhat.raw == xhat.raw &&
                 b.na_xhat_overflow.read() == counted(before, c, Stage::xhat) &&
                 b.na_y_overflow.read() == counted(before, c, Stage::output), [&] {
      std::ostringstream what;
      what << "x " << show(x) << " mean " << show(mean) << " rstd " << show(rstd) << " gamma " << show(g) << " beta "
           << show(be) << ": rtl (" << show(got_xhat) << ", " << show(got_y) << ") core (" << show(xhat) << ", "
           << show(y) << ")";
      return what.str();
    });
  }
  mm.finish(kVectors);
}

TEST(RtlCosim, WelfordLaneMatchesCoreOverRows) {
  // Rows of 1..RTL_MAX_COUNT elements through the registered lane, its 1/n
  // from the generated ROM; the state is compared after every element.
  Bench b;
  Operands op(5);
  Mismatches mm;
  StageCounters c;
  const auto recip = make_recip_table(std::max<int64_t>(RTL_MAX_COUNT, 2), fmt(Stage::recip));
  int64_t elements = 0;
  for (int rows = 0; elements < kVectors; ++rows) {
    b.wl_start.write(true);
    b.wl_in_valid.write(false);
    b.cycle();
    b.wl_start.write(false);
    FxWelford s{0, Fx{0, fmt(Stage::mean).frac_bits}, Fx{0, fmt(Stage::m2).frac_bits}};
    // The first rows are the edge cases: one element (count 1), two, and a
    // full row of one repeated value (variance 0); then random lengths.
    const int64_t n = rows == 0 ? 1 : rows == 1 ? 2 : rows == 2 ? RTL_MAX_COUNT
                    : op.next() % 4 == 0 ? RTL_MAX_COUNT : 1 + static_cast<int64_t>(op.next() % RTL_MAX_COUNT);
    const Fx constant = op(fmt(Stage::input));
    for (int64_t k = 0; k < n; ++k, ++elements) {
      const Fx x = rows == 2 ? constant : op(fmt(Stage::input));
      put(b.wl_x, x, fmt(Stage::input));
      b.wl_in_valid.write(true);
      b.cycle();
      const StageCounters before = c;
      s = welford_update(s, x, recip[static_cast<size_t>(s.count + 1)], arch().formats, c);
      const Fx mean = get(b.wl_mean, fmt(Stage::mean)), m2 = get(b.wl_m2, fmt(Stage::m2));
      mm.check(static_cast<int64_t>(b.wl_count.read()) == s.count && mean.raw == s.mean.raw && m2.raw == s.m2.raw &&
                   b.wl_mean_overflow.read() == counted(before, c, Stage::mean) &&
                   b.wl_m2_overflow.read() == counted(before, c, Stage::m2),
               [&] { return "element " + std::to_string(k) + " of a row of " + std::to_string(n) + ": rtl (" +
                   std::to_string(b.wl_count.read()) + ", " + show(mean) + ", " + show(m2) + ") core (" +
                   std::to_string(s.count) + ", " + show(s.mean) + ", " + show(s.m2) + ")"; });
    }
  }
  mm.finish(elements);
}

namespace {
// One row's lane states for the sequencers, and the tree's result in
// sim/core's arithmetic: pairs (2k, 2k+1) level by level, as the tree of the
// RTL pipeline and NormDatapath::merge (adjacent order) combine them.
struct MergeRow {
  std::vector<FxWelford> lanes;
  std::vector<Fx> sums;   // the square-sum lanes
  std::vector<Fx> coefs;  // n_b/n of each node, level by level
  FxWelford root;
  Fx sum_root;
};

// Counts: a row's C over L lanes, all equal, or anything (empty lanes too);
// `row_length` > 0: always that C (constant coefficients, as in a real run).
MergeRow merge_row(Operands& op, int L, int64_t row_length = 0) {
  MergeRow r;
  const FixedFormat& rf = fmt(Stage::recip);
  const uint64_t kind = row_length > 0 ? 0 : op.next() % 3;
  const int64_t C = row_length > 0 ? row_length : 1 + static_cast<int64_t>(op.next() % (1 << 16)),
                n = 1 + static_cast<int64_t>(op.next() % (1 << 16));
  for (int i = 0; i < L; ++i) {
    const int64_t cnt = kind == 0 ? (C - i + L - 1) / L : kind == 1 ? n : static_cast<int64_t>(op.next() % (1 << 16));
    r.lanes.push_back({cnt, op(fmt(Stage::mean)), op(fmt(Stage::m2))});
    r.sums.push_back(op(fmt(Stage::sumsq)));
  }
  std::vector<FxWelford> w = r.lanes;
  std::vector<Fx> s = r.sums;
  StageCounters c;
  for (int width = L; width > 1; width /= 2)
    for (int k = 0; k < width / 2; ++k) {
      const FxWelford a = w[2 * k], b = w[2 * k + 1];
      r.coefs.push_back(a.count + b.count > 0 ? merge_coefficient(a.count, b.count, rf) : Fx{0, rf.frac_bits});
      w[k] = chan_merge(a, b, arch().formats, c);
      s[k] = quantize_stage(add(exact(s[2 * k]), exact(s[2 * k + 1])), Stage::sumsq, arch().formats, c);
    }
  r.root = w[0];
  r.sum_root = s[0];
  return r;
}

void present(Bench& b, const MergeRow& r) {
  auto n = b.sq_lane_n.read();
  auto mean = b.sq_lane_mean.read();
  auto m2 = b.sq_lane_m2.read();
  auto sums = b.sq_lane_sumsq.read();
  auto coef = b.sq_coef.read();
  const int mw = fmt(Stage::mean).total_bits, qw = fmt(Stage::m2).total_bits, uw = fmt(Stage::sumsq).total_bits,
            rw = fmt(Stage::recip).total_bits;
  for (size_t i = 0; i < r.lanes.size(); ++i) {
    const int l = static_cast<int>(i);
    set_field(n, l, rtl::kBenchMergeCountBits, static_cast<uint64_t>(r.lanes[i].count));
    set_field(mean, l, mw, to_word(r.lanes[i].mean, mw));
    set_field(m2, l, qw, to_word(r.lanes[i].m2, qw));
    set_field(sums, l, uw, to_word(r.sums[i], uw));
  }
  for (size_t j = 0; j < r.coefs.size(); ++j) set_field(coef, static_cast<int>(j), rw, to_word(r.coefs[j], rw));
  b.sq_lane_n.write(n);
  b.sq_lane_mean.write(mean);
  b.sq_lane_m2.write(m2);
  b.sq_lane_sumsq.write(sums);
  b.sq_coef.write(coef);
}

int merge_level_cycles() {
  return arch().asic ? arch().asic->chan_merge_tree.level_cycles : config::ChanMergeTreeParams{}.level_cycles;
}
}  // namespace

TEST(RtlCosim, SharedMergeMatchesTheTreeInTheScheduledCycles) {
  // Three sequencers (Chan merges on 1 and on bench_seq_units units, square-sum
  // adds on 2) against sim/core's tree, bit for bit, each out after exactly
  // MergeSchedule's latency.
  Bench b;
  Operands op(6);
  Mismatches mm;
  const int L = arch().lanes, P = merge_level_cycles();
  const int lat_a = MergeSchedule{L, 1}.latency_cycles(P), lat_b = MergeSchedule{L, rtl::bench_seq_units(arch())}.latency_cycles(P),
            lat_r = MergeSchedule{L, rtl::kBenchRmsSeqUnits}.latency_cycles(P);
  ASSERT_GT(lat_a, lat_b) << "one unit must take longer than " << rtl::bench_seq_units(arch());
  const int64_t rows = 4000;
  for (int64_t row = 0; row < rows; ++row) {
    const MergeRow r = merge_row(op, L);
    present(b, r);
    b.sq_go.write(true);
    b.cycle();  // captured
    b.sq_go.write(false);
    int seen_a = -1, seen_b = -1, seen_r = -1;
    for (int t = 1; t <= lat_a + 2; ++t) {
      b.cycle();
      if (b.sa_out_valid.read() && seen_a < 0) {
        seen_a = t;
        const Fx mean = get(b.sa_mean, fmt(Stage::mean)), m2 = get(b.sa_root, fmt(Stage::m2));
        mm.check(static_cast<int64_t>(b.sa_n.read()) == r.root.count && mean.raw == r.root.mean.raw && m2.raw == r.root.m2.raw,
                 [&] { return "1 unit: rtl (" + std::to_string(b.sa_n.read()) + ", " + show(mean) + ", " + show(m2) +
                              ") core (" + std::to_string(r.root.count) + ", " + show(r.root.mean) + ", " + show(r.root.m2) + ")"; });
      }
      if (b.sb_out_valid.read() && seen_b < 0) {
        seen_b = t;
        const Fx mean = get(b.sb_mean, fmt(Stage::mean)), m2 = get(b.sb_root, fmt(Stage::m2));
        mm.check(static_cast<int64_t>(b.sb_n.read()) == r.root.count && mean.raw == r.root.mean.raw && m2.raw == r.root.m2.raw,
                 [&] { return "shared units: rtl (" + show(mean) + ", " + show(m2) + ") core (" + show(r.root.mean) + ", " +
                              show(r.root.m2) + ")"; });
      }
      if (b.sr_out_valid.read() && seen_r < 0) {
        seen_r = t;
        const Fx sum = get(b.sr_root, fmt(Stage::sumsq));
        mm.check(sum.raw == r.sum_root.raw, [&] { return "square sums: rtl " + show(sum) + " core " + show(r.sum_root); });
      }
    }
    ASSERT_EQ(seen_a, lat_a) << "row " << row;
    ASSERT_EQ(seen_b, lat_b) << "row " << row;
    ASSERT_EQ(seen_r, lat_r) << "row " << row;
  }
  mm.finish(rows);
}

TEST(RtlCosim, SharedMergeTakesTheNextRowAsTheLastGoesOut) {
  // go held high, a new row of the same length presented whenever the 1-unit
  // sequencer takes one (the coefficients are constants of the row length,
  // held while rows are in flight): each sequencer takes a row every
  // occupancy_cycles (its latency and the capture cycle) and every result is
  // its row's, bit for bit.
  Bench b;
  Operands op(7);
  Mismatches mm;
  const int L = arch().lanes, P = merge_level_cycles();
  const MergeSchedule one{L, 1}, some{L, rtl::bench_seq_units(arch())};
  const int64_t C = 1000 + static_cast<int64_t>(op.next() % 5000);
  MergeRow row = merge_row(op, L, C);
  present(b, row);
  b.sq_go.write(true);
  b.settle();
  std::deque<MergeRow> taken_a, taken_b;
  std::vector<int> outs_a, outs_b;
  int64_t checked = 0;
  for (int t = 0; outs_a.size() < 50; ++t) {
    ASSERT_LT(t, 100 * one.occupancy_cycles(P)) << "the sequencer stopped taking rows";
    const bool take_a = b.sa_ready.read(), take_b = b.sb_ready.read();
    if (take_a) taken_a.push_back(row);
    if (take_b) taken_b.push_back(row);
    b.cycle();
    if (take_a) {
      row = merge_row(op, L, C);
      present(b, row);
      b.settle();
    }
    auto check = [&](std::deque<MergeRow>& q, const auto& n, const auto& mean, const auto& root, const char* who) {
      ASSERT_FALSE(q.empty()) << who << ": a result of no row";
      const MergeRow r = q.front();
      q.pop_front();
      const Fx m = get(mean, fmt(Stage::mean)), q2 = get(root, fmt(Stage::m2));
      mm.check(static_cast<int64_t>(n.read()) == r.root.count && m.raw == r.root.mean.raw && q2.raw == r.root.m2.raw,
               [&] { return std::string(who) + ", back to back: rtl (" + show(m) + ", " + show(q2) + ") core (" +
                            show(r.root.mean) + ", " + show(r.root.m2) + ")"; });
      ++checked;
    };
    if (b.sa_out_valid.read()) {
      outs_a.push_back(t);
      check(taken_a, b.sa_n, b.sa_mean, b.sa_root, "1 unit");
    }
    if (b.sb_out_valid.read()) {
      outs_b.push_back(t);
      check(taken_b, b.sb_n, b.sb_mean, b.sb_root, "shared units");
    }
  }
  EXPECT_EQ(outs_a[0], one.latency_cycles(P));
  for (size_t i = 1; i < outs_a.size(); ++i) EXPECT_EQ(outs_a[i] - outs_a[i - 1], one.occupancy_cycles(P));
  for (size_t i = 1; i < outs_b.size(); ++i) EXPECT_EQ(outs_b[i] - outs_b[i - 1], some.occupancy_cycles(P));
  mm.finish(checked);
}

// The dropout mask generator: Philox4x32-10 through its ten stages, one
// counter a cycle, against sim/core/dropout_mask.hpp (the words and the
// keep bits), on random seeds, counters past 2^32 and thresholds with their
// edges (0 keeps all, the words themselves sit on the compare).
TEST(RtlCosim, PhiloxMaskMatchesTheDropoutMaskThroughItsPipeline) {
#ifdef RTL_EXPECT_MISMATCH
  GTEST_SKIP() << "integer only: the rounding mutation does not reach it";
#endif
  Bench b;
  std::mt19937_64 gen(11);
  struct In {
    uint64_t key, counter;
    uint32_t threshold;
  };
  std::deque<In> expected;
  constexpr int64_t kCounters = 200000;
  int64_t checked = 0, mismatches = 0, cycles_to_first = -1;
  for (int64_t i = 0; i < kCounters + normsim::rtl::kPhiloxRounds + 1; ++i) {
    const bool feed = i < kCounters;
    if (feed) {
      const uint32_t edges[] = {0u, 1u, 0x80000000u, 0xffffffffu, static_cast<uint32_t>(gen())};
      In in{gen(), (i % 3 == 0) ? static_cast<uint64_t>(i) : gen() >> 2, edges[gen() % 5]};  // element index 4 counter + j < 2^64
      expected.push_back(in);
      b.pm_key.write(in.key);
      b.pm_counter.write(in.counter);
      b.pm_stream.write(rng::kDropout);
      b.pm_threshold.write(in.threshold);
    }
    b.pm_in_valid.write(feed);
    b.cycle();
    if (!b.pm_out_valid.read()) continue;
    if (cycles_to_first < 0) cycles_to_first = i + 1;
    ASSERT_FALSE(expected.empty()) << "a mask the pipeline was never given";
    const In in = expected.front();
    expected.pop_front();
    const rng::Philox4x32 want = rng::dropout_words(in.key, in.counter);
    const auto words = b.pm_words.read();
    const unsigned keep = static_cast<unsigned>(b.pm_keep.read());
    bool same = true;
    for (int j = 0; j < 4; ++j) {
      same &= static_cast<uint32_t>(words.range(32 * j + 31, 32 * j).to_uint64()) == want.v[j];
      same &= ((keep >> j) & 1u) == (rng::dropout_keep(in.key, 4 * in.counter + static_cast<uint64_t>(j), in.threshold) ? 1u : 0u);
    }
    if (!same && ++mismatches <= 5)
      ADD_FAILURE() << "philox(key " << in.key << ", counter " << in.counter << ", threshold " << in.threshold
                    << "): rtl words " << words.to_string(SC_HEX) << " keep " << keep << ", core " << std::hex << want.v[3]
                    << " " << want.v[2] << " " << want.v[1] << " " << want.v[0];
    ++checked;
  }
  EXPECT_EQ(checked, kCounters);
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(cycles_to_first, normsim::rtl::kPhiloxRounds) << "a round a stage";
}

// The residual adder (one lane) without and with the dropout multiplier, at
// the bench's adder format, against residual_add_fixed: random and edge
// operands, the scales of common drop probabilities and arbitrary ones,
// kept and dropped elements.
TEST(RtlCosim, ResidualAdderMatchesCore) {
  Bench b;
  Operands op(17);
  Mismatches mm;
  const FixedFormat f = normsim::rtl::residual_add_format(arch());
  const double drop[] = {0.1, 0.25, 0.5, 0.9};
  for (int64_t i = 0; i < kVectors; ++i) {
    const Fx x = op(f), r = op(f);
    QuantFlags sf;
    const Fx s = (op.next() % 2) ? quantize(static_cast<double>(rng::dropout_scale(drop[op.next() % 4])), f, &sf) : op(f);
    const bool keep = op.next() % 4 != 0;
    put(b.ra_x, x, f);
    put(b.ra_r, r, f);
    put(b.rd_x, x, f);
    put(b.rd_r, r, f);
    put(b.rd_scale, s, f);
    b.rd_keep.write(keep);
    b.settle();
    QuantFlags fa, fd;
    const Fx za = residual_add_fixed(x, r, nullptr, true, f, &fa), zd = residual_add_fixed(x, r, &s, keep, f, &fd);
    const Fx ga = get(b.ra_z, f), gd = get(b.rd_z, f);
    mm.check(ga.raw == za.raw && b.ra_overflow.read() == fa.overflow, [&] {
      return "q(" + show(x) + " + " + show(r) + "): rtl " + show(ga) + ", core " + show(za);
    });
    mm.check(gd.raw == zd.raw && b.rd_overflow.read() == fd.overflow, [&] {
      return "q(" + std::string(keep ? "" : "dropped ") + show(x) + " * " + show(s) + " + " + show(r) + "): rtl " + show(gd) +
             ", core " + show(zd);
    });
  }
  mm.finish(2 * kVectors);
}

TEST(RtlCosim, RowSumLanesMatchCoreOverRows) {
  // Rows of 1..RTL_MAX_COUNT elements through the three registered lanes;
  // x_hat and g (combinational) and S1 / S2 (registered) after every element.
  Bench b;
  Operands op(18);
  Mismatches mm;
  int64_t elements = 0;
  for (int rows = 0; elements < kVectors; ++rows) {
    b.bo_start.write(true);
    b.bo_in_valid.write(false);
    b.cycle();
    b.bo_start.write(false);
    b.bo_in_valid.write(true);
    RowSums acc[3];
    for (auto& a : acc) a = {Fx{0, bfmt(BS::sum_g).frac_bits}, Fx{0, bfmt(BS::sum_gxhat).frac_bits}};
    const int64_t n = 1 + static_cast<int64_t>(op.next() % RTL_MAX_COUNT);
    for (int64_t i = 0; i < n && elements < kVectors; ++i, ++elements) {
      const BackwardElement e(op);
      e.drive(b);
      b.settle();
      BackwardCounters c[3], before[3];
      BackwardOperands o[3];
      for (int v = 0; v < 3; ++v) o[v] = e.operands(kBackwardVariants[v], c[v]);
      auto lane_out = [&](int v, auto& xhat, auto& g, auto& xo, auto& go) {
        const Fx gx = get(xhat, bfmt(BS::xhat)), gg = get(g, bfmt(BS::g));
        const bool stored = kBackwardVariants[v].stored;
        mm.check(gx.raw == o[v].xhat.raw && gg.raw == o[v].g.raw && xo.read() == (!stored && counted(before[v], c[v], BS::xhat)) &&
                     go.read() == counted(before[v], c[v], BS::g), [&] {
          return std::string(kBackwardVariants[v].name) + " operands of " + e.describe() + ": rtl (" + show(gx) + ", " + show(gg) +
                 ") core (" + show(o[v].xhat) + ", " + show(o[v].g) + ")";
        });
      };
      lane_out(0, b.rl_xhat, b.rl_g, b.rl_xhat_overflow, b.rl_g_overflow);
      lane_out(1, b.rr_xhat, b.rr_g, b.rr_xhat_overflow, b.rr_g_overflow);
      lane_out(2, b.rt_xhat, b.rt_g, b.rt_xhat_overflow, b.rt_g_overflow);
      for (int v = 0; v < 3; ++v) {
        before[v] = c[v];
        acc[v] = row_sum_update(kBackwardVariants[v].kind, acc[v], o[v], bformats(), c[v]);
      }
      b.cycle();
      auto sums = [&](int v, auto& s1, auto& s2, auto& o1, auto& o2) {
        const bool rms = kBackwardVariants[v].kind == NormKind::rmsnorm;
        const Fx g1 = get(s1, bfmt(BS::sum_g)), g2 = get(s2, bfmt(BS::sum_gxhat));
        mm.check((rms ? g1.raw == 0 : g1.raw == acc[v].s1.raw) && g2.raw == acc[v].s2.raw &&
                     o1.read() == (!rms && counted(before[v], c[v], BS::sum_g)) && o2.read() == counted(before[v], c[v], BS::sum_gxhat),
                 [&] {
                   return std::string(kBackwardVariants[v].name) + " row " + std::to_string(rows) + " element " + std::to_string(i) +
                          " (" + e.describe() + "): rtl (" + show(g1) + ", " + show(g2) + ") core (" + show(acc[v].s1) + ", " +
                          show(acc[v].s2) + ")";
                 });
      };
      sums(0, b.rl_s1, b.rl_s2, b.rl_s1_overflow, b.rl_s2_overflow);
      sums(1, b.rr_s1, b.rr_s2, b.rr_s1_overflow, b.rr_s2_overflow);
      sums(2, b.rt_s1, b.rt_s2, b.rt_s1_overflow, b.rt_s2_overflow);
    }
  }
  mm.finish(3 * kVectors);
}

TEST(RtlCosim, DxUnitsMatchCore) {
  Bench b;
  Operands op(19);
  Mismatches mm;
  for (int64_t i = 0; i < kVectors; ++i) {
    const BackwardElement e(op);
    const Fx m1 = op(bfmt(BS::row_mean)), m2 = op(bfmt(BS::row_mean));
    e.drive(b);
    put(b.bo_m1, m1, bfmt(BS::row_mean));
    put(b.bo_m2, m2, bfmt(BS::row_mean));
    b.settle();
    auto check = [&](int v, auto& dx, auto& ovf) {
      BackwardCounters c, scratch;
      const BackwardOperands o = e.operands(kBackwardVariants[v], scratch);
      const Fx want = dx_value(kBackwardVariants[v].kind, o, e.rstd, m1, m2, bformats(), c);
      const Fx got = get(dx, bfmt(BS::dx));
      mm.check(got.raw == want.raw && ovf.read() == counted(BackwardCounters{}, c, BS::dx), [&] {
        return std::string(kBackwardVariants[v].name) + " dx of " + e.describe() + " m1 " + show(m1) + " m2 " + show(m2) +
               ": rtl " + show(got) + " core " + show(want);
      });
    };
    check(0, b.dl_dx, b.dl_dx_overflow);
    check(1, b.dr_dx, b.dr_dx_overflow);
    check(2, b.dt_dx, b.dt_dx_overflow);
  }
  mm.finish(3 * kVectors);
}

TEST(RtlCosim, ParamGradAccumulatorsMatchCore) {
  Bench b;
  Operands op(20);
  Mismatches mm;
  for (int64_t i = 0; i < kVectors; ++i) {
    const Fx dy = op(bfmt(BS::dy)), xh = op(bfmt(BS::xhat)), dg = op(bfmt(BS::dgamma)), db = op(bfmt(BS::dbeta));
    put(b.bo_dy, dy, bfmt(BS::dy));
    put(b.bo_xs, xh, bfmt(BS::xhat));
    put(b.bo_dgamma, dg, bfmt(BS::dgamma));
    put(b.bo_dbeta, db, bfmt(BS::dbeta));
    b.settle();
    auto check = [&](NormKind kind, auto& pg, auto& pb, auto& og, auto& ob) {
      BackwardCounters c;
      const ParamGrads want = param_grad_update(kind, {dg, db}, dy, xh, bformats(), c);
      const bool rms = kind == NormKind::rmsnorm;
      const Fx gg = get(pg, bfmt(BS::dgamma)), gb = get(pb, bfmt(BS::dbeta));
      mm.check(gg.raw == want.dgamma.raw && (rms ? gb.raw == 0 : gb.raw == want.dbeta.raw) &&
                   og.read() == counted(BackwardCounters{}, c, BS::dgamma) && ob.read() == counted(BackwardCounters{}, c, BS::dbeta),
               [&] {
                 return std::string(rms ? "rmsnorm" : "layernorm") + " dgamma " + show(dg) + " dbeta " + show(db) + " + dy " +
                        show(dy) + " x_hat " + show(xh) + ": rtl (" + show(gg) + ", " + show(gb) + ") core (" +
                        show(want.dgamma) + ", " + show(want.dbeta) + ")";
               });
    };
    check(NormKind::layernorm, b.pl_dgamma, b.pl_dbeta, b.pl_dgamma_overflow, b.pl_dbeta_overflow);
    check(NormKind::rmsnorm, b.pr_dgamma, b.pr_dbeta, b.pr_dgamma_overflow, b.pr_dbeta_overflow);
  }
  mm.finish(2 * kVectors);
}

TEST(RtlCosim, RowSumTreeNodeAndRowMeansMatchCore) {
  Bench b;
  Operands op(21);
  Mismatches mm;
  for (int64_t i = 0; i < kVectors; ++i) {
    const Fx s1a = op(bfmt(BS::sum_g)), s1b = op(bfmt(BS::sum_g)), s2a = op(bfmt(BS::sum_gxhat)), s2b = op(bfmt(BS::sum_gxhat));
    const Fx recip = op(fmt(Stage::recip));
    put(b.bo_s1a, s1a, bfmt(BS::sum_g));
    put(b.bo_s1b, s1b, bfmt(BS::sum_g));
    put(b.bo_s2a, s2a, bfmt(BS::sum_gxhat));
    put(b.bo_s2b, s2b, bfmt(BS::sum_gxhat));
    put(b.bo_recip, recip, fmt(Stage::recip));
    b.settle();
    BackwardCounters c1, c2;
    const Fx n1 = backward_add(s1a, s1b, BS::sum_g, bformats(), c1), n2 = backward_add(s2a, s2b, BS::sum_gxhat, bformats(), c2);
    const Fx g1 = get(b.nl_s1, bfmt(BS::sum_g)), g2 = get(b.nl_s2, bfmt(BS::sum_gxhat));
    mm.check(g1.raw == n1.raw && g2.raw == n2.raw && b.nl_s1_overflow.read() == counted(BackwardCounters{}, c1, BS::sum_g) &&
                 b.nl_s2_overflow.read() == counted(BackwardCounters{}, c2, BS::sum_gxhat), [&] {
      return "node (" + show(s1a) + " + " + show(s1b) + ", " + show(s2a) + " + " + show(s2b) + "): rtl (" + show(g1) + ", " +
             show(g2) + ") core (" + show(n1) + ", " + show(n2) + ")";
    });
    // C = 3: times the 1/C port; C = 2^kBenchRowMeanLog2: a shift.
    auto means = [&](int64_t hidden, auto& m1, auto& m2, auto& o1, auto& o2) {
      BackwardCounters d1, d2;
      const Fx w1 = row_mean(s1a, hidden, recip, bformats(), d1), w2 = row_mean(s2a, hidden, recip, bformats(), d2);
      const Fx r1 = get(m1, bfmt(BS::row_mean)), r2 = get(m2, bfmt(BS::row_mean));
      mm.check(r1.raw == w1.raw && r2.raw == w2.raw && o1.read() == counted(BackwardCounters{}, d1, BS::row_mean) &&
                   o2.read() == counted(BackwardCounters{}, d2, BS::row_mean), [&] {
        return "row means of (" + show(s1a) + ", " + show(s2a) + ") over C = " + std::to_string(hidden) + " (1/C " + show(recip) +
               "): rtl (" + show(r1) + ", " + show(r2) + ") core (" + show(w1) + ", " + show(w2) + ")";
      });
    };
    means(3, b.ml_m1, b.ml_m2, b.ml_m1_overflow, b.ml_m2_overflow);
    means(int64_t{1} << normsim::rtl::kBenchRowMeanLog2, b.mp_m1, b.mp_m2, b.mp_m1_overflow, b.mp_m2_overflow);
  }
  mm.finish(3 * kVectors);
}
