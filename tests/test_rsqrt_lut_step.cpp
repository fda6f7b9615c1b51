// The lut_step RSQRT unit (sim/core/rsqrt_lut_step.hpp): exhaustively
// against an independent integer reimplementation, its error bound against
// fp64 (and that the bound is tight), its ROM, and its configuration checks.
#include <algorithm>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sim/core/rsqrt_lut_step.hpp"
#include "tests/arch_text.hpp"

using namespace normsim::core;

namespace {
// Round a signed value with `drop` fraction bits to nearest, ties to even
// (drop <= 0: exact, bits appended).
i128 round_half_even(i128 v, int drop) {
  if (drop <= 0) return v << -drop;
  const i128 floor_v = v >> drop;  // arithmetic: floor
  const i128 rem = v - (floor_v << drop), half = i128(1) << (drop - 1);
  return floor_v + ((rem > half || (rem == half && (floor_v & 1))) ? 1 : 0);
}

// The unit written again with plain integers: raw words, their fraction
// bits, and nothing of sim/core's Exact arithmetic. Returns the output raw
// word (saturated) and whether it saturated; `e_saturated` is set when e
// left its register's range (the reference does not clamp it).
struct Ref {
  i128 raw;
  bool overflow;
};
Ref reference(i128 r, int frac, const RsqrtLutStep& u, const std::vector<Fx>& lut, const FixedFormat& out, bool* e_saturated) {
  if (r <= 0) return {out.max_raw(), true};
  int p = 0;
  while ((r >> (p + 1)) != 0) ++p;
  const int e = p - frac;
  const int k = (e % 2 == 0) ? e : e - 1;
  const int mb = u.table_bits - 1;
  const int index = ((e != k) << mb) | static_cast<int>((p >= mb ? r >> (p - mb) : r << (mb - p)) & ((1 << mb) - 1));
  int fm = frac + k;  // m = r 2^-fm in [1, 4)
  i128 m = r;
  if (fm < 0) m <<= -fm, fm = 0;
  const int s = u.table_bits + 2;
  const i128 y0 = lut[static_cast<size_t>(index)].raw;
  const i128 e_exact = (i128(1) << (fm + 2 * s)) - m * y0 * y0;  // fm + 2s fraction bits
  const i128 e_raw = round_half_even(e_exact, fm + 2 * s - u.frac_bits);
  const FixedFormat ef = u.error_format();
  if (e_raw > ef.max_raw() || e_raw < ef.min_raw()) *e_saturated = true;
  const i128 y1 = round_half_even((y0 << (u.frac_bits + 1)) + y0 * e_raw, s + 1);  // frac_bits
  const i128 q = round_half_even(y1, u.frac_bits + k / 2 - out.frac_bits);
  if (q > out.max_raw()) return {out.max_raw(), true};
  return {q, false};
}
}  // namespace

// Every word of a 16-bit input format, at several table sizes: the unit and
// the integer reference agree on every output bit and every overflow flag,
// and e never leaves its register.
TEST(RsqrtLutStep, MatchesAnIntegerReferenceOnEveryInputWord) {
  const FixedFormat in{16, 8, false}, out{24, 12, false};
  for (const RsqrtLutStep u : {RsqrtLutStep{4, 12}, RsqrtLutStep{6, 18}, RsqrtLutStep{8, 20}, RsqrtLutStep{10, 26},
                               RsqrtLutStep{12, 30}}) {
    const auto lut = make_rsqrt_lut(u);
    int64_t saturated = 0, overflowed = 0;
    for (int64_t w = 0; w < (int64_t(1) << in.total_bits); ++w) {
      bool e_sat = false;
      const Ref want = reference(w, in.frac_bits, u, lut, out, &e_sat);
      QuantFlags fl;
      const Fx got = rsqrt_lut_step(Fx{w, in.frac_bits}, u, lut, out, &fl);
      ASSERT_EQ(got.raw, want.raw) << "table_bits " << u.table_bits << " word " << w;
      ASSERT_EQ(fl.overflow, want.overflow) << "table_bits " << u.table_bits << " word " << w;
      saturated += e_sat;
      overflowed += want.overflow;
    }
    EXPECT_EQ(saturated, 0) << "table_bits " << u.table_bits;
    // v = 0 only: 1/sqrt(2^-8) = 16 fits u24.12 (max 4096).
    EXPECT_EQ(overflowed, 1) << "table_bits " << u.table_bits;
  }
}

// One step squares the seed's relative error: |d| <= 2^-(t+1) from the
// table plus 2^-(t+2) from the seed's rounding, then 3/2 d^2, plus the
// roundings of e and y1 (2^-frac_bits each) and of the output.
TEST(RsqrtLutStep, OneStepSquaresTheSeedsError) {
  const FixedFormat in{48, 30, false}, out{48, 36, false};
  for (int t = 4; t <= 14; t += 2) {
    const RsqrtLutStep u{t, 40};
    const auto lut = make_rsqrt_lut(u);
    std::mt19937_64 rng(static_cast<uint64_t>(t));
    std::uniform_real_distribution<double> e(-20, 10);
    double worst = 0;
    for (int i = 0; i < 40000; ++i) {
      const Fx v = quantize(std::exp2(e(rng)), in);
      if (v.raw == 0) continue;
      worst = std::max(worst, std::fabs(to_double(rsqrt_lut_step(v, u, lut, out)) * std::sqrt(to_double(v)) - 1.0));
    }
    const double d = 3 * std::ldexp(1.0, -(t + 2));
    const double bound = 1.5 * d * d + 0.5 * d * d * d + std::ldexp(1.0, -38);
    EXPECT_LE(worst, bound + std::ldexp(1.0, -30)) << "table_bits " << t;  // +: the output lsb at rstd 2^-5
    EXPECT_GT(worst, bound / 16) << "table_bits " << t << ": a bound so loose it tests nothing";
  }
}

// Each seed is the interval's equal-error value, rounded: within half an lsb
// of 2 / (sqrt a + sqrt b), inside (1/2, 1], and decreasing in m.
TEST(RsqrtLutStep, SeedsAreTheIntervalsEqualErrorValues) {
  const RsqrtLutStep u{8, 24};
  const auto lut = make_rsqrt_lut(u);
  ASSERT_EQ(lut.size(), size_t(256));
  const double lsb = u.seed_format().lsb();
  for (size_t i = 0; i < lut.size(); ++i) {
    const double scale = i >= 128 ? 2.0 : 1.0, a = (1.0 + static_cast<double>(i % 128) / 128) * scale, b = a + scale / 128;
    EXPECT_LE(std::fabs(to_double(lut[i]) - 2.0 / (std::sqrt(a) + std::sqrt(b))), lsb / 2) << i;
    EXPECT_GT(to_double(lut[i]), 0.5);
    EXPECT_LE(to_double(lut[i]), 1.0);
    if (i > 0) {
      EXPECT_LE(lut[i].raw, lut[i - 1].raw) << i;
    }
  }
}

// The unit through RsqrtConfig: the dispatch, the ROM's size and word, the
// stages, and what the configuration refuses.
TEST(RsqrtLutStep, SelectedThroughTheRsqrtConfig) {
  RsqrtConfig c{10, 1, 26, RsqrtSeed::table, *rsqrt_kind_index("lut_step")};
  ASSERT_EQ(c.validate(), "");
  EXPECT_EQ(static_cast<int64_t>(make_rsqrt_rom(c).size()), c.rom_words());
  EXPECT_EQ(c.rom_word_bits(), 13);
  EXPECT_EQ(c.stages(), 4);
  const FixedFormat out{32, 22, false};
  const Fx v{int64_t(3) << 20, 28};
  EXPECT_EQ(rsqrt_unit(v, c, make_rsqrt_rom(c), out).raw, rsqrt_lut_step(v, RsqrtLutStep::of(c), make_rsqrt_lut({10, 26}), out).raw);
  c.iterations = 2;
  EXPECT_EQ(c.validate(), "iterations 2: the lut_step unit takes exactly one step (allowed: 1)");
  c.iterations = 1;
  c.table_bits = 3;
  EXPECT_EQ(c.validate(), "table_bits 3: the lut_step unit takes one step from the table (allowed: 4..16)");
  c.table_bits = 10;
  c.nr_frac_bits = 12;
  EXPECT_EQ(c.validate(), "nr_frac_bits 12: the lut_step unit refines its seed's table_bits + 2 fraction bits (allowed: 13..60)");
  c.nr_frac_bits = 26;
  c.seed = RsqrtSeed::linear;
  EXPECT_EQ(c.validate(), "seed linear: the lut_step unit seeds from a table value (allowed: table)");
}

// rsqrt.unit: lut_step in an arch: its constraints on the section's other
// keys are refused in one line naming the key, its line and what is allowed,
// and a good section reads back.
TEST(RsqrtLutStep, ArchSectionSelectsItAndItsConstraintsAreRefused) {
  using normsim::config::arch_error;
  const std::string head = normsim::config::kFixedArch;
  const auto line = std::count(head.begin(), head.end(), '\n') + 1;  // the rsqrt section's
  const std::string at = "a.yaml:" + std::to_string(line) + ": ";
  const auto a = normsim::config::parse_arch_text(head + "rsqrt: {unit: lut_step, table_bits: 10, iterations: 1, nr_frac_bits: 26}\n", "a.yaml");
  EXPECT_EQ(a.rsqrt.kind().name, "lut_step");
  EXPECT_EQ(a.rsqrt.stages(), 4);
  EXPECT_EQ(arch_error(head + "rsqrt: {unit: lut_step, table_bits: 10, nr_frac_bits: 26}\n"),
            at + "key 'rsqrt.iterations': value 2: the lut_step unit takes exactly one step (rsqrt.unit lut_step) "
            "(allowed: 1)");
  // In block form the key's own line.
  EXPECT_EQ(arch_error(head + "rsqrt:\n  unit: lut_step\n  iterations: 1\n  table_bits: 3\n  nr_frac_bits: 26\n"),
            "a.yaml:" + std::to_string(line + 3) + ": key 'rsqrt.table_bits': value 3: the lut_step unit takes one step from the table (rsqrt.unit "
            "lut_step) (allowed: 4..16)");
  EXPECT_EQ(arch_error(head + "rsqrt: {unit: lut_step, iterations: 1, seed: linear}\n"),
            at + "key 'rsqrt.seed': value linear: the lut_step unit seeds from a table value (rsqrt.unit lut_step) "
            "(allowed: table)");
  EXPECT_EQ(arch_error(head + "rsqrt: {unit: lut_step, iterations: 1, table_bits: 10, nr_frac_bits: 12}\n"),
            at + "key 'rsqrt.nr_frac_bits': value 12: the lut_step unit refines its seed's table_bits + 2 fraction "
            "bits (rsqrt.unit lut_step) (allowed: 13..60)");
  // The latency the asic section must give it: its input register and four stages.
  EXPECT_EQ(arch_error(head + "rsqrt: {unit: lut_step, table_bits: 10, iterations: 1, nr_frac_bits: 26}\nasic: {rsqrt: {latency_cycles: 4}}\n").find(
                "is below the RSQRT unit's 5 cycles (its input register, normalise and seed, e, y1, round)") != std::string::npos,
            true);
}
