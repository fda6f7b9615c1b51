#include "sim/asic/unit_registry.hpp"

#include <iterator>
#include <stdexcept>
#include <string>

#include "sim/asic/branch_grad_pass.hpp"
#include "sim/asic/chan_merge_tree.hpp"
#include "sim/asic/input_path_unit.hpp"
#include "sim/asic/normalize_unit.hpp"
#include "sim/asic/param_grad_accumulator.hpp"
#include "sim/asic/reread_stream.hpp"
#include "sim/asic/row_mean_unit.hpp"
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
// The memories serve a unit's `dram` and `sram` ports (memory_models.hpp).
constexpr PortDecl kDram{"dram", "dram", In}, kSram{"sram", "sram", In};

Module make_adder_pass(UnitBuild& b) {
  return std::make_unique<SeparateAdderPass>("residual_adder_pass", b.geometry, b.cfg.dram.window_bytes());
}

Module make_input_path(UnitBuild& b) {
  return std::make_unique<InputPathUnit>("input_path", b.geometry, b.row_limit, b.cfg.dram.window_bytes(), b.cfg.rows_in_flight,
                                         b.arith);
}

bool forward(const RunGeometry& g) { return !g.backward; }
bool backward(const RunGeometry& g) { return g.backward; }

// The forward's units and the backward's share their timing skeletons (a
// lane array, an adder tree on the merge units, a fixed pipeline, a replay
// and output path); each is an instance of its own with its own latency key.
Module make_merge_tree(UnitBuild& b) {
  return std::make_unique<ChanMergeTree>(
      "chan_merge_tree", ChanMergeTree::Config{b.merge, b.cfg.chan_merge_tree.level_cycles, b.cfg.datapaths}, b.arith);
}
Module make_row_sum_tree(UnitBuild& b) {
  return std::make_unique<ChanMergeTree>(
      "row_sum_tree", ChanMergeTree::Config{b.merge, b.cfg.row_sum_tree.level_cycles, b.cfg.datapaths}, nullptr);
}

Module make_rsqrt(UnitBuild& b) { return std::make_unique<RsqrtUnit>("rsqrt", b.cfg.rsqrt.latency_cycles, b.arith); }
Module make_row_mean(UnitBuild& b) { return std::make_unique<RowMeanUnit>("row_mean", b.cfg.row_mean.latency_cycles); }

Module make_accumulator(UnitBuild& b) {
  return std::make_unique<ParamGradAccumulator>("param_grad_accumulator",
                                                ParamGradAccumulator::Config::of(b.workload, b.arch, b.cfg));
}

Module make_lanes(UnitBuild& b) {
  return std::make_unique<WelfordLaneArray>("welford_lanes", b.geometry, b.cfg.welford_lanes.latency_cycles, b.arith);
}
Module make_row_sum_lanes(UnitBuild& b) {
  return std::make_unique<WelfordLaneArray>("row_sum_lanes", b.geometry, b.cfg.row_sum_lanes.latency_cycles, nullptr);
}

Module make_normalize(UnitBuild& b) {
  return std::make_unique<NormalizeUnit>(
      "normalize", b.geometry, NormalizeUnit::Config{b.cfg.normalize.latency_cycles, b.cfg.write_stats, b.rows_done_out, b.row_done},
      b.cfg.dram.window_bytes(), b.arith);
}
Module make_dx_unit(UnitBuild& b) {
  return std::make_unique<NormalizeUnit>(
      "dx_unit", b.geometry, NormalizeUnit::Config{b.cfg.dx_unit.latency_cycles, false, b.rows_done_out, b.row_done},
      b.cfg.dram.window_bytes(), nullptr);
}

Module make_reread(UnitBuild& b) {
  return std::make_unique<RereadStream>("reread_stream", b.geometry, b.row_limit);
}

const std::vector<AsicUnitEntry> kUnits = {
    {"residual_adder_pass",
     "the unfused baseline's separate adder: x and r in, z = dropout(x) + r out, over the whole tensor first",
     [](const RunGeometry& g) { return g.fusion == Fusion::separate_adder; }, make_adder_pass,
     {{"done", "adder_done", Out}, kDram}, stats_of<SeparateAdderPass>, no_period, nullptr,
     {Traffic::adder_read, Traffic::adder_write},
     {},
     {},  // another unit's (or a GPU kernel's) cost, not this design's
     {"unit/residual_adder_pass"}},
    // Its last transfers, after the lanes' last row, are its after-rows phase.
    // Built before the units that call it (a transport's far end).
    {"param_grad_accumulator",
     "the backward's dgamma/dbeta: each transaction's columns read, added and written back (on chip or in DRAM), "
     "partials out every partial_rows rows; after the last row read out once, or the partials summed",
     backward, make_accumulator,
     {{"transport", "columns_to_accumulator", In}, {"transport", "input_to_accumulator", In}, kDram, kSram},
     stats_of<ParamGradAccumulator>, period_of<ParamGradAccumulator>, nullptr,
     {Traffic::grad_acc_read, Traffic::grad_acc_write, Traffic::partials, Traffic::partials_read, Traffic::param_grads}, {},
     {"param_grad_lanes"}, {"param_grad_acc"},
     [](sc_core::sc_module* unit, const RunGeometry&, DramModel&, const RowsDone& d) {
       return static_cast<ParamGradAccumulator&>(*unit).finish(d.lanes_cycle);
     }},
    {"input_path",
     "gamma/beta once, then each row's transactions (x, and r when fused; dy and the saved statistics in a backward) into a "
     "free row buffer",
     always, make_input_path,
     {{"free_slots", "free_row_buffers", In}, {"to_lanes", "input_to_lanes", Out}, {"params_on_chip", "params_on_chip", Out},
      {"adder_done", "adder_done", In}, {"param_grads", "input_to_accumulator", Out}, kDram, kSram},
     stats_of<InputPathUnit>, period_of<InputPathUnit>, rows_issued_of<InputPathUnit>,
     {Traffic::params, Traffic::input, Traffic::residual, Traffic::grad, Traffic::saved_stats}, {},
     {"residual_adder", "dropout_mask_generator"},  // a fused unit's adder sits on the input path, in front of the lanes
     {"unit/input_path", "unit/handover_grants", "residual_add", "philox_mask"}},
    {"chan_merge_tree", "log2 L levels of Chan merges (adders for sums), dedicated or on shared merge units", forward,
     make_merge_tree, {{"transport", "row_to_merge", In}}, stats_of<ChanMergeTree>, period_of<ChanMergeTree>, nullptr, {},
     {Stage::sum, Stage::sumsq, Stage::mean, Stage::m2, Stage::variance},
     {"chan_merge_tree", "adder_tree", "merge_tree_registers", "merge_sequencer"}, {"unit/welford_lanes", "chan_merge", "chan_merge_seq", "fx_add"}},
    {"row_sum_tree", "the backward's S1 and S2 summed over the lanes: log2 L adder levels on the merge units", backward,
     make_row_sum_tree, {{"transport", "row_to_row_sum", In}}, stats_of<ChanMergeTree>, period_of<ChanMergeTree>, nullptr, {},
     {}, {"row_sum_tree", "row_sum_tree_registers"}, {"row_sum_node"}},
    // Its arithmetic is the arch's rsqrt.unit (sim/core/rsqrt_kind.hpp): the same pipeline to time.
    {"rsqrt", "variance + eps -> rstd, pipelined: normalise, a table seed, then the refinement of the unit arch.rsqrt.unit names", forward,
     make_rsqrt, {{"transport", "row_to_rsqrt", In}}, no_stats, no_period, nullptr, {}, {Stage::rsqrt_in, Stage::rsqrt_out},
     {"variance_scale", "rsqrt_unit"}, {"unit/welford_lanes", "rsqrt_operand", "rsqrt_newton", "rsqrt_lut_step", "rsqrt_scale"}, nullptr,
     "rsqrt"},
    {"row_mean", "the backward's S1/C and S2/C: a shift, or a multiply by the table's 1/C", backward, make_row_mean,
     {{"transport", "row_to_row_mean", In}}, no_stats, no_period, nullptr, {}, {}, {"row_mean_unit"}, {"row_mean"}},
    {"welford_lanes",
     "L Welford lanes, an element a lane a cycle; the kept part into the row buffer, a fused unit's z to DRAM", forward,
     make_lanes,
     {{"from_input", "input_to_lanes", In}, {"to_output", "stats_to_normalize", Out}, {"sum_in_dram", "sum_in_dram", Out},
      {"adder_done", "adder_done", In}, {"reduce", "row_to_merge", Out}, {"finish", "row_to_rsqrt", Out}, kDram, kSram},
     stats_of<WelfordLaneArray>, period_of<WelfordLaneArray>, nullptr, {Traffic::sum},
     {Stage::input, Stage::sum, Stage::sumsq, Stage::mean, Stage::m2, Stage::recip},
     {"welford_lanes", "sum_lanes", "square_sum_lanes"}, {"unit/welford_lanes", "welford_lane", "welford_update", "sumsq_lane"}},
    {"row_sum_lanes",
     "L row-sum lanes (S1 += dy gamma, S2 += dy gamma x_hat), an element a lane a cycle; x and dy's kept part into the row "
     "buffer, each transaction's columns to the gradient accumulator",
     backward, make_row_sum_lanes,
     {{"from_input", "input_to_lanes", In}, {"to_output", "means_to_dx", Out}, {"sum_in_dram", "sum_in_dram", Out},
      {"adder_done", "adder_done", In}, {"reduce", "row_to_row_sum", Out}, {"finish", "row_to_row_mean", Out},
      {"param_grads", "columns_to_accumulator", Out}, kDram, kSram},
     stats_of<WelfordLaneArray>, period_of<WelfordLaneArray>, nullptr, {}, {}, {"row_sum_lanes"}, {"row_sum_lane", "backward_operands"}},
    {"normalize", "the row back from the row buffer and the re-read FIFO, L outputs a cycle, written through a write buffer",
     forward, make_normalize,
     {{"from_stats", "stats_to_normalize", In}, {"free_slots", "free_row_buffers", Out}, {"reread", "reread_fifo", In},
      {"params_on_chip", "params_on_chip", In}, kDram, kSram},
     stats_of<NormalizeUnit>, period_of<NormalizeUnit>, nullptr, {Traffic::output, Traffic::stats},
     {Stage::xhat, Stage::gamma, Stage::beta, Stage::output}, {"normalize_affine"}, {"unit/normalize", "normalize_affine"}},
    // A Post-Norm backward's branch gradient leaves beside dx when fused.
    {"dx_unit",
     "the backward's dx = rstd (g - S1/C - x_hat S2/C): x and dy back from the row buffer and the re-read FIFO, L a cycle, "
     "written through a write buffer",
     backward, make_dx_unit,
     {{"from_stats", "means_to_dx", In}, {"free_slots", "free_row_buffers", Out}, {"reread", "reread_fifo", In},
      {"params_on_chip", "params_on_chip", In}, kDram, kSram},
     stats_of<NormalizeUnit>, period_of<NormalizeUnit>, nullptr, {Traffic::output, Traffic::branch_grad}, {},
     {"dx_lanes", "branch_grad_scaler"}, {"dx_unit", "backward_operands"}},
    {"reread_stream", "the part of each row not kept, re-read from DRAM in row order into the re-read FIFO",
     [](const RunGeometry& g) { return g.rereads(); }, make_reread,
     {{"to_output", "reread_fifo", Out}, {"sum_in_dram", "sum_in_dram", In}, kDram}, no_stats, period_of<RereadStream>,
     rows_issued_of<RereadStream>, {Traffic::input_reread, Traffic::grad_reread}, {},
     {},  // an address generator: its FIFO is SRAM, costed with it
     {"unit/reread_stream", "unit/handover_grants"}},
    // Its writes are the branch gradient (Traffic::branch_grad), the dx
    // unit's kind when the unit writes it fused.
    {"branch_grad_pass",
     "an unfused Post-Norm backward with dropout: dz read back after the last output, dz * mask / (1 - p) written",
     [](const RunGeometry& g) { return g.backward && g.branch_pass_bytes > 0; }, nullptr, {}, no_stats, no_period, nullptr,
     {Traffic::branch_pass_read}, {}, {}, {},
     [](sc_core::sc_module*, const RunGeometry& g, DramModel& dram, const RowsDone& d) {
       return finish_branch_pass(g, dram, d.output_cycle);
     }},
};
}  // namespace

// What frees a resource acts before what takes it, so that a hand-back is
// seen in the cycle it is made: the separate adder's pass precedes every
// row; the normalise (or dx) unit hands row buffers back to the input path
// and frees re-read FIFO slots; the input path hands transactions to the
// lanes, which call the accumulator. The other hand-overs -- the lanes'
// statistics and the re-read stream's entries to the normalise unit -- are
// seen at the next edge: they cost a cycle only where that unit waits on
// them (tests/test_fast_forward.cpp prints the largest difference to
// fluid timing).
constexpr std::string_view kCycleOrder[] = {"residual_adder_pass", "normalize",     "dx_unit",       "input_path",
                                            "param_grad_accumulator", "welford_lanes", "row_sum_lanes", "reread_stream"};

int cycle_slot(std::string_view unit) {
  for (size_t i = 0; i < std::size(kCycleOrder); ++i)
    if (kCycleOrder[i] == unit) return static_cast<int>(i);
  throw std::logic_error("unit_registry: clocked unit " + std::string(unit) + " has no slot in the cycle order");
}

std::span<const AsicUnitEntry> asic_units() { return kUnits; }

}  // namespace normsim::asic
