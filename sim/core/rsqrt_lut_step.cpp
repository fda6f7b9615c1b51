#include "sim/core/rsqrt_lut_step.hpp"

#include <cmath>

namespace normsim::core {

std::vector<Fx> make_rsqrt_lut(const RsqrtLutStep& u) {
  const int per_half = 1 << (u.table_bits - 1);
  std::vector<Fx> t(static_cast<size_t>(2 * per_half));
  for (int p = 0; p < 2; ++p)
    for (int j = 0; j < per_half; ++j) {
      const double scale = p ? 2.0 : 1.0;
      const double a = (1.0 + static_cast<double>(j) / per_half) * scale, b = a + scale / per_half;
      t[static_cast<size_t>(p * per_half + j)] = quantize(2.0 / (std::sqrt(a) + std::sqrt(b)), u.seed_format());
    }
  return t;
}

Fx rsqrt_lut_step(Fx v, const RsqrtLutStep& u, const std::vector<Fx>& lut, const FixedFormat& out, QuantFlags* flags) {
  if (v.raw <= 0) {
    if (flags) *flags = QuantFlags{true, true};
    return Fx{out.max_raw(), out.frac_bits};
  }
  const RsqrtOperand op = rsqrt_operand(v, u.table_bits);
  const Exact y0 = exact(lut[op.index]);
  const Fx e = quantize(sub(exact_from_int(1), mul(op.m, mul(y0, y0))), u.error_format());
  const Fx y1 = quantize(add(y0, shift(mul(y0, exact(e)), -1)), u.iterate_format());
  return quantize(shift(exact(y1), -op.k / 2), out, flags);
}

namespace {
std::optional<RsqrtRefusal> refuse(const RsqrtConfig& c) {
  if (c.table_bits < 4 || c.table_bits > 16)
    return RsqrtRefusal{"table_bits", std::to_string(c.table_bits), "the lut_step unit takes one step from the table", "4..16"};
  if (c.iterations != 1)
    return RsqrtRefusal{"iterations", std::to_string(c.iterations), "the lut_step unit takes exactly one step", "1"};
  if (c.seed != RsqrtSeed::table)
    return RsqrtRefusal{"seed", std::string(kRsqrtSeeds.name(c.seed)), "the lut_step unit seeds from a table value", "table"};
  if (c.nr_frac_bits <= c.table_bits + 2 || c.nr_frac_bits > 60)
    return RsqrtRefusal{"nr_frac_bits", std::to_string(c.nr_frac_bits),
                        "the lut_step unit refines its seed's table_bits + 2 fraction bits",
                        std::to_string(c.table_bits + 3) + "..60"};
  return std::nullopt;
}

// As rtl_models/rsqrt_lut_step.v derives its widths: a TB+3-bit squarer,
// m times the square, y0 times the narrow e.
LogicInventory operators(const RsqrtWidths& w, const RsqrtConfig& rc) {
  const int NR = rc.nr_frac_bits, SW = rc.table_bits + 3, EW = NR - rc.table_bits + 4, YW = NR + 3, IW = w.IW;
  const int PW = IW + 2 * SW + 2, XW = SW + NR + 4;  // 1 - m y0^2; y0 2^(NR+1) + y0 e
  LogicInventory v;
  v.multiplier_bit_products = static_cast<double>(SW) * SW + (IW + 1.0) * (2 * SW) + (SW + 1.0) * EW;
  v.adder_bits = PW + XW + 9;  // 1 - p, y0 + y0 e / 2, the exponent
  v.requant_bits = PW + XW + w.VW;
  v.flip_flops = (SW + IW + 1 + 9 + 2) + (EW + SW + 9 + 2) + (YW + 9 + 2) + w.out_bits + 2;
  return v;
}
}  // namespace

RsqrtKind rsqrt_lut_step_kind() {
  RsqrtKind k;
  k.name = "lut_step";
  k.summary = "2^table_bits narrow seeds, one step in error form with table_bits-wide multipliers; iterations 1, seed table";
  k.verilog_module = "rsqrt_lut_step";
  k.verilog_parameters = {"TB", "NR"};
  k.stages = [](const RsqrtConfig&) { return 4; };
  k.stage_names = [](const RsqrtConfig&) -> std::string { return "e, y1"; };
  k.rom_words = [](const RsqrtConfig& c) { return int64_t(1) << c.table_bits; };
  k.rom_word_bits = [](const RsqrtConfig& c) { return c.table_bits + 3; };
  k.rom = [](const RsqrtConfig& c) { return make_rsqrt_lut(RsqrtLutStep::of(c)); };
  k.eval = [](Fx v, const RsqrtConfig& c, const std::vector<Fx>& rom, const FixedFormat& out, QuantFlags* flags) {
    return rsqrt_lut_step(v, RsqrtLutStep::of(c), rom, out, flags);
  };
  k.refuse = refuse;
  k.operators = operators;
  // One stage holds none of the three products alone in depth: fitted over all three.
  k.depth_bit_products = [](const LogicInventory& ops, const RsqrtConfig&) { return ops.multiplier_bit_products; };
  // Its three products and two sums as built.
  k.row_pj = [](const LogicInventory& ops, const RsqrtConfig&, double pj_mul, double pj_add) {
    return pj_mul * ops.multiplier_bit_products + pj_add * ops.adder_bits;
  };
  k.depth_fit = "rsqrt_lut_step";  // over its own four points
  k.depth_a = -25.19;
  k.depth_b = 10.403;
  k.depth_worst_error = 0.024;
  k.example = RsqrtConfig{10, 1, 26, RsqrtSeed::table};
  k.calibration = {{12, 6, 1}, {16, 8, 1}, {24, 10, 1}, {32, 12, 1}};
  return k;
}

}  // namespace normsim::core
