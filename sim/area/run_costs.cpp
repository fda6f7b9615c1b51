#include "sim/area/run_costs.hpp"

#include <cstdio>

namespace normsim::area {

RunCosts run_costs(const core::DatapathConfig& dp, const config::AsicConfig& c, const RunActivity& run,
                   const core::BackwardConfig* backward) {
  RunCosts rc;
  rc.sram_at_capacity = c.sram.area_at_capacity;
  rc.sram_required_bytes = run.sram_required_bytes;
  const double costed = rc.sram_at_capacity ? static_cast<double>(c.sram.capacity_bytes) : run.sram_required_bytes;
  rc.area = estimate_area(dp, {costed, c.sram.banks, c.sram.ports}, c.node, c.tree_level_cycles(backward != nullptr),
                          backward);
  add_timing_registers(rc.area, c.timing_flip_flops, c.node);
  // This unit's share of a fused residual workload: its adder and mask generator.
  for (const char* fused : {"residual_adder", "branch_grad_scaler", "dropout_mask_generator"})
    for (const UnitArea& u : rc.area.units)
      if (u.unit == fused) {
        rc.fusion_um2 += u.um2;
        break;
      }
  ActivityCounts& act = rc.activity;
  act.dram_bytes = static_cast<double>(run.dram_bytes_read + run.dram_bytes_written);
  act.dram_pj_per_bit = c.dram.pj_per_bit();
  act.sram_read_bytes = static_cast<double>(run.sram_bytes_read);
  act.sram_write_bytes = static_cast<double>(run.sram_bytes_written);
  // An access reads or writes one bank of the SRAM the area counts.
  act.sram_bank_bytes = costed / c.sram.banks;
  act.elements = static_cast<double>(run.elements);
  act.rows = static_cast<double>(run.rows);
  if (run.residual) {
    act.residual_sums = act.elements;
    if (run.dropout) act.masked_elements = act.elements;
  }
  if (run.branch_grad) {
    act.residual_sums += act.elements;
    act.masked_elements += act.elements;
  }
  act.flip_flops = rc.area.flip_flops();
  act.cycles = run.cycles;
  act.node = c.node;
  act.supply_v = c.supply_v;
  rc.energy = estimate_energy(dp, act, backward);
  rc.leakage_mw_per_mm2 = c.leakage_mw_per_mm2.value_or(node_table(c.node)->leakage_mw_per_mm2);
  rc.leakage_mw = leakage_mw(rc.area.cell_um2, rc.leakage_mw_per_mm2);
  rc.energy.leakage_pj = rc.leakage_mw * 1e-3 * run.seconds * 1e12;
  char basis[520];
  std::snprintf(basis, sizeof basis,
                "arithmetic and SRAM: Horowitz 2014 (45 nm, 0.9 V) x %.4g for %s at %.2f V (Stillmaker & Baas 2017); SRAM per "
                "access to a %.0f-byte bank; registers %.4g pJ a flip-flop a cycle (Aladdin, 40 nm) x the same, %.0f "
                "flip-flops; DRAM %s, %.3g pJ/bit; leakage %.3g mW/mm2 of cells (%s)",
                rc.energy.node_factor, c.node.c_str(), c.supply_v, act.sram_bank_bytes, kPjPerFlipFlopCycle, act.flip_flops,
                c.dram.energy_pj_per_bit ? "as given" : std::string(config::to_string(c.dram.interface)).c_str(),
                act.dram_pj_per_bit, rc.leakage_mw_per_mm2, c.leakage_mw_per_mm2 ? "as given" : "the node's");
  rc.energy_basis = basis;
  return rc;
}

}  // namespace normsim::area
