// The RSQRT units' table (sim/core/rsqrt_kind.hpp) and newton, the first.
#include "sim/core/rsqrt_kind.hpp"

#include <algorithm>

#include "sim/core/rsqrt_lut_step.hpp"

namespace normsim::core {

RsqrtWidths RsqrtWidths::of(const FixedFormat& in, const FixedFormat& out, const RsqrtConfig& rc) {
  // As rtl_models/rsqrt_operand.v and rsqrt_scale.v derive them: v = m 2^k,
  // k even, then the iterate (NR fraction bits) shifted by -k/2 before rounding.
  RsqrtWidths w;
  w.IW = in.total_bits;
  w.IF = in.frac_bits;
  w.out_bits = out.total_bits;
  const int NR = rc.nr_frac_bits, YW = NR + 3, EMIN = -w.IF, EMAX = w.IW - 1 - w.IF;
  auto floor_half = [](int e) { return e >= 0 ? e / 2 : -((-e + 1) / 2); };
  w.KMAX = floor_half(EMAX);
  w.KMIN = floor_half(EMIN);
  const int FR = std::max(NR + w.KMAX, out.frac_bits);
  w.VW = YW + FR - NR - w.KMIN + 1;
  return w;
}

namespace {
// newton: a seed (a table value or a line an interval) and `iterations`
// Newton steps y' = y (3 - m y^2) / 2, each step's products rounded into the
// iterate (rsqrt_nr; rtl_models/rsqrt_newton.v).
double linear_seed_products(const RsqrtConfig& rc) {
  return rc.seed == RsqrtSeed::linear ? (rc.nr_frac_bits + 3.0) * (rc.nr_frac_bits + 1) : 0;
}

LogicInventory newton_operators(const RsqrtWidths& w, const RsqrtConfig& rc) {
  const int YW = rc.nr_frac_bits + 3, NR = rc.nr_frac_bits, IW = w.IW;
  const double it = rc.iterations;
  LogicInventory v;
  v.multiplier_bit_products = it * (static_cast<double>(YW) * YW + static_cast<double>(IW + 2) * YW +
                                    static_cast<double>(YW) * (YW + 2));
  v.adder_bits = it * (YW + 2) + 9;  // 3 - m y^2 per step; the exponent
  v.requant_bits = it * (2.0 * YW + (IW + YW + 2) + (2 * YW + 3)) + w.VW;
  v.flip_flops = (rc.iterations + 1.0) * (YW + IW + 1 + 9 + 2) + w.out_bits + 2;
  if (rc.seed == RsqrtSeed::linear) {
    // y0 = c0 + c1 t: a YW x (NR + 1) product, its sum and rounding, and a
    // stage of registers (c0, c1, t, m, k/2, the flags) in front of it.
    v.multiplier_bit_products += linear_seed_products(rc);
    v.adder_bits += YW + NR + 2;
    v.requant_bits += YW + NR + 2;
    v.flip_flops += 2.0 * YW + NR + (IW + 1) + 9 + 2;
  }
  return v;
}

RsqrtKind newton_kind() {
  RsqrtKind k;
  k.name = "newton";
  k.summary = "a seed, then `iterations` full-width Newton steps";
  k.verilog_module = "rsqrt_newton";
  k.verilog_parameters = {"TB", "ITER", "NR", "SEED"};
  k.stages = [](const RsqrtConfig& c) { return c.iterations + 2 + (c.seed == RsqrtSeed::linear ? 1 : 0); };
  k.stage_names = [](const RsqrtConfig& c) -> std::string {
    return c.seed == RsqrtSeed::linear ? "the line's multiply-add, one per Newton step" : "one per Newton step";
  };
  k.rom_words = [](const RsqrtConfig& c) { return (int64_t(1) << c.table_bits) * (c.seed == RsqrtSeed::linear ? 2 : 1); };
  k.rom_word_bits = [](const RsqrtConfig& c) { return c.nr_frac_bits + 3; };
  k.rom = make_rsqrt_table;
  k.eval = rsqrt_nr;
  k.refuse = nullptr;
  k.operators = newton_operators;
  // A Newton step's products (the deepest stage): the linear seed's shallower multiply-add taken out.
  k.depth_bit_products = [](const LogicInventory& ops, const RsqrtConfig& c) {
    return c.iterations > 0 ? (ops.multiplier_bit_products - linear_seed_products(c)) / c.iterations
                            : ops.multiplier_bit_products;
  };
  // Each step: three products and a subtraction at the iterate's width.
  k.row_pj = [](const LogicInventory&, const RsqrtConfig& c, double pj_mul, double pj_add) {
    const int nr = c.nr_frac_bits + 3;
    return c.iterations * (3 * pj_mul * nr * nr + pj_add * nr);
  };
  // tools/area/calibrate_area.py's sweep (datapath 8..32 bits, 1..3 steps).
  k.depth_fit = "rsqrt_unit";
  k.depth_a = -47.13;
  k.depth_b = 20.408;
  k.depth_worst_error = 0.015;
  k.example = RsqrtConfig{};
  return k;
}
}  // namespace

const std::vector<RsqrtKind>& rsqrt_kinds() {
  // One line a unit; the first is the default (RsqrtConfig::unit 0).
  static const std::vector<RsqrtKind> kinds = [] {
    std::vector<RsqrtKind> k = {newton_kind(), rsqrt_lut_step_kind()};
    for (size_t i = 0; i < k.size(); ++i) k[i].example.unit = static_cast<int>(i);
    return k;
  }();
  return kinds;
}

std::vector<std::string> rsqrt_kind_names() {
  std::vector<std::string> n;
  for (const RsqrtKind& k : rsqrt_kinds()) n.emplace_back(k.name);
  return n;
}

std::optional<int> rsqrt_kind_index(std::string_view name) {
  const auto& ks = rsqrt_kinds();
  for (size_t i = 0; i < ks.size(); ++i)
    if (ks[i].name == name) return static_cast<int>(i);
  return std::nullopt;
}

const RsqrtKind& RsqrtConfig::kind() const { return rsqrt_kinds().at(static_cast<size_t>(unit)); }
std::optional<RsqrtRefusal> RsqrtConfig::refusal() const { return kind().refuse ? kind().refuse(*this) : std::nullopt; }
int64_t RsqrtConfig::rom_words() const { return kind().rom_words(*this); }
int RsqrtConfig::rom_word_bits() const { return kind().rom_word_bits(*this); }
int RsqrtConfig::stages() const { return kind().stages(*this); }

Fx rsqrt_unit(Fx v, const RsqrtConfig& cfg, const std::vector<Fx>& table, const FixedFormat& out, QuantFlags* flags) {
  return cfg.kind().eval(v, cfg, table, out, flags);
}

std::vector<Fx> make_rsqrt_rom(const RsqrtConfig& cfg) { return cfg.kind().rom(cfg); }

}  // namespace normsim::core
