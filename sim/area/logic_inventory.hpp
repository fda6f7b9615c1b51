// The operators of each fixed-point RTL unit (rtl_models/) at an arch's
// formats, with the widths the Verilog derives from them: adder and
// subtractor bits, multiplier bit-products, requantiser input bits (round
// increment, range compare, saturation mux), barrel-shifter bits and
// flip-flops. sim/area turns an inventory into gate equivalents with per-
// operator costs fitted to yosys synthesis (docs/AREA.md).
#pragma once

#include "sim/core/fixed_stage.hpp"
#include "sim/core/fixed_units.hpp"
#include "sim/core/logic_inventory.hpp"
#include "sim/core/norm_backward.hpp"

namespace normsim::area {

using core::LogicInventory;

/// Bits of a counter that reaches `max_count` (the lanes' and the merge's counts).
int count_bits(int64_t max_count);

/// One Welford lane: welford_update plus its count, mean and M2 registers.
LogicInventory welford_lane_inventory(const core::StageFormats& f, int count_bits);
/// One Chan merge node (combinational; equal-count shift path and general path).
LogicInventory chan_merge_inventory(const core::StageFormats& f, int count_bits);
/// A q(a + b) adder-tree node of `bits` (sum / square-sum paths).
LogicInventory adder_node_inventory(int bits);
/// The registers of a dedicated, pipelined merge tree: the L captured lane
/// states and each node's result through its level's `level_cycles` stages,
/// `state_bits` each (rtl_models/norm_row_pipeline.v's live registers).
LogicInventory merge_tree_register_inventory(int lanes, int level_cycles, int state_bits);
/// A shared-merge sequencer (rtl_models/chan_merge_seq.v) without its merge
/// units: the L-entry state buffer, the results' delay line, the operand,
/// coefficient and write-back multiplexers and the control.
/// `coef_bits` 0: no coefficients (adder nodes).
LogicInventory merge_sequencer_inventory(int lanes, int units, int level_cycles, int state_bits, int coef_bits);
/// The pipelined RSQRT unit (its seed table is costed as table bits).
LogicInventory rsqrt_inventory(const core::StageFormats& f, const core::RsqrtConfig& r);
/// The multiplier bit products of the RSQRT unit's deepest stage (what its
/// logic depth follows): a Newton step's, or the linear seed's multiply-add
/// where there is no step.
double rsqrt_stage_bit_products(const core::StageFormats& f, const core::RsqrtConfig& r);
/// One normalise/affine lane.
LogicInventory normalize_inventory(const core::StageFormats& f);
/// One lane of a fused unit's residual adder at its format (rtl_models/
/// residual_add.v): q(x + r), or with dropout q((keep ? x s : 0) + r).
LogicInventory residual_add_inventory(const core::FixedFormat& f, bool dropout);

// The backward's units at a fixed-point backward's formats, each the
// operators of its Verilog at the widths it derives (rtl_models/).
/// One row-sum lane (row_sum_lane.v): x_hat and g, S1 and S2 and their registers.
LogicInventory row_sum_lane_inventory(const core::BackwardConfig& b);
/// One column's dgamma / dbeta read-modify-write (param_grad_acc.v).
LogicInventory param_grad_inventory(const core::BackwardConfig& b);
/// One node of the S1 / S2 adder tree (row_sum_node.v).
LogicInventory row_sum_node_inventory(const core::BackwardConfig& b);
/// S1 / C and S2 / C (row_mean.v): a multiplier by 1/C, or wiring where C is a power of two.
LogicInventory row_mean_inventory(const core::BackwardConfig& b);
/// One dx lane (dx_unit.v): x_hat and g recomputed, the bracket and its product with rstd.
LogicInventory dx_lane_inventory(const core::BackwardConfig& b);

}  // namespace normsim::area
