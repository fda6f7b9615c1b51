#include "sim/rtl/rtl_config.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "sim/config/config_error.hpp"

#include "sim/area/logic_inventory.hpp"
#include "sim/core/fixed_units.hpp"
#include "sim/core/merge_schedule.hpp"
#include "sim/core/rsqrt_kind.hpp"

namespace normsim::rtl {

namespace {
using core::FixedFormat;
using core::Stage;

const FixedFormat& fmt(const config::Arch& a, Stage s) { return a.formats[static_cast<int>(s)]; }

int rounding_code(core::Rounding r) {
  switch (r) {
    case core::Rounding::truncate: return 0;
    case core::Rounding::half_even: return 1;
    case core::Rounding::half_away: return 2;
  }
  return 1;
}

// XW, XF, XS and, for a register that rounds, XR, XO.
void format_params(ParameterList& l, const std::string& p, const FixedFormat& f, bool rounds) {
  l.push_back({p + "W", f.total_bits});
  l.push_back({p + "F", f.frac_bits});
  l.push_back({p + "S", f.is_signed ? 1 : 0});
  if (rounds) {
    l.push_back({p + "R", rounding_code(f.rounding)});
    l.push_back({p + "O", f.overflow == core::Overflow::wrap ? 1 : 0});
  }
}

// A format's raw value as a Verilog literal of its width (two's complement).
std::string literal(core::Fx v, int bits) {
  std::ostringstream o;
  o << bits << "'h" << std::hex << core::to_word(v, bits);
  return o.str();
}
}  // namespace

const char* module_name(Unit unit) {
  switch (unit) {
    case Unit::welford_lane: return "welford_lane";
    case Unit::welford_update: return "welford_update";
    case Unit::chan_merge: return "chan_merge";
    case Unit::chan_merge_seq: return "chan_merge_seq";
    case Unit::rsqrt: return "rsqrt";
    case Unit::normalize_affine: return "normalize_affine";
    case Unit::philox_mask: return "philox_mask";
    case Unit::residual_add: return "residual_add";
    case Unit::row_sum_lane: return "row_sum_lane";
    case Unit::row_sum_node: return "row_sum_node";
    case Unit::row_mean: return "row_mean";
    case Unit::dx_unit: return "dx_unit";
    case Unit::param_grad_acc: return "param_grad_acc";
  }
  return "?";
}

ParameterList merge_seq_parameter_list(const config::Arch& a, int units, bool rmsnorm, int count_bits) {
  const int L = a.lanes;
  if (units < 1 || units > L - 2)
    throw std::invalid_argument(a.source + ": a merge sequencer of " + std::to_string(units) + " units over " +
                                std::to_string(L) + " lanes (allowed: 1.." + std::to_string(L - 2) + ")");
  const int lat = a.asic ? a.asic->chan_merge_tree.level_cycles : config::ChanMergeTreeParams{}.level_cycles;
  ParameterList l = {{"L", L}, {"LOG2L", std::countr_zero(static_cast<unsigned>(L))}, {"U", units}, {"LAT", lat},
                     {"KIND", rmsnorm ? 1 : 0}, {"NW", count_bits}};
  format_params(l, "M", fmt(a, Stage::mean), true);
  format_params(l, "Q", fmt(a, rmsnorm ? Stage::sumsq : Stage::m2), true);
  format_params(l, "R", fmt(a, Stage::recip), false);
  return l;
}

core::FixedFormat residual_add_format(const config::Arch& a) {
  return a.fuse.add.fixed ? a.fuse.add.format : fmt(a, Stage::input);
}

namespace {
const FixedFormat& bfmt(const config::Arch& a, core::BackwardStage s) { return (*a.backward_formats)[static_cast<size_t>(s)]; }

// The backward's units: x_hat and g's operands and registers (backward_operands.v) and each unit's own.
ParameterList backward_parameter_list(Unit unit, const config::Arch& a, const BackwardUnitOptions& o) {
  using BS = core::BackwardStage;
  if (!a.backward_formats)
    throw std::invalid_argument(a.source + ": key 'backward_formats': missing: the backward's RTL units need them");
  ParameterList l = {{"KIND", o.rmsnorm ? 1 : 0}};
  auto operands = [&] {
    l.push_back({"STORED", o.xhat_stored ? 1 : 0});
    format_params(l, "X", o.xhat_stored ? bfmt(a, BS::xhat) : fmt(a, Stage::input), false);
    format_params(l, "M", fmt(a, Stage::mean), false);
    format_params(l, "S", fmt(a, Stage::rsqrt_out), false);
    format_params(l, "D", bfmt(a, BS::dy), false);
    format_params(l, "A", fmt(a, Stage::gamma), false);
    format_params(l, "H", bfmt(a, BS::xhat), true);
    format_params(l, "G", bfmt(a, BS::g), true);
  };
  auto adder = [&](const std::string& p, const FixedFormat& f) {  // fx_add's parameters: no fraction bits
    l.push_back({p + "W", f.total_bits});
    l.push_back({p + "S", f.is_signed ? 1 : 0});
    l.push_back({p + "R", rounding_code(f.rounding)});
    l.push_back({p + "O", f.overflow == core::Overflow::wrap ? 1 : 0});
  };
  switch (unit) {
    case Unit::row_sum_lane:
      operands();
      format_params(l, "P", bfmt(a, BS::sum_g), true);
      format_params(l, "Q", bfmt(a, BS::sum_gxhat), true);
      break;
    case Unit::row_sum_node:
      adder("P", bfmt(a, BS::sum_g));
      adder("Q", bfmt(a, BS::sum_gxhat));
      break;
    case Unit::row_mean: {
      format_params(l, "P", bfmt(a, BS::sum_g), false);
      format_params(l, "Q", bfmt(a, BS::sum_gxhat), false);
      format_params(l, "C", fmt(a, Stage::recip), false);
      const bool pow2 = std::has_single_bit(static_cast<uint64_t>(o.hidden));
      l.push_back({"POW2", pow2 ? 1 : 0});
      l.push_back({"LOG2C", pow2 ? std::countr_zero(static_cast<uint64_t>(o.hidden)) : 0});
      format_params(l, "R", bfmt(a, BS::row_mean), true);
      break;
    }
    case Unit::dx_unit:
      operands();
      format_params(l, "R", bfmt(a, BS::row_mean), false);
      format_params(l, "O", bfmt(a, BS::dx), true);
      break;
    case Unit::param_grad_acc:
      format_params(l, "D", bfmt(a, BS::dy), false);
      format_params(l, "H", bfmt(a, BS::xhat), false);
      format_params(l, "G", bfmt(a, BS::dgamma), true);
      format_params(l, "B", bfmt(a, BS::dbeta), true);
      break;
    default: break;
  }
  return l;
}
}  // namespace

ParameterList unit_parameter_list(Unit unit, const config::Arch& a, int count_bits, const BackwardUnitOptions& backward) {
  if (unit == Unit::philox_mask) return {{"ROUNDS", kPhiloxRounds}};  // integer only: no formats
  if (a.arithmetic != core::Arithmetic::fixed)
    throw std::invalid_argument(a.source + ": the RTL units are fixed point (arithmetic: fixed)");
  ParameterList l;
  switch (unit) {
    case Unit::row_sum_lane:
    case Unit::row_sum_node:
    case Unit::row_mean:
    case Unit::dx_unit:
    case Unit::param_grad_acc:
      return backward_parameter_list(unit, a, backward);
    case Unit::welford_lane:
    case Unit::welford_update:
      if (unit == Unit::welford_lane) l.push_back({"NW", count_bits});
      format_params(l, "X", fmt(a, Stage::input), false);
      format_params(l, "M", fmt(a, Stage::mean), true);
      format_params(l, "Q", fmt(a, Stage::m2), true);
      format_params(l, "R", fmt(a, Stage::recip), false);
      break;
    case Unit::chan_merge:
      l.push_back({"NW", count_bits});
      format_params(l, "M", fmt(a, Stage::mean), true);
      format_params(l, "Q", fmt(a, Stage::m2), true);
      format_params(l, "R", fmt(a, Stage::recip), false);
      break;
    case Unit::chan_merge_seq:
      return merge_seq_parameter_list(a, a.merge.units, false, count_bits);
    case Unit::rsqrt:
      format_params(l, "I", fmt(a, Stage::rsqrt_in), false);
      format_params(l, "O", fmt(a, Stage::rsqrt_out), true);
      l.push_back({"TB", a.rsqrt.table_bits});
      l.push_back({"ITER", a.rsqrt.iterations});
      l.push_back({"NR", a.rsqrt.nr_frac_bits});
      l.push_back({"SEED", static_cast<int>(a.rsqrt.seed)});
      l.push_back({"UNIT", a.rsqrt.unit});
      break;
    case Unit::normalize_affine:
      format_params(l, "X", fmt(a, Stage::input), false);
      format_params(l, "M", fmt(a, Stage::mean), false);
      format_params(l, "S", fmt(a, Stage::rsqrt_out), false);
      format_params(l, "H", fmt(a, Stage::xhat), true);
      format_params(l, "G", fmt(a, Stage::gamma), false);
      format_params(l, "B", fmt(a, Stage::beta), false);
      format_params(l, "Y", fmt(a, Stage::output), true);
      break;
    case Unit::philox_mask: break;
    case Unit::residual_add:
      format_params(l, "", residual_add_format(a), true);
      l.push_back({"DROPOUT", a.fuse.mode == config::FuseMode::residual_dropout ? 1 : 0});
      break;
  }
  return l;
}

namespace {
std::string assignments(const ParameterList& l) {
  std::ostringstream o;
  o << "#(";
  for (size_t i = 0; i < l.size(); ++i) o << (i ? ", ." : ".") << l[i].first << "(" << l[i].second << ")";
  o << ")";
  return o.str();
}
}  // namespace

std::string unit_parameters(Unit unit, const config::Arch& a, int count_bits, const BackwardUnitOptions& backward) {
  return assignments(unit_parameter_list(unit, a, count_bits, backward));
}

int bench_seq_units(const config::Arch& a) { return std::min(3, a.lanes - 2); }

std::string rom_modules(const config::Arch& a, int64_t max_count) {
  const int nw = area::count_bits(max_count);
  const FixedFormat& rf = fmt(a, Stage::recip);
  std::ostringstream o;
  o << "// Generated by sim/rtl from " << a.source << ": do not edit.\n"
    << "// One file for all the arch's ROMs (not one a module, as lint would have it).\n"
    << "/* verilator lint_off DECLFILENAME */\n"
    << "// 1/n in the recip format (" << rf.describe() << "), n = 1.." << max_count << ".\n"
    << "module welford_recip_rom (input wire [" << nw - 1 << ":0] n, output reg [" << rf.total_bits - 1
    << ":0] value);\n  always @* begin\n    case (n)\n";
  const auto recip = core::make_recip_table(std::max<int64_t>(max_count, 2), rf);
  for (int64_t n = 1; n <= max_count; ++n)
    o << "      " << nw << "'d" << n << ": value = " << literal(recip[static_cast<size_t>(n)], rf.total_bits) << ";\n";
  o << "      default: value = " << rf.total_bits << "'d0;\n    endcase\n  end\nendmodule\n\n";

  const auto& rc = a.rsqrt;
  const int yw = rc.rom_word_bits();
  const auto seeds = core::make_rsqrt_rom(rc);
  // An index's entries side by side, its first in the top bits ({c0, c1} for the linear seed).
  const size_t per_index = static_cast<size_t>(rc.rom_words() >> rc.table_bits);
  const int word = static_cast<int>(per_index) * yw;
  o << "// rsqrt seeds (" << rc.kind().name << ", " << core::kRsqrtSeeds.name(rc.seed) << "), "
    << per_index << " word(s) of " << yw << " bits an index: make_rsqrt_rom's.\n"
    << "module rsqrt_seed_rom (input wire [" << rc.table_bits - 1 << ":0] index, output reg [" << word - 1
    << ":0] value);\n  always @* begin\n    case (index)\n";
  for (size_t i = 0; i < (size_t(1) << rc.table_bits); ++i) {
    o << "      " << rc.table_bits << "'d" << i << ": value = {";
    for (size_t k = 0; k < per_index; ++k) o << (k ? ", " : "") << literal(seeds[per_index * i + k], yw);
    o << "};\n";
  }
  o << "      default: value = " << word << "'d0;\n    endcase\n  end\nendmodule\n\n" << rsqrt_module();
  return o.str();
}

std::string rsqrt_module() {
  // Every unit of sim/core/rsqrt_kind.hpp's table, UNIT its index: each takes
  // the formats and the section parameters its kind names.
  std::ostringstream o;
  o << "// The RSQRT unit the arch builds (rsqrt.unit), UNIT its index in sim/core's table of units:\n";
  const auto& kinds = core::rsqrt_kinds();
  for (size_t i = 0; i < kinds.size(); ++i)
    o << "//   UNIT " << i << "  " << kinds[i].name << ": " << kinds[i].summary << " (" << kinds[i].verilog_module << ".v)\n";
  o << "// Each reads the arch's rsqrt_seed_rom and answers one operand a cycle.\n"
    << "module rsqrt #(\n"
    << "  parameter integer IW = 40, IF = 28, IS = 0,                 // rsqrt_in\n"
    << "  parameter integer OW = 32, OF = 22, OS = 0, OR = 1, OO = 0, // rsqrt_out\n"
    << "  parameter integer TB = 8, ITER = 2, NR = 28, SEED = 0,      // the section's table, steps, iterate, seed\n"
    << "  parameter integer UNIT = 0\n"
    << ") (\n  input  wire          clk,\n  input  wire          in_valid,\n  input  wire [IW-1:0] in,\n"
    << "  output wire          out_valid,\n  output wire [OW-1:0] out,\n  output wire          overflow\n);\n  generate\n";
  for (size_t i = 0; i < kinds.size(); ++i) {
    const core::RsqrtKind& k = kinds[i];
    o << "    " << (i ? "end else if" : "if") << " (UNIT == " << i << ") begin : g_" << k.name << "\n      "
      << k.verilog_module << " #(.IW(IW), .IF(IF), .IS(IS), .OW(OW), .OF(OF), .OS(OS), .OR(OR), .OO(OO)";
    for (std::string_view p : k.verilog_parameters) o << ", ." << p << "(" << p << ")";
    o << ")\n        u (.clk(clk), .in_valid(in_valid), .in(in), .out_valid(out_valid), .out(out), .overflow(overflow));\n";
  }
  o << "    end\n  endgenerate\nendmodule\n";
  return o.str();
}

std::string bench_top(const config::Arch& a, int64_t max_count) {
  const int nw = area::count_bits(max_count);
  const int merge_nw = kBenchMergeCountBits;  // counts up to 2^24 elements a row
  const int L = a.lanes;
  if (L < 4) throw std::invalid_argument(a.source + ": the RTL bench's merge sequencers need lanes >= 4");
  if (!a.backward_formats)
    throw std::invalid_argument(a.source + ": key 'backward_formats': missing: the RTL bench co-simulates the backward's units");
  using BS = core::BackwardStage;
  auto w = [&](Stage s) { return fmt(a, s).total_bits; };
  auto wb = [&](BS s) { return bfmt(a, s).total_bits; };
  auto bus = [](int bits) { return "[" + std::to_string(bits - 1) + ":0] "; };
  std::ostringstream o;
  o << rom_modules(a, max_count) << "\n"
    << "// Every unit at the formats of " << a.source << ", ports prefixed by unit.\n"
    << "module rtl_bench (\n  input wire clk,\n"
    // welford_lane
    << "  input wire wl_start, wl_in_valid,\n  input wire " << bus(w(Stage::input)) << "wl_x,\n"
    << "  output wire " << bus(nw) << "wl_count,\n  output wire " << bus(w(Stage::mean)) << "wl_mean,\n"
    << "  output wire " << bus(w(Stage::m2)) << "wl_m2,\n  output wire wl_mean_overflow, wl_m2_overflow,\n"
    // welford_update
    << "  input wire " << bus(w(Stage::input)) << "wu_x,\n  input wire " << bus(w(Stage::mean)) << "wu_mean,\n"
    << "  input wire " << bus(w(Stage::m2)) << "wu_m2,\n  input wire " << bus(w(Stage::recip)) << "wu_recip,\n"
    << "  output wire " << bus(w(Stage::mean)) << "wu_mean_next,\n  output wire " << bus(w(Stage::m2))
    << "wu_m2_next,\n  output wire wu_mean_overflow, wu_m2_overflow,\n"
    // chan_merge
    << "  input wire " << bus(merge_nw) << "cm_n_a, cm_n_b,\n  input wire " << bus(w(Stage::mean))
    << "cm_mean_a, cm_mean_b,\n  input wire " << bus(w(Stage::m2)) << "cm_m2_a, cm_m2_b,\n  input wire "
    << bus(w(Stage::recip)) << "cm_coef,\n  output wire " << bus(merge_nw) << "cm_n,\n  output wire "
    << bus(w(Stage::mean)) << "cm_mean,\n  output wire " << bus(w(Stage::m2))
    << "cm_m2,\n  output wire cm_mean_overflow, cm_m2_overflow,\n"
    // rsqrt
    << "  input wire rs_in_valid,\n  input wire " << bus(w(Stage::rsqrt_in)) << "rs_in,\n"
    << "  output wire rs_out_valid,\n  output wire " << bus(w(Stage::rsqrt_out)) << "rs_out,\n"
    << "  output wire rs_overflow,\n"
    // normalize_affine
    << "  input wire " << bus(w(Stage::input)) << "na_x,\n  input wire " << bus(w(Stage::mean)) << "na_mean,\n"
    << "  input wire " << bus(w(Stage::rsqrt_out)) << "na_rstd,\n  input wire " << bus(w(Stage::gamma))
    << "na_gamma,\n  input wire " << bus(w(Stage::beta)) << "na_beta,\n  output wire " << bus(w(Stage::xhat))
    << "na_xhat,\n  output wire " << bus(w(Stage::output))
    << "na_y,\n  output wire na_xhat_overflow, na_y_overflow,\n"
    // the sequencers: one set of lane states, three instances
    << "  input wire sq_go,\n  input wire " << bus(L * merge_nw) << "sq_lane_n,\n  input wire "
    << bus(L * w(Stage::mean)) << "sq_lane_mean,\n  input wire " << bus(L * w(Stage::m2)) << "sq_lane_m2,\n"
    << "  input wire " << bus(L * w(Stage::sumsq)) << "sq_lane_sumsq,\n  input wire " << bus(L * w(Stage::recip))
    << "sq_coef,\n";
  for (const char* p : {"sa_", "sb_"})
    o << "  output wire " << p << "ready, " << p << "out_valid,\n  output wire " << bus(merge_nw) << p << "n,\n"
      << "  output wire " << bus(w(Stage::mean)) << p << "mean,\n  output wire " << bus(w(Stage::m2)) << p << "root,\n";
  o << "  output wire sr_ready, sr_out_valid,\n  output wire " << bus(w(Stage::sumsq)) << "sr_root,\n"
    // philox_mask
    << "  input wire pm_in_valid,\n  input wire [63:0] pm_key, pm_counter,\n  input wire [31:0] pm_stream, pm_threshold,\n"
    << "  output wire pm_out_valid,\n  output wire [127:0] pm_words,\n  output wire [3:0] pm_keep,\n"
    // residual_add, without and with the dropout multiplier
    << "  input wire " << bus(residual_add_format(a).total_bits) << "ra_x, ra_r, rd_x, rd_r, rd_scale,\n"
    << "  input wire rd_keep,\n  output wire " << bus(residual_add_format(a).total_bits) << "ra_z, rd_z,\n"
    << "  output wire ra_overflow, rd_overflow,\n"
    // the backward's units on shared operands
    << "  input wire bo_start, bo_in_valid,\n  input wire " << bus(w(Stage::input)) << "bo_x,\n  input wire "
    << bus(wb(BS::xhat)) << "bo_xs,\n  input wire " << bus(w(Stage::mean)) << "bo_mean,\n  input wire "
    << bus(w(Stage::rsqrt_out)) << "bo_rstd,\n  input wire " << bus(wb(BS::dy)) << "bo_dy,\n  input wire "
    << bus(w(Stage::gamma)) << "bo_gamma,\n  input wire " << bus(wb(BS::row_mean)) << "bo_m1, bo_m2,\n  input wire "
    << bus(wb(BS::dgamma)) << "bo_dgamma,\n  input wire " << bus(wb(BS::dbeta)) << "bo_dbeta,\n  input wire "
    << bus(wb(BS::sum_g)) << "bo_s1a, bo_s1b,\n  input wire " << bus(wb(BS::sum_gxhat)) << "bo_s2a, bo_s2b,\n  input wire "
    << bus(w(Stage::recip)) << "bo_recip,\n";
  for (const char* p : {"rl_", "rr_", "rt_"})
    o << "  output wire " << bus(wb(BS::xhat)) << p << "xhat,\n  output wire " << bus(wb(BS::g)) << p << "g,\n  output wire "
      << bus(wb(BS::sum_g)) << p << "s1,\n  output wire " << bus(wb(BS::sum_gxhat)) << p << "s2,\n  output wire " << p
      << "xhat_overflow, " << p << "g_overflow, " << p << "s1_overflow, " << p << "s2_overflow,\n";
  for (const char* p : {"dl_", "dr_", "dt_"})
    o << "  output wire " << bus(wb(BS::dx)) << p << "dx,\n  output wire " << p << "dx_overflow,\n";
  for (const char* p : {"pl_", "pr_"})
    o << "  output wire " << bus(wb(BS::dgamma)) << p << "dgamma,\n  output wire " << bus(wb(BS::dbeta)) << p
      << "dbeta,\n  output wire " << p << "dgamma_overflow, " << p << "dbeta_overflow,\n";
  o << "  output wire " << bus(wb(BS::sum_g)) << "nl_s1,\n  output wire " << bus(wb(BS::sum_gxhat))
    << "nl_s2,\n  output wire nl_s1_overflow, nl_s2_overflow";
  for (const char* p : {"ml_", "mp_"})
    o << ",\n  output wire " << bus(wb(BS::row_mean)) << p << "m1, " << p << "m2,\n  output wire " << p << "m1_overflow, "
      << p << "m2_overflow";
  o << "\n);\n"
    << "  welford_lane " << unit_parameters(Unit::welford_lane, a, nw)
    << " lane (.clk(clk), .start(wl_start), .in_valid(wl_in_valid), .x(wl_x), .count(wl_count), "
       ".mean(wl_mean), .m2(wl_m2), .mean_overflow(wl_mean_overflow), .m2_overflow(wl_m2_overflow));\n"
    << "  welford_update " << unit_parameters(Unit::welford_update, a, nw)
    << " update (.x(wu_x), .mean(wu_mean), .m2(wu_m2), .recip(wu_recip), .mean_next(wu_mean_next), "
       ".m2_next(wu_m2_next), .mean_overflow(wu_mean_overflow), .m2_overflow(wu_m2_overflow));\n"
    << "  chan_merge " << unit_parameters(Unit::chan_merge, a, merge_nw)
    << " merge (.n_a(cm_n_a), .n_b(cm_n_b), .mean_a(cm_mean_a), .mean_b(cm_mean_b), .m2_a(cm_m2_a), "
       ".m2_b(cm_m2_b), .coef(cm_coef), .n(cm_n), .mean(cm_mean), .m2(cm_m2), .mean_overflow(cm_mean_overflow), "
       ".m2_overflow(cm_m2_overflow));\n"
    << "  rsqrt " << unit_parameters(Unit::rsqrt, a, nw)
    << " rsqrt_unit (.clk(clk), .in_valid(rs_in_valid), .in(rs_in), .out_valid(rs_out_valid), .out(rs_out), "
       ".overflow(rs_overflow));\n"
    << "  normalize_affine " << unit_parameters(Unit::normalize_affine, a, nw)
    << " normalize (.x(na_x), .mean(na_mean), .rstd(na_rstd), .gamma(na_gamma), .beta(na_beta), "
       ".xhat(na_xhat), .y(na_y), .xhat_overflow(na_xhat_overflow), .y_overflow(na_y_overflow));\n";
  auto seq = [&](const char* p, int units, bool rms) {
    o << "  chan_merge_seq " << assignments(merge_seq_parameter_list(a, units, rms, merge_nw)) << " " << p
      << "seq (.clk(clk), .go(sq_go), .ready(" << p << "ready), .lane_n(sq_lane_n), .lane_mean(sq_lane_mean), "
      << ".lane_root(" << (rms ? "sq_lane_sumsq" : "sq_lane_m2") << "), .coef(sq_coef), .out_valid(" << p
      << "out_valid), .n(" << (rms ? "" : std::string(p) + "n") << "), .mean(" << (rms ? "" : std::string(p) + "mean")
      << "), .root(" << p << "root));\n";
  };
  seq("sa_", 1, false);
  seq("sb_", bench_seq_units(a), false);
  // RMSNorm's adder tree has no count or mean: their outputs stay open.
  o << "  /* verilator lint_off PINCONNECTEMPTY */\n";
  seq("sr_", kBenchRmsSeqUnits, true);
  o << "  /* verilator lint_on PINCONNECTEMPTY */\n";
  o << "  philox_mask " << unit_parameters(Unit::philox_mask, a, nw)
    << " mask (.clk(clk), .in_valid(pm_in_valid), .key(pm_key), .counter(pm_counter), .stream(pm_stream), "
       ".threshold(pm_threshold), .out_valid(pm_out_valid), .words(pm_words), .keep(pm_keep));\n";
  for (const bool dropout : {false, true}) {
    ParameterList l;
    format_params(l, "", residual_add_format(a), true);
    l.push_back({"DROPOUT", dropout ? 1 : 0});
    const std::string p = dropout ? "rd_" : "ra_";
    o << "  residual_add " << assignments(l) << " " << p << "adder (.x(" << p << "x), .r(" << p << "r), .scale("
      << (dropout ? "rd_scale" : "ra_x") << "), .keep(" << (dropout ? "rd_keep" : "1'b1") << "), .z(" << p << "z), .overflow("
      << p << "overflow));\n";
  }
  for (const auto& [p, rms, stored] : {std::tuple{"l", false, false}, {"r", true, false}, {"t", false, true}}) {
    const BackwardUnitOptions bo{rms, stored};
    const std::string x = stored ? "bo_xs" : "bo_x";
    o << "  row_sum_lane " << unit_parameters(Unit::row_sum_lane, a, nw, bo) << " r" << p << "_lane (.clk(clk), "
      << ".start(bo_start), .in_valid(bo_in_valid), .x(" << x << "), .mean(bo_mean), .rstd(bo_rstd), .dy(bo_dy), "
      << ".gamma(bo_gamma), .xhat(r" << p << "_xhat), .g(r" << p << "_g), .xhat_overflow(r" << p << "_xhat_overflow), "
      << ".g_overflow(r" << p << "_g_overflow), .s1(r" << p << "_s1), .s2(r" << p << "_s2), .s1_overflow(r" << p
      << "_s1_overflow), .s2_overflow(r" << p << "_s2_overflow));\n"
      << "  dx_unit " << unit_parameters(Unit::dx_unit, a, nw, bo) << " d" << p << "_unit (.x(" << x << "), "
      << ".mean(bo_mean), .rstd(bo_rstd), .dy(bo_dy), .gamma(bo_gamma), .m1(bo_m1), .m2(bo_m2), .dx(d" << p
      << "_dx), .dx_overflow(d" << p << "_dx_overflow));\n";
    if (stored) continue;
    o << "  param_grad_acc " << unit_parameters(Unit::param_grad_acc, a, nw, bo) << " p" << p << "_acc (.dy(bo_dy), "
      << ".xhat(bo_xs), .dgamma(bo_dgamma), .dbeta(bo_dbeta), .dgamma_next(p" << p << "_dgamma), .dbeta_next(p" << p
      << "_dbeta), .dgamma_overflow(p" << p << "_dgamma_overflow), .dbeta_overflow(p" << p << "_dbeta_overflow));\n";
  }
  o << "  row_sum_node " << unit_parameters(Unit::row_sum_node, a, nw) << " nl_node (.s1_a(bo_s1a), .s1_b(bo_s1b), "
    << ".s2_a(bo_s2a), .s2_b(bo_s2b), .s1(nl_s1), .s2(nl_s2), .s1_overflow(nl_s1_overflow), .s2_overflow(nl_s2_overflow));\n";
  for (const auto& [p, hidden] : {std::pair{"ml_", int64_t{3}}, {"mp_", int64_t{1} << kBenchRowMeanLog2}})
    o << "  row_mean " << unit_parameters(Unit::row_mean, a, nw, {false, false, hidden}) << " " << p
      << "unit (.s1(bo_s1a), .s2(bo_s2a), .recip(bo_recip), .m1(" << p << "m1), .m2(" << p << "m2), .m1_overflow(" << p
      << "m1_overflow), .m2_overflow(" << p << "m2_overflow));\n";
  o << "endmodule\n";
  return o.str();
}

std::string parameter_key(const std::string& p) {
  static const std::map<std::string, std::string> whole = {
      {"L", "lanes"}, {"TB", "rsqrt.table_bits"}, {"ITER", "rsqrt.iterations"}, {"NR", "rsqrt.nr_frac_bits"},
      {"SEED", "rsqrt.seed"}, {"UNIT", "rsqrt.unit"}, {"RS_STAGES", "rsqrt.unit"}, {"WELFORD_LAT", "asic.welford_lanes.latency_cycles"},
      {"MERGE_LAT", "asic.chan_merge_tree.level_cycles"}, {"RSQRT_LAT", "asic.rsqrt.latency_cycles"},
      {"NORM_LAT", "asic.normalize.latency_cycles"},
      {"MERGE_UNITS", "merge.units"}};
  static const std::map<char, std::string> stage = {{'X', "input"}, {'M', "mean"}, {'Q', "m2"}, {'R', "recip"},
                                                    {'U', "sumsq"}, {'V', "variance"}, {'I', "rsqrt_in"},
                                                    {'O', "rsqrt_out"}, {'H', "xhat"}, {'G', "gamma"}, {'B', "beta"},
                                                    {'Y', "output"}};
  static const std::map<char, std::string> field = {{'W', "bits"}, {'F', "frac"}, {'S', "signed"}, {'R', "rounding"},
                                                    {'O', "overflow"}};
  if (auto it = whole.find(p); it != whole.end()) return it->second;
  if (p.size() == 2 && stage.count(p[0]) && field.count(p[1])) return "formats." + stage.at(p[0]) + "." + field.at(p[1]);
  return p;
}

std::string pipeline_parameters(const config::Arch& a, bool rmsnorm, int64_t max_hidden) {
  if (!a.asic) throw config::ConfigError(a.source + ": the RTL pipeline needs the arch's asic section");
  const config::AsicConfig& c = *a.asic;
  const int L = a.lanes;
  const int64_t max_count = (max_hidden + L - 1) / L;
  // The pipeline's own depth: lanes 1 (the lane register), a tree level 1,
  // rsqrt_in 1 + the rsqrt unit's stages, normalise 1.
  auto need = [&](const char* key, int have, int min) {
    if (have < min)
      throw config::ConfigError(a.source + ": asic." + key + ": the RTL pipeline needs a whole number >= " +
                                std::to_string(min) + " cycles, got " + std::to_string(have));
  };
  need("welford_lanes.latency_cycles", c.welford_lanes.latency_cycles, 1);
  need("chan_merge_tree.level_cycles", c.chan_merge_tree.level_cycles, 1);
  need("rsqrt.latency_cycles", c.rsqrt.latency_cycles, a.rsqrt.stages() + 1);
  need("normalize.latency_cycles", c.normalize.latency_cycles, 1);
  ParameterList l = {{"L", L}, {"LOG2L", std::countr_zero(static_cast<unsigned>(L))}, {"KIND", rmsnorm ? 1 : 0},
                     {"NW", area::count_bits(max_count)}, {"MNW", 24}, {"LMAX", 24},
                     {"WELFORD_LAT", c.welford_lanes.latency_cycles}, {"MERGE_LAT", c.chan_merge_tree.level_cycles},
                     {"RSQRT_LAT", c.rsqrt.latency_cycles}, {"NORM_LAT", c.normalize.latency_cycles},
                     {"MERGE_UNITS", core::MergeSchedule{L, a.merge.units}.shared() ? a.merge.units : 0}};
  format_params(l, "X", fmt(a, Stage::input), false);
  format_params(l, "M", fmt(a, Stage::mean), true);
  format_params(l, "Q", fmt(a, Stage::m2), true);
  format_params(l, "R", fmt(a, Stage::recip), false);
  format_params(l, "U", fmt(a, Stage::sumsq), true);
  format_params(l, "V", fmt(a, Stage::variance), true);
  format_params(l, "I", fmt(a, Stage::rsqrt_in), true);
  format_params(l, "O", fmt(a, Stage::rsqrt_out), true);
  format_params(l, "H", fmt(a, Stage::xhat), true);
  format_params(l, "G", fmt(a, Stage::gamma), false);
  format_params(l, "B", fmt(a, Stage::beta), false);
  format_params(l, "Y", fmt(a, Stage::output), true);
  l.push_back({"TB", a.rsqrt.table_bits});
  l.push_back({"ITER", a.rsqrt.iterations});
  l.push_back({"NR", a.rsqrt.nr_frac_bits});
  l.push_back({"SEED", static_cast<int>(a.rsqrt.seed)});
  l.push_back({"UNIT", a.rsqrt.unit});
  l.push_back({"RS_STAGES", a.rsqrt.stages()});
  std::ostringstream o;
  for (const auto& [k, v] : l) o << "-G" << k << "=" << v << "\n";
  return o.str();
}

}  // namespace normsim::rtl
