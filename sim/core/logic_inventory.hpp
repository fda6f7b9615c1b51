// The operators of one fixed-point RTL unit, counted at the widths its
// Verilog derives: what sim/area turns into gate equivalents (per-operator
// costs fitted to yosys, docs/AREA.md) and energy. It lives in core so that a
// unit declared here (an RSQRT kind, sim/core/rsqrt_kind.hpp) can state its
// own operators beside its arithmetic.
#pragma once

namespace normsim::core {

struct LogicInventory {
  double adder_bits = 0;
  double multiplier_bit_products = 0;
  // The backward's units count these (the forward's, requant_bits):
  double mac_bit_products = 0;  ///< bit products of a multiply-accumulate's product
  double round_bits = 0;        ///< width of each requantiser that rounds to nearest
  double saturate_bits = 0;     ///< width of each requantiser that saturates
  double requant_bits = 0;      ///< input width of each requantiser
  double shifter_bits = 0;      ///< width x log2(shift range) of each barrel shifter / leading-zero normaliser
  double flip_flops = 0;
  double mux_bits = 0;  ///< 2:1 multiplexer bits (an n:1 mux of w bits is (n - 1) w)

  LogicInventory& operator+=(const LogicInventory& o) {
    adder_bits += o.adder_bits;
    multiplier_bit_products += o.multiplier_bit_products;
    mac_bit_products += o.mac_bit_products;
    round_bits += o.round_bits;
    saturate_bits += o.saturate_bits;
    requant_bits += o.requant_bits;
    shifter_bits += o.shifter_bits;
    flip_flops += o.flip_flops;
    mux_bits += o.mux_bits;
    return *this;
  }
};

inline LogicInventory operator*(double k, LogicInventory v) {
  v.adder_bits *= k;
  v.multiplier_bit_products *= k;
  v.mac_bit_products *= k;
  v.round_bits *= k;
  v.saturate_bits *= k;
  v.requant_bits *= k;
  v.shifter_bits *= k;
  v.flip_flops *= k;
  v.mux_bits *= k;
  return v;
}

}  // namespace normsim::core
