#include "sim/area/logic_inventory.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "sim/core/merge_schedule.hpp"
#include "sim/core/rsqrt_kind.hpp"

namespace normsim::area {

namespace {
using core::Stage;
using core::fmt;
int log2_ceil(int v) { return std::max(1, static_cast<int>(std::bit_width(static_cast<unsigned>(std::max(v - 1, 1))))); }
}  // namespace

int count_bits(int64_t max_count) {
  return std::max(1, static_cast<int>(std::bit_width(static_cast<uint64_t>(max_count) + 1)));
}

// Widths as rtl_models/welford_update.v derives them.
LogicInventory welford_lane_inventory(const core::StageFormats& f, int count_bits) {
  const auto& x = fmt(f, Stage::input);
  const auto& m = fmt(f, Stage::mean);
  const auto& q = fmt(f, Stage::m2);
  const auto& r = fmt(f, Stage::recip);
  const int DF = std::max(x.frac_bits, m.frac_bits);
  const int DW = std::max(x.total_bits + 1 + DF - x.frac_bits, m.total_bits + 1 + DF - m.frac_bits) + 1;
  const int PF = DF + r.frac_bits;
  const int S1W = std::max(DW + r.total_bits + 1, m.total_bits + 1 + PF - m.frac_bits) + 1;
  const int QF2 = std::max(2 * DF, q.frac_bits);
  const int S2W = std::max(2 * DW + QF2 - 2 * DF, q.total_bits + 1 + QF2 - q.frac_bits) + 1;
  LogicInventory v;
  v.adder_bits = 2.0 * DW + S1W + S2W + count_bits;  // x - mu, x - mu', the two sums, count + 1
  v.multiplier_bit_products = static_cast<double>(DW) * (r.total_bits + 1) + static_cast<double>(DW) * DW;
  v.requant_bits = S1W + S2W;
  v.flip_flops = count_bits + m.total_bits + q.total_bits + 2;
  return v;
}

// Widths as rtl_models/chan_merge.v derives them.
LogicInventory chan_merge_inventory(const core::StageFormats& f, int count_bits) {
  const auto& m = fmt(f, Stage::mean);
  const auto& q = fmt(f, Stage::m2);
  const auto& r = fmt(f, Stage::recip);
  const int MW = m.total_bits, MF = m.frac_bits, QW = q.total_bits, QF = q.frac_bits, NW = count_bits;
  const int EF = std::max(2 * MF + 1, QF);
  const int EW = std::max(2 * MW + 4 + NW + 1 + EF - 2 * MF - 1, QW + 1 + EF - QF) + 2;
  const int GMW = std::max(MW + 2 + r.total_bits + 1, MW + 1 + r.frac_bits) + 1;
  const int GF = std::max(2 * MF + r.frac_bits, QF);
  const int GW = std::max(2 * MW + 4 + NW + 1 + r.total_bits + 1 + GF - 2 * MF - r.frac_bits, QW + 1 + GF - QF) + 2;
  LogicInventory v;
  // delta, mu_a + mu_b, the two M2 sums of each path, mu_a + d c, the count.
  v.adder_bits = (MW + 2) * 2.0 + 2.0 * EW + GMW + 2.0 * GW + NW;
  const double d = MW + 2;
  // d^2, d^2 n_a (one product: both paths use it, synthesis merges the two
  // identical multipliers), d c and (d^2 n_a) c.
  v.multiplier_bit_products = d * d + (2 * d) * (NW + 1) + d * (r.total_bits + 1) +
                              (2 * d + NW + 1) * (r.total_bits + 1);
  v.requant_bits = (MW + 2) + EW + GMW + GW;
  v.shifter_bits = 0;
  return v;
}

LogicInventory adder_node_inventory(int bits) {
  LogicInventory v;
  v.adder_bits = bits + 2;  // rtl_models/fx_add.v: one sign-extended sum
  v.requant_bits = bits + 2;
  return v;
}

LogicInventory merge_tree_register_inventory(int lanes, int level_cycles, int state_bits) {
  LogicInventory v;
  v.flip_flops = static_cast<double>(lanes) * state_bits + static_cast<double>(lanes - 1) * state_bits * level_cycles;
  return v;
}

LogicInventory merge_sequencer_inventory(int L, int U, int P, int SW, int RW) {
  const core::MergeSchedule s{L, U};
  const int kmax = s.issue_cycles(0), issues = [&] {
    int t = 0;
    for (int l = 0; l < s.levels(); ++l) t += s.issue_cycles(l);
    return t;
  }();
  const int kw = log2_ceil(kmax), lw = log2_ceil(s.levels()), ww = log2_ceil(P), tw = log2_ceil(issues);
  LogicInventory v;
  v.flip_flops = static_cast<double>(L) * SW                          // the state buffer
                 + static_cast<double>(P - 1) * (U * SW + U + kw)      // results on their way back
                 + 2 + lw + kw + ww + tw;                              // phase, level, issue, wait, row issue counters
  for (int u = 0; u < U; ++u) {
    // Unit u reads entries 2(kU+u), 2(kU+u)+1 for the k that exist; its coefficient is
    // one of the nodes it merges over the row.
    int reads = 0, nodes = 0;
    for (int k = 0; k < kmax; ++k) reads += 2 * (k * U + u) + 1 < L;
    for (int l = 0; l < s.levels(); ++l)
      for (int k = 0; k < s.issue_cycles(l); ++k) nodes += k * U + u < s.merges(l);
    v.mux_bits += 2.0 * std::max(reads - 1, 0) * SW + static_cast<double>(std::max(nodes - 1, 0)) * RW;
  }
  v.mux_bits += static_cast<double>(L) / 2 * SW;  // entries results write back to: result or lane state
  // k + 1, its multiple of U against the level's merges, each unit's validity, the counters.
  v.adder_bits = kw + 2.0 * 16 + U * 16.0 + lw + ww + tw;
  return v;
}

double rsqrt_stage_bit_products(const core::StageFormats& f, const core::RsqrtConfig& rc) {
  return rc.kind().depth_bit_products(rsqrt_inventory(f, rc), rc);
}

// The unit's own operators (its kind's), and the normalise and output
// shifters every unit shares (rtl_models/rsqrt_operand.v, rsqrt_scale.v).
LogicInventory rsqrt_inventory(const core::StageFormats& f, const core::RsqrtConfig& rc) {
  const auto w = core::RsqrtWidths::of(fmt(f, Stage::rsqrt_in), fmt(f, Stage::rsqrt_out), rc);
  LogicInventory v = rc.kind().operators(w, rc);
  v.shifter_bits = static_cast<double>(w.IW) * log2_ceil(w.IW) + static_cast<double>(w.VW) * log2_ceil(w.KMAX - w.KMIN + 1);
  return v;
}

// Widths as rtl_models/normalize_affine.v derives them.
LogicInventory normalize_inventory(const core::StageFormats& f) {
  const auto& x = fmt(f, Stage::input);
  const auto& m = fmt(f, Stage::mean);
  const auto& s = fmt(f, Stage::rsqrt_out);
  const auto& h = fmt(f, Stage::xhat);
  const auto& g = fmt(f, Stage::gamma);
  const auto& b = fmt(f, Stage::beta);
  const int DF = std::max(x.frac_bits, m.frac_bits);
  const int DW = std::max(x.total_bits + 1 + DF - x.frac_bits, m.total_bits + 1 + DF - m.frac_bits) + 1;
  const int YF2 = std::max(h.frac_bits + g.frac_bits, b.frac_bits);
  const int AW = std::max(h.total_bits + g.total_bits + 2 + YF2 - h.frac_bits - g.frac_bits,
                          b.total_bits + 1 + YF2 - b.frac_bits) + 1;
  LogicInventory v;
  v.adder_bits = DW + AW;
  v.multiplier_bit_products = static_cast<double>(DW) * (s.total_bits + 1) + static_cast<double>(h.total_bits + 1) * (g.total_bits + 1);
  v.requant_bits = (DW + s.total_bits + 1) + AW;
  return v;
}

LogicInventory residual_add_inventory(const core::FixedFormat& f, bool dropout) {
  const int w = f.total_bits;
  LogicInventory v;
  if (!dropout) {
    v.adder_bits = w + 2;
    v.requant_bits = w + 2;
    return v;
  }
  v.multiplier_bit_products = static_cast<double>(w + 1) * (w + 1);
  v.mux_bits = 2 * w + 2;  // a dropped element's product forced to 0
  v.adder_bits = 2 * w + 3;
  v.requant_bits = 2 * w + 3;
  return v;
}

namespace {
using BS = core::BackwardStage;
const core::FixedFormat& bfmt(const core::BackwardConfig& b, BS s) { return b.formats[static_cast<size_t>(s)]; }
// An operand's sign-extended width (every Verilog unit widens by one bit).
int ext(const core::FixedFormat& f) { return f.total_bits + 1; }
// An operand's significant bits as a multiplier sees them: an unsigned
// format's extension bit is a constant zero that synthesis drops.
int mul_bits(const core::FixedFormat& f) { return f.is_signed ? f.total_bits + 1 : f.total_bits; }
// A requantiser of the backward's units (rtl_models/fx_requant.v): an
// `in`-bit value with `shift` fraction bits dropped into format f. Its logic
// spans the width it rounds to and is its modes': the increment where it
// rounds to nearest and drops bits, the range check and clamp where it
// saturates (truncating and wrapping is wiring).
void requant(LogicInventory& v, int in, int shift, const core::FixedFormat& f) {
  const double width = in - std::max(shift, 0) + 1;
  if (shift > 0 && f.rounding != core::Rounding::truncate) v.round_bits += width;
  if (f.overflow == core::Overflow::saturate) v.saturate_bits += width;
}
// An a x b multiplier of the backward's units.
void multiply(LogicInventory& v, double a, double b) { v.multiplier_bit_products += a * b; }
// A product summed in the same expression (synthesis maps a x b + c as one
// multiply-accumulate, its partial products and the addend in one tree).
void multiply_add(LogicInventory& v, double a, double b) { v.mac_bit_products += a * b; }
// a + b aligned at the larger fraction: the sum's width (one carry bit).
int aligned_sum_bits(const core::FixedFormat& a, const core::FixedFormat& b) {
  const int F = std::max(a.frac_bits, b.frac_bits);
  return std::max(ext(a) + F - a.frac_bits, ext(b) + F - b.frac_bits) + 1;
}

// backward_operands.v: x_hat = q((x - mean) rstd) unless stored, g = q(dy gamma).
LogicInventory operands_inventory(const core::BackwardConfig& b) {
  const auto& x = fmt(b.forward, Stage::input);
  const auto& m = fmt(b.forward, Stage::mean);
  const auto& s = fmt(b.forward, Stage::rsqrt_out);
  const auto& a = fmt(b.forward, Stage::gamma);
  const auto& d = bfmt(b, BS::dy);
  const auto& h = bfmt(b, BS::xhat);
  const auto& g = bfmt(b, BS::g);
  LogicInventory v;
  if (!b.xhat_stored) {
    const int CF = std::max(x.frac_bits, m.frac_bits);
    const int CW = std::max(ext(x) + CF - x.frac_bits, ext(m) + CF - m.frac_bits) + 1;
    const bool rms = b.kind == core::NormKind::rmsnorm;
    v.adder_bits += rms ? 0 : CW;  // RMSNorm: the mean is zero and the subtractor wiring
    multiply(v, rms ? ext(x) : CW, mul_bits(s));
    requant(v, CW + ext(s), CF + s.frac_bits - h.frac_bits, h);
  }
  multiply(v, ext(d), ext(a));
  requant(v, ext(d) + ext(a), d.frac_bits + a.frac_bits - g.frac_bits, g);
  return v;
}
}  // namespace

LogicInventory row_sum_lane_inventory(const core::BackwardConfig& b) {
  const auto& g = bfmt(b, BS::g);
  const auto& h = bfmt(b, BS::xhat);
  const auto& p = bfmt(b, BS::sum_g);
  const auto& q = bfmt(b, BS::sum_gxhat);
  LogicInventory v = operands_inventory(b);
  if (b.kind != core::NormKind::rmsnorm) {
    const int W1 = aligned_sum_bits(p, g);
    v.adder_bits += W1 - std::abs(p.frac_bits - g.frac_bits);  // the lower operand's extra fraction bits pass through
    requant(v, W1, std::max(p.frac_bits, g.frac_bits) - p.frac_bits, p);
    v.flip_flops += p.total_bits + 1;  // S1 and its overflow flag
  }
  const int W2 = std::max(ext(q) + std::max(0, g.frac_bits + h.frac_bits - q.frac_bits),
                          ext(g) + ext(h) + std::max(0, q.frac_bits - g.frac_bits - h.frac_bits)) + 1;
  multiply_add(v, ext(g), ext(h));
  v.adder_bits += W2 - std::abs(q.frac_bits - g.frac_bits - h.frac_bits);
  requant(v, W2, std::max(q.frac_bits, g.frac_bits + h.frac_bits) - q.frac_bits, q);
  v.flip_flops += q.total_bits + 1;
  return v;
}

LogicInventory param_grad_inventory(const core::BackwardConfig& b) {
  const auto& d = bfmt(b, BS::dy);
  const auto& h = bfmt(b, BS::xhat);
  const auto& gm = bfmt(b, BS::dgamma);
  const auto& bt = bfmt(b, BS::dbeta);
  LogicInventory v;
  const int WG = std::max(ext(gm) + std::max(0, d.frac_bits + h.frac_bits - gm.frac_bits),
                          ext(d) + ext(h) + std::max(0, gm.frac_bits - d.frac_bits - h.frac_bits)) + 1;
  multiply_add(v, ext(d), ext(h));
  v.adder_bits = WG - std::abs(gm.frac_bits - d.frac_bits - h.frac_bits);
  requant(v, WG, std::max(gm.frac_bits, d.frac_bits + h.frac_bits) - gm.frac_bits, gm);
  if (b.kind != core::NormKind::rmsnorm) {
    const int WB = aligned_sum_bits(bt, d);
    v.adder_bits += WB - std::abs(bt.frac_bits - d.frac_bits);
    requant(v, WB, std::max(bt.frac_bits, d.frac_bits) - bt.frac_bits, bt);
  }
  return v;
}

LogicInventory row_sum_node_inventory(const core::BackwardConfig& b) {
  LogicInventory v;
  for (BS s : {BS::sum_g, BS::sum_gxhat}) {
    if (s == BS::sum_g && b.kind == core::NormKind::rmsnorm) continue;
    const int w = bfmt(b, s).total_bits;
    v.adder_bits += w + 2;  // rtl_models/fx_add.v: one sign-extended sum
    requant(v, w + 2, 0, bfmt(b, s));
  }
  return v;
}

LogicInventory row_mean_inventory(const core::BackwardConfig& b) {
  const auto& c = fmt(b.forward, Stage::recip);
  const bool pow2 = std::has_single_bit(static_cast<uint64_t>(b.hidden));
  LogicInventory v;
  for (BS s : {BS::sum_g, BS::sum_gxhat}) {
    if (s == BS::sum_g && b.kind == core::NormKind::rmsnorm) continue;
    const auto& n = bfmt(b, s);
    const int rf = bfmt(b, BS::row_mean).frac_bits;
    if (pow2) {
      requant(v, ext(n), n.frac_bits + std::countr_zero(static_cast<uint64_t>(b.hidden)) - rf, bfmt(b, BS::row_mean));
    } else {
      multiply(v, ext(n), ext(c));
      requant(v, ext(n) + ext(c), n.frac_bits + c.frac_bits - rf, bfmt(b, BS::row_mean));
    }
  }
  return v;
}

LogicInventory dx_lane_inventory(const core::BackwardConfig& b) {
  const auto& g = bfmt(b, BS::g);
  const auto& h = bfmt(b, BS::xhat);
  const auto& r = bfmt(b, BS::row_mean);
  const auto& s = fmt(b.forward, Stage::rsqrt_out);
  const bool rms = b.kind == core::NormKind::rmsnorm;
  LogicInventory v = operands_inventory(b);
  const int FI = std::max({g.frac_bits, r.frac_bits, h.frac_bits + r.frac_bits});
  const int WI = std::max({ext(g) + FI - g.frac_bits, ext(r) + FI - r.frac_bits, ext(h) + ext(r) + FI - h.frac_bits - r.frac_bits}) + 2;
  multiply_add(v, ext(h), ext(r));  // x_hat m2
  multiply(v, WI - 1, mul_bits(s));  // rstd (.): the bracket's three terms carry one bit, not two
  v.adder_bits += (rms ? 1.0 : 2.0) * WI;                                                                 // g - m1 - x_hat m2
  requant(v, WI + ext(s), FI + s.frac_bits - bfmt(b, BS::dx).frac_bits, bfmt(b, BS::dx));
  return v;
}

}  // namespace normsim::area
