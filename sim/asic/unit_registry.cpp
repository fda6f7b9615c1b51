#include "sim/asic/unit_registry.hpp"

#include "sim/asic/branch_grad_pass.hpp"
#include "sim/asic/chan_merge_tree.hpp"
#include "sim/asic/input_path_unit.hpp"
#include "sim/asic/normalize_unit.hpp"
#include "sim/asic/param_grad_pass.hpp"
#include "sim/asic/reread_stream.hpp"
#include "sim/asic/rsqrt_unit.hpp"
#include "sim/asic/separate_adder_pass.hpp"
#include "sim/asic/welford_lane_array.hpp"

namespace normsim::asic {

namespace {
using core::Stage;
using Module = std::unique_ptr<sc_core::sc_module>;

bool always(const RunGeometry&) { return true; }
const core::StatGroup* no_stats(const sc_core::sc_module&) { return nullptr; }
template <class Unit>
const core::StatGroup* stats_of(const sc_core::sc_module& m) {
  return &static_cast<const Unit&>(m).stats();
}
template <class Unit>
void period_of(const sc_core::sc_module& m, PeriodState& s) {
  static_cast<const Unit&>(m).period_state(s);
}
void no_period(const sc_core::sc_module&, PeriodState&) {}
template <class Unit>
int64_t rows_issued_of(const sc_core::sc_module& m) {
  return static_cast<const Unit&>(m).rows_issued();
}
constexpr PortDir In = PortDir::in, Out = PortDir::out;

Module make_adder_pass(UnitBuild& b) {
  return std::make_unique<SeparateAdderPass>("residual_adder_pass", b.geometry, b.dram);
}

Module make_input_path(UnitBuild& b) {
  return std::make_unique<InputPathUnit>("input_path", b.geometry, b.row_limit, b.dram, b.sram, b.arith);
}

Module make_merge_tree(UnitBuild& b) {
  auto u = std::make_unique<ChanMergeTree>(
      "chan_merge_tree",
      ChanMergeTree::Config{b.merge, b.cfg.pass_latencies(b.geometry.backward).merge_level_cycles, b.cfg.datapaths}, b.arith);
  return u;
}

Module make_rsqrt(UnitBuild& b) {
  auto u = std::make_unique<RsqrtUnit>("rsqrt", b.cfg.pass_latencies(b.geometry.backward).rsqrt_cycles, b.arith);
  return u;
}

Module make_lanes(UnitBuild& b) {
  return std::make_unique<WelfordLaneArray>("welford_lanes", b.geometry, b.cfg.pass_latencies(b.geometry.backward).welford_cycles, b.dram, b.sram,
                                            b.arith);
}

Module make_normalize(UnitBuild& b) {
  return std::make_unique<NormalizeUnit>(
      "normalize", b.geometry, NormalizeUnit::Config{b.cfg.pass_latencies(b.geometry.backward).normalize_cycles, b.cfg.write_stats, b.rows_done_out, b.row_done},
      b.dram, b.sram, b.arith);
}

Module make_reread(UnitBuild& b) {
  return std::make_unique<RereadStream>("reread_stream", b.geometry, b.row_limit, b.dram);
}

const std::vector<AsicUnitEntry> kUnits = {
    {"residual_adder_pass",
     "the unfused baseline's separate adder: x and r in, z = dropout(x) + r out, over the whole tensor first",
     [](const RunGeometry& g) { return g.fusion == Fusion::separate_adder; }, make_adder_pass,
     {{"done", "adder_done", Out}}, stats_of<SeparateAdderPass>, no_period, nullptr,
     {Traffic::adder_read, Traffic::adder_write},
     {},
     {}},  // another unit's (or a GPU kernel's) cost, not this design's
    {"input_path",
     "gamma/beta once, then each row's transactions (x, and r when fused; dy and the saved statistics in a backward) into a "
     "free row buffer",
     always, make_input_path,
     {{"free_slots", "free_row_buffers", In}, {"to_lanes", "input_to_lanes", Out}, {"params_on_chip", "params_on_chip", Out},
      {"adder_done", "adder_done", In}},
     no_stats, period_of<InputPathUnit>, rows_issued_of<InputPathUnit>,
     {Traffic::params, Traffic::input, Traffic::residual, Traffic::grad, Traffic::saved_stats, Traffic::grad_acc_read}, {},
     {"residual_adder", "dropout_mask_generator"}},  // a fused unit's adder sits on the input path, in front of the lanes
    {"chan_merge_tree", "log2 L levels of Chan merges (adders for sums), dedicated or on shared merge units", always,
     make_merge_tree, {{"transport", "row_to_merge", In}}, stats_of<ChanMergeTree>, period_of<ChanMergeTree>, nullptr, {}, {Stage::sum, Stage::sumsq, Stage::mean, Stage::m2, Stage::variance},
     {"chan_merge_tree", "adder_tree", "merge_tree_registers", "merge_sequencer"}},
    {"rsqrt", "variance + eps -> rstd: leading-zero normalise, table seed, Newton steps", always, make_rsqrt, {{"transport", "row_to_rsqrt", In}}, no_stats, no_period, nullptr, {},
     {Stage::rsqrt_in, Stage::rsqrt_out},
     {"variance_scale", "rsqrt_unit"}},
    // A backward's lanes also keep dgamma/dbeta; their last transfers after
    // the last row are the param_grad_pass's.
    {"welford_lanes",
     "L lanes, an element a lane a cycle; the kept part into the row buffer, a fused unit's z to DRAM, a backward's "
     "dgamma/dbeta accumulated",
     always, make_lanes,
     {{"from_input", "input_to_lanes", In}, {"to_normalize", "stats_to_normalize", Out}, {"sum_in_dram", "sum_in_dram", Out},
      {"adder_done", "adder_done", In}, {"merge", "row_to_merge", Out}, {"rsqrt", "row_to_rsqrt", Out}},
     stats_of<WelfordLaneArray>, period_of<WelfordLaneArray>, nullptr,
     {Traffic::sum, Traffic::grad_acc_write, Traffic::partials},
     {Stage::input, Stage::sum, Stage::sumsq, Stage::mean, Stage::m2, Stage::recip},
     {"welford_lanes", "sum_lanes", "square_sum_lanes"}},
    {"normalize", "the row back from the row buffer and the re-read FIFO, L outputs a cycle, written through a write buffer",
     always, make_normalize,
     {{"from_rsqrt", "stats_to_normalize", In}, {"free_slots", "free_row_buffers", Out}, {"reread", "reread_fifo", In},
      {"params_on_chip", "params_on_chip", In}},
     stats_of<NormalizeUnit>, period_of<NormalizeUnit>, nullptr, {Traffic::output, Traffic::stats, Traffic::branch_grad},
     {Stage::xhat, Stage::gamma, Stage::beta, Stage::output},
     {"normalize_affine", "branch_grad_scaler"}},  // a Post-Norm backward's branch gradient leaves beside dz
    {"reread_stream", "the part of each row not kept, re-read from DRAM in row order into the re-read FIFO",
     [](const RunGeometry& g) { return g.rereads(); }, make_reread,
     {{"to_normalize", "reread_fifo", Out}, {"sum_in_dram", "sum_in_dram", In}}, no_stats, period_of<RereadStream>,
     rows_issued_of<RereadStream>, {Traffic::input_reread, Traffic::grad_reread}, {},
     {}},  // an address generator: its FIFO is SRAM, costed with it
    // After the rows (docs/ASIC.md, "Backward"): no process of their own.
    {"param_grad_pass",
     "dgamma/dbeta after the lanes' last row: the accumulator read out and written once, or the partials read back and "
     "summed",
     [](const RunGeometry& g) { return g.backward; }, nullptr, {}, no_stats, no_period, nullptr,
     {Traffic::partials_read, Traffic::param_grads}, {}, {},
     [](const RunGeometry& g, DramModel& dram, SramModel& sram, const RowsDone& d) {
       return finish_param_grads(g, dram, sram, d.lanes_cycle);
     }},
    // Its writes are the branch gradient (Traffic::branch_grad), the
    // normalise unit's kind when the unit writes it fused.
    {"branch_grad_pass",
     "an unfused Post-Norm backward with dropout: dz read back after the last output, dz * mask / (1 - p) written",
     [](const RunGeometry& g) { return g.backward && g.branch_pass_bytes > 0; }, nullptr, {}, no_stats, no_period, nullptr,
     {Traffic::branch_pass_read}, {}, {},
     [](const RunGeometry& g, DramModel& dram, SramModel&, const RowsDone& d) {
       return finish_branch_pass(g, dram, d.output_cycle);
     }},
};
}  // namespace

std::span<const AsicUnitEntry> asic_units() { return kUnits; }

}  // namespace normsim::asic
