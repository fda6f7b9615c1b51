#include "sim/report/area_report.hpp"

#include "sim/report/text_format.hpp"

namespace normsim::report {

namespace {
const rtl::DatapathUnitSynthesis* synth_of(const std::vector<rtl::DatapathUnitSynthesis>& syn, const std::string& unit) {
  for (const auto& u : syn)
    if (u.area_unit == unit) return &u;
  return nullptr;
}
}  // namespace

nlohmann::json area_report_json(const std::string& arch_name, const std::string& workload_name, const area::AreaReport& ar,
                                const SramCost& sram, const std::vector<rtl::DatapathUnitSynthesis>& syn) {
  const area::NodeTable nt = *area::node_table(ar.node);
  const double um2_per_ge = nt.nand2_um2 / area::kUtilisation;
  nlohmann::json units = nlohmann::json::array();
  for (const auto& u : ar.units) {
    nlohmann::json j = {{"unit", u.unit}, {"instances", u.instances}, {"analytic_ge", u.ge}, {"table_bits", u.table_bits},
                        {"analytic_um2", u.um2}};
    if (const auto& v = u.per_instance)
      j["operators_per_instance"] = {{"adder_bits", v->adder_bits}, {"multiplier_bit_products", v->multiplier_bit_products},
                                     {"mac_bit_products", v->mac_bit_products},
                                     {"round_bits", v->round_bits}, {"saturate_bits", v->saturate_bits},
                                     {"requant_bits", v->requant_bits}, {"shifter_bits", v->shifter_bits},
                                     {"flip_flops", v->flip_flops}, {"mux_bits", v->mux_bits}};
    if (const auto* s = synth_of(syn, u.unit)) {
      nlohmann::json cells = s->one.cells;
      j["synth"] = {{"instances", s->instances}, {"ge_per_instance", s->one.ge}, {"ge", s->ge()},
                    {"logic_um2", s->ge() * um2_per_ge}, {"flip_flops_per_instance", s->one.flip_flops},
                    {"cells_per_instance", cells}, {"yosys_seconds", s->one.seconds},
                    {"cmos_transistors_per_instance", s->one.cmos_transistors}, {"logic_levels", s->one.logic_levels},
                    {"model_logic_levels", s->model_logic_levels},
                    {"analytic_over_synth", u.ge / s->ge()}};
    }
    units.push_back(j);
  }
  return {{"arch", arch_name}, {"workload", workload_name}, {"node", ar.node},
                            {"nand2_um2", nt.nand2_um2}, {"utilisation", area::kUtilisation},
                            {"units", units}, {"datapath_um2", ar.datapath_um2}, {"sram_bytes", ar.sram_bytes},
                            {"sram_costed", sram.costed()}, {"sram_path", sram.path},
                            {"sram_required_bytes", sram.required_bytes}, {"sram_capacity_bytes", sram.configured_bytes},
                            {"sram_banks", sram.banks}, {"sram_ports", sram.ports},
                            {"sram_um2", ar.sram_um2}, {"total_mm2", ar.total_mm2()}};
}

std::string area_report_text(const std::string& arch_name, const std::string& workload_name, int64_t hidden,
                             const area::AreaReport& ar, const SramCost& sram, const std::vector<rtl::DatapathUnitSynthesis>& syn,
                             bool synthesised, bool yosys_found) {
  const area::NodeTable nt = *area::node_table(ar.node);
  const double um2_per_ge = nt.nand2_um2 / area::kUtilisation;
  std::string out;
  out += strprintf("normsim area: arch %s, workload %s (hidden %lld), %s: NAND2 %.4f um^2, utilisation %.2f\n\n",
              arch_name.c_str(), workload_name.c_str(), static_cast<long long>(hidden), ar.node.c_str(),
              nt.nand2_um2, area::kUtilisation);
  out += strprintf("  %-22s %14s %12s %14s", "unit", "analytic_GE", "table_bits", "analytic_um2");
  if (synthesised) out += strprintf(" %10s %14s %14s %10s", "instances", "synth_GE", "synth_um2", "ratio");
  out += strprintf("\n");
  for (const auto& u : ar.units) {
    out += strprintf("  %-22s %14.0f %12.0f %14.1f", u.unit.c_str(), u.ge, u.table_bits, u.um2);
    if (const auto* s = synth_of(syn, u.unit))
      out += strprintf(" %10d %14.0f %14.1f %9.2fx", s->instances, s->ge(), s->ge() * um2_per_ge, u.ge / s->ge());
    else if (synthesised)
      out += strprintf(" %10s %14s %14s %10s", "-", "(no RTL)", "-", "-");
    out += strprintf("\n");
  }
  out += strprintf("\n  datapath              %14.1f um^2 (analytic, logic and tables)\n", ar.datapath_um2);
  if (sram.path.empty())
    out += strprintf("  SRAM                  %14.1f um^2 (no timing model: none)\n", ar.sram_um2);
  else if (sram.costing == SramCosting::required)
    out += strprintf("  SRAM                  %14.1f um^2 (%.0f bytes: what %s needs, as run costs it; configured %.0f, --sram configured)\n",
                     ar.sram_um2, ar.sram_bytes, sram.path.c_str(), sram.configured_bytes);
  else
    out += strprintf("  SRAM                  %14.1f um^2 (%.0f bytes: asic.sram.capacity_bytes as configured; %s needs %.0f)\n",
                     ar.sram_um2, ar.sram_bytes, sram.path.c_str(), sram.required_bytes);
  if (!sram.path.empty())
    out += strprintf("  %-22s %d macros of %.0f bytes, %d port%s each\n", "", sram.banks, ar.sram_bytes / sram.banks, sram.ports,
                     sram.ports == 1 ? "" : "s");
  out += strprintf("  total                 %14.4f mm^2\n", ar.total_mm2());
  if (!synthesised)
    out += strprintf("\n  %s\n", yosys_found ? "yosys is installed: --synth adds each unit's synthesis beside the model"
                                               : "--synth needs yosys (tools/bootstrap.sh installs it)");
  if (synthesised)
    out += strprintf("\n  synth: yosys synth + abc -fast onto NOT/NAND/NOR/AND/OR/XOR/XNOR/MUX, GE = CMOS transistors / 4,\n"
                "  flip-flops %.1f GE; ROMs black-boxed (costed as table bits); ratio = analytic / synth GE\n",
                area::kGePerFlipFlop);
  return out;
}

}  // namespace normsim::report
