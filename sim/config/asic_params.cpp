#include "sim/config/asic_params.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "sim/config/l2_reuse_keys.hpp"

namespace normsim::config {

std::string_view to_string(InputPath p) { return kInputPaths.name(p); }

std::optional<InputPath> parse_input_path(std::string_view s) { return kInputPaths.parse(s); }

namespace {
struct InterfaceRow {
  DramInterface id;
  const char* name;
  double pj_per_bit;  // sources: sim/area/SOURCES.md
};
constexpr InterfaceRow kInterfaces[] = {
    {DramInterface::hbm2, "hbm2", 3.9},     {DramInterface::hbm2e, "hbm2e", 6.0},   {DramInterface::hbm3e, "hbm3e", 3.9},
    {DramInterface::gddr5, "gddr5", 14.0},  {DramInterface::gddr6, "gddr6", 7.5},   {DramInterface::gddr6x, "gddr6x", 7.25},
    {DramInterface::lpddr4, "lpddr4", 8.0}, {DramInterface::ddr3, "ddr3", 70.0},
};
}  // namespace

std::string_view to_string(DramInterface i) {
  for (const auto& r : kInterfaces)
    if (r.id == i) return r.name;
  return "?";
}

std::optional<DramInterface> parse_dram_interface(std::string_view s) {
  for (const auto& r : kInterfaces)
    if (s == r.name) return r.id;
  return std::nullopt;
}

double dram_interface_pj_per_bit(DramInterface i) {
  for (const auto& r : kInterfaces)
    if (r.id == i) return r.pj_per_bit;
  return 0;
}

DramPort DramConfig::port(double clock_ghz) const {
  const core::Hertz clock = core::ghz(clock_ghz);
  DramPort p;
  p.peak_bytes_per_cycle = core::per_cycle(peak_bytes_per_s, clock);
  p.latency_cycles = core::cycles_at(latency_ns, clock);
  p.sustained_bytes_per_cycle =
      std::min(p.peak_bytes_per_cycle,
               core::BytesPerCycle(static_cast<double>(max_outstanding) * burst_bytes / p.latency_cycles.value()));
  return p;
}

namespace {

constexpr int64_t kMaxBytes = INT64_MAX;

std::shared_ptr<const ParamTable<DramConfig>> dram_params() {
  auto t = std::make_shared<ParamTable<DramConfig>>();
  t->add(quantity_param<DramConfig>("peak_bytes_per_s", NORMSIM_MEMBER(peak_bytes_per_s), positive(),
                                    "peak bandwidth, reads and writes together (per cycle: over asic.clock_ghz)"));
  t->add(quantity_param<DramConfig>("latency_ns", NORMSIM_MEMBER(latency_ns), in_range(0.001, 1e6),
                                    "request to first byte (in cycles: x asic.clock_ghz, rounded, at least 1)"));
  t->add(integer_param<DramConfig>("max_outstanding", NORMSIM_MEMBER(max_outstanding), 1, 1 << 20, "bursts",
                                   "bursts in flight; sustained = min(peak, outstanding x burst / latency)"));
  t->add(integer_param<DramConfig>("burst_bytes", NORMSIM_MEMBER(burst_bytes), 1, 1 << 20, "bytes", "burst size"));
  t->add(integer_param<DramConfig>("capacity_bytes", NORMSIM_MEMBER(capacity_bytes), 1, kMaxBytes, "bytes",
                                   "a workload (x, y, params, stats) larger than this is refused", "int >= 1"));
  std::vector<std::string> names;
  for (const auto& r : kInterfaces) names.push_back(r.name);
  t->add(choice_param<DramConfig>("interface", NORMSIM_MEMBER(interface), names,
                                  [](const std::string& v) { return parse_dram_interface(v); },
                                  [](DramInterface i) { return to_string(i); },
                                  "the DRAM's interface: its access energy (sim/area/SOURCES.md)"));
  Param<DramConfig> energy;
  energy.key = "energy_pj_per_bit";
  energy.keys = {"energy_pj_per_bit"};
  energy.unit = "pJ/bit";
  // Interfaces span about 1-30 pJ/bit (sim/area/SOURCES.md); 1000 leaves room for any study and keeps energies finite.
  energy.doc = {{"energy_pj_per_bit", "[0, 1000]", "the interface's", "pJ/bit", "access energy, when not the interface's"}};
  energy.read = [](YamlReader& m, DramConfig& d) {
    if (auto v = m.get_double("energy_pj_per_bit")) d.energy_pj_per_bit = *v;
  };
  energy.check = [](const DramConfig& d) -> std::optional<ParamError> {
    if (auto e = in_range(0, 1000).check(d.pj_per_bit())) return ParamError{"", *e};
    return std::nullopt;
  };
  energy.echo = [](const DramConfig& d) { return json_value(d.pj_per_bit()); };
  t->add(std::move(energy));
  return t;
}

std::shared_ptr<const ParamTable<SramConfig>> sram_params() {
  auto t = std::make_shared<ParamTable<SramConfig>>();
  t->add(integer_param<SramConfig>("capacity_bytes", NORMSIM_MEMBER(capacity_bytes), 1, kMaxBytes, "bytes",
                                   "must hold the parameters and `rows_in_flight` rows' kept part", "int >= 1"));
  t->add(choice_param<SramConfig>(
      "area", NORMSIM_MEMBER(area_at_capacity), {"required", "capacity"},
      [](const std::string& v) { return std::optional<bool>(v == "capacity"); },
      [](bool at_capacity) { return at_capacity ? "capacity" : "required"; },
      "the SRAM area and its report count: the bytes the input path needs, or capacity_bytes (a capacity sweep)"));
  t->add(integer_param<SramConfig>("banks", NORMSIM_MEMBER(banks), 1, 4096, "banks", "banks x access bytes per cycle per port"));
  t->add(integer_param<SramConfig>("ports", NORMSIM_MEMBER(ports), 1, 2, "ports per bank",
                                   "1: reads and writes share each bank; 2: separate"));
  t->add(integer_param<SramConfig>("access_bytes", NORMSIM_MEMBER(access_bytes), 1, 4096, "bytes", "bytes a bank port moves a cycle"));
  t->add(integer_param<SramConfig>("latency_cycles", NORMSIM_MEMBER(latency_cycles), 1, 1000, "cycles",
                                   "access latency (raised where a bank's read takes longer at the clock: asic.past_fmax)"));
  return t;
}

// A unit's section: its one latency key (latency_cycles or level_cycles).
template <class P>
std::shared_ptr<const ParamTable<P>> cycles_params(const char* key, int P::*member, const char* description) {
  auto t = std::make_shared<ParamTable<P>>();
  t->add(integer_param<P>(key, [member](auto& p) -> auto& { return p.*member; }, 1, 10000, "cycles", description));
  return t;
}

std::shared_ptr<const ParamTable<ParamGradAccumulatorParams>> param_grad_accumulator_params() {
  auto t = std::make_shared<ParamTable<ParamGradAccumulatorParams>>();
  t->add(choice_param<ParamGradAccumulatorParams>(
      "path", NORMSIM_MEMBER(path), kParamGradPaths.list(), [](const std::string& v) { return kParamGradPaths.parse(v); },
      [](ParamGradPath p) { return kParamGradPaths.name(p); },
      "dgamma/dbeta: a C-wide accumulator on chip, partials to DRAM every partial_rows rows and a second pass, or a "
      "read-modify-write of DRAM every row"));
  t->add(integer_param<ParamGradAccumulatorParams>("partial_rows", NORMSIM_MEMBER(partial_rows), 1, int64_t(1) << 32, "rows",
                                                   "partials: rows the accumulator sums before it writes them as one partial"));
  return t;
}

std::shared_ptr<const ParamTable<BackwardAsicConfig>> backward_params() {
  auto t = std::make_shared<ParamTable<BackwardAsicConfig>>();
  t->add(choice_param<BackwardAsicConfig>("xhat", NORMSIM_MEMBER(xhat), kXhatSources.list(),
                                          [](const std::string& v) { return kXhatSources.parse(v); },
                                          [](XhatSource x) { return kXhatSources.name(x); },
                                          "x_hat recomputed from x and the saved mean and rstd, or read as the forward stored it"));
  return t;
}

std::shared_ptr<const ParamTable<L2Config>> l2_params() {
  auto t = std::make_shared<ParamTable<L2Config>>();
  Param<L2Config> cap = quantity_param<L2Config>("capacity_bytes", NORMSIM_MEMBER(capacity_bytes), 1, int64_t(1) << 40,
                                                 "an L2 in front of the DRAM (write-back; recounts DRAM bytes, docs/ASIC.md)",
                                                "int 1..2^40");
  cap.doc[0].default_value = "none";
  cap.check_when_given_only = true;  // 0: no L2
  t->add(std::move(cap));
  t->add(integer_param<L2Config>("line_bytes", NORMSIM_MEMBER(line_bytes), 1, 4096, "bytes", "line size"));
  t->add(choice_param<L2Config>(
      "replacement", NORMSIM_MEMBER(replacement), {"lru", "measured"},
      [](const std::string& v) { return std::optional(v == "lru" ? L2Replacement::lru : L2Replacement::measured); },
      [](L2Replacement r) { return r == L2Replacement::lru ? "lru" : "measured"; },
      "LRU's cliff, or a GPU L2's measured reuse curves (the keys below)"));
  auto priority = [](const std::string& key, auto get, const std::string& what) {
    return choice_param<L2Config>(
        key, get, {"normal", "evict_first"},
        [](const std::string& v) { return std::optional(v == "normal" ? L2Priority::normal : L2Priority::evict_first); },
        [](L2Priority p) { return p == L2Priority::normal ? "normal" : "evict_first"; }, what);
  };
  t->add(priority("reread_priority", NORMSIM_MEMBER(reread_priority), "the re-read's requests (a kernel's `__ldcs`)"));
  t->add(priority("store_priority", NORMSIM_MEMBER(store_priority), "y's writes (a kernel's `__stcs`)"));
  add_l2_reuse_params(*t, [](auto& l2) -> auto& { return l2.reuse; }, [](const L2Config& l2) { return l2.capacity_bytes.value(); });
  return t;
}

std::shared_ptr<const ParamTable<L1Config>> l1_params() {
  auto t = std::make_shared<ParamTable<L1Config>>();
  Param<L1Config> cap = quantity_param<L1Config>(
      "capacity_bytes", NORMSIM_MEMBER(capacity_bytes), 1, int64_t(1) << 40,
      "a near cache per `l1.datapaths_per_cache` datapaths in front of the L2 (a GPU's per-SM L1; its hits leave a "
      "re-read's bytes out of the L2 and the DRAM, docs/ASIC.md)",
      "int 1..2^40");
  cap.doc[0].default_value = "none";
  cap.check_when_given_only = true;  // 0: no near cache
  t->add(std::move(cap));
  // Its upper bound, the arch's datapaths, is the asic section's rule (below).
  t->add(integer_param<L1Config>("datapaths_per_cache", NORMSIM_MEMBER(datapaths_per_cache), 1, 65536, "datapaths",
                                 "datapaths sharing one near cache", "int 1..`datapaths`"));
  t->add(real_param<L1Config>("reuse_steepness", NORMSIM_MEMBER(reuse_steepness), positive(), "",
                              "how sharply a re-read's hits fall off as the rows a cache's datapaths hold outgrow it "
                              "(h200.yaml's `l1.reuse_steepness`)"));
  return t;
}

std::shared_ptr<const ParamTable<AsicConfig>> make_asic_params(std::vector<std::string_view>& unit_sections) {
  auto t = std::make_shared<ParamTable<AsicConfig>>();
  Param<AsicConfig> clock =
      real_param<AsicConfig>("clock_ghz", NORMSIM_MEMBER(clock_ghz), positive(), "GHz", "clock; cycles / clock = time");
  clock.doc[0].type = "(0, 100]";
  clock.check = [](const AsicConfig& c) -> std::optional<ParamError> {
    if (auto e = positive().check(c.clock_ghz)) return ParamError{"", *e};
    if (c.clock_ghz > 100) return ParamError{"", {"value " + format_number(c.clock_ghz) + " must be in (0, 100]", "(0, 100]"}};
    return std::nullopt;
  };
  t->add(std::move(clock));
  t->add(choice_param<AsicConfig>("input_path", NORMSIM_MEMBER(path), kInputPaths.list(),
                                  [](const std::string& v) { return parse_input_path(v); },
                                  [](InputPath p) { return to_string(p); },
                                  "how the normalise pass gets the row back (`--path` overrides)"));
  t->add(real_param<AsicConfig>("replay_fraction", NORMSIM_MEMBER(replay_fraction), open_unit(), "1",
                                "partial replay: fraction f of each row kept in SRAM (round(f C) elements)"));
  t->add(integer_param<AsicConfig>("rows_in_flight", NORMSIM_MEMBER(rows_in_flight), 1, 65536, "rows",
                                   "row buffers (SRAM replay keeps that many rows)"));
  t->add(integer_param<AsicConfig>("datapaths", NORMSIM_MEMBER(datapaths), 1, 65536, "datapaths",
                                   "copies of the datapath on different rows, sharing the memories (a GPU's warps)"));
  t->add(bool_param<AsicConfig>("write_stats", NORMSIM_MEMBER(write_stats),
                                "write mean and rstd (rstd only for RMSNorm) to DRAM"));
  t->add(integer_param<AsicConfig>("transaction_elems", NORMSIM_MEMBER(transaction_elems), 1, int64_t(1) << 24, "elements",
                                   "stream transaction size of the model, at most (granularity, not hardware: the model takes at most a sixteenth "
                                   "of the DRAM window, max_outstanding x burst_bytes, so that stalls do not depend on it)"));
  Param<AsicConfig> fifo = integer_param<AsicConfig>(
      "reread_fifo_bytes", NORMSIM_MEMBER(reread_fifo_bytes), 1, int64_t(1) << 30, "bytes",
      "the re-read FIFO of the DRAM re-read and partial paths, part of the SRAM (default: Little's law, the DRAM's "
      "sustained bandwidth x latency in whole bursts)",
      "int 1..2^30");
  fifo.doc[0].default_value = "bandwidth x latency";
  fifo.check_when_given_only = true;  // 0: Little's law
  t->add(std::move(fifo));
  // The nodes sim/area has sourced tables for.
  t->add(string_choice_param<AsicConfig>("node", NORMSIM_MEMBER(node), {"45nm", "28nm", "16nm", "7nm"},
                                         "technology node of the logic and the SRAM: their area and energy"));
  t->add(real_param<AsicConfig>("supply_v", NORMSIM_MEMBER(supply_v), in_range(0.5, 1.2), "V",
                                "supply voltage at which the node's energies are scaled from 45 nm (Stillmaker & Baas 2017)"));
  t->add(choice_param<AsicConfig>(
      "timing", NORMSIM_MEMBER(timing), {"fluid", "cycle"},
      [](const std::string& v) { return std::optional(v == "cycle" ? UnitTiming::cycle : UnitTiming::fluid); },
      [](UnitTiming u) { return u == UnitTiming::cycle ? "cycle" : "fluid"; },
      "when a unit acts: fluid, at the fraction of a cycle its data arrives; cycle, at the next whole cycle, as clocked "
      "logic does (the memory ports keep their byte-exact time; docs/RTL.md)"));
  t->add(choice_param<AsicConfig>(
      "past_fmax", NORMSIM_MEMBER(past_fmax), {"add_stages", "refuse"},
      [](const std::string& v) { return std::optional(v == "add_stages" ? PastFmax::add_stages : PastFmax::refuse); },
      [](PastFmax p) { return p == PastFmax::add_stages ? "add_stages" : "refuse"; },
      "a unit past its maximum frequency at the clock (its logic depth, docs/ASIC.md): add the pipeline stages it needs "
      "(their latency and registers charged), or refuse the clock"));
  Param<AsicConfig> leakage;
  leakage.key = "leakage_mw_per_mm2";
  leakage.keys = {"leakage_mw_per_mm2"};
  leakage.unit = "mW/mm2";
  // Published libraries span about 1-30 mW/mm2 (sim/area/SOURCES.md); 10000 keeps any study's energy finite.
  leakage.doc = {{"leakage_mw_per_mm2", "[0, 10000]", "the node's", "mW/mm2",
                  "leakage power per mm^2 of cells and SRAM, charged for the run's time, when not the node's"}};
  leakage.read = [](YamlReader& m, AsicConfig& c) {
    if (auto v = m.get_double("leakage_mw_per_mm2")) c.leakage_mw_per_mm2 = *v;
  };
  leakage.check = [](const AsicConfig& c) -> std::optional<ParamError> {
    if (!c.leakage_mw_per_mm2) return std::nullopt;
    if (auto e = in_range(0, 10000).check(*c.leakage_mw_per_mm2)) return ParamError{"", *e};
    return std::nullopt;
  };
  leakage.echo = [](const AsicConfig& c) { return c.leakage_mw_per_mm2 ? json_value(*c.leakage_mw_per_mm2) : nlohmann::json("node"); };
  t->add(std::move(leakage));
  t->add(section_param<AsicConfig>("dram", NORMSIM_MEMBER(dram), dram_params()));
  t->add(section_param<AsicConfig>("sram", NORMSIM_MEMBER(sram), sram_params()));
  t->add(section_param<AsicConfig>("backward", NORMSIM_MEMBER(backward), backward_params()));
  // The units' sections, in the registry's order.
  auto unit = [&](const char* name, auto member, auto table) {
    t->add(section_param<AsicConfig>(name, member, table));
    unit_sections.push_back(name);
  };
  unit("param_grad_accumulator", NORMSIM_MEMBER(param_grad_accumulator), param_grad_accumulator_params());
  unit("chan_merge_tree", NORMSIM_MEMBER(chan_merge_tree),
       cycles_params("level_cycles", &ChanMergeTreeParams::level_cycles, "one Chan merge level"));
  unit("row_sum_tree", NORMSIM_MEMBER(row_sum_tree),
       cycles_params("level_cycles", &RowSumTreeParams::level_cycles, "one adder level of the backward's S1/S2 tree"));
  unit("rsqrt", NORMSIM_MEMBER(rsqrt),
       cycles_params("latency_cycles", &RsqrtParams::latency_cycles,
                     "the RSQRT unit: seed and Newton steps, pipelined (arch.rsqrt: its arithmetic)"));
  unit("row_mean", NORMSIM_MEMBER(row_mean), cycles_params("latency_cycles", &RowMeanParams::latency_cycles, "S1/C and S2/C"));
  unit("welford_lanes", NORMSIM_MEMBER(welford_lanes),
       cycles_params("latency_cycles", &WelfordLanesParams::latency_cycles, "one lane's pipeline depth"));
  unit("row_sum_lanes", NORMSIM_MEMBER(row_sum_lanes),
       cycles_params("latency_cycles", &RowSumLanesParams::latency_cycles, "one row-sum lane's pipeline depth"));
  unit("normalize", NORMSIM_MEMBER(normalize),
       cycles_params("latency_cycles", &NormalizeParams::latency_cycles, "the normalise/affine pipeline"));
  unit("dx_unit", NORMSIM_MEMBER(dx_unit), cycles_params("latency_cycles", &DxUnitParams::latency_cycles, "the dx pipeline"));
  // Keys that became a unit's own.
  t->moved("latency.welford_cycles", "welford_lanes.latency_cycles")
      .moved("latency.merge_level_cycles", "chan_merge_tree.level_cycles")
      .moved("latency.rsqrt_cycles", "rsqrt.latency_cycles")
      .moved("latency.normalize_cycles", "normalize.latency_cycles")
      .moved("backward.row_sum_lane_cycles", "row_sum_lanes.latency_cycles")
      .moved("backward.row_sum_level_cycles", "row_sum_tree.level_cycles")
      .moved("backward.row_mean_cycles", "row_mean.latency_cycles")
      .moved("backward.dx_cycles", "dx_unit.latency_cycles")
      .moved("backward.param_grad", "param_grad_accumulator.path")
      .moved("backward.partial_rows", "param_grad_accumulator.partial_rows");
  t->add(section_param<AsicConfig>("l2", NORMSIM_MEMBER(l2), l2_params()));
  t->add(section_param<AsicConfig>("l1", NORMSIM_MEMBER(l1), l1_params()));
  // A near cache is shared by at most all the datapaths.
  Param<AsicConfig> shared;
  shared.check = [](const AsicConfig& c) -> std::optional<ParamError> {
    if (c.l1.datapaths_per_cache > c.datapaths)
      return ParamError{"l1.datapaths_per_cache",
                        {"value " + std::to_string(c.l1.datapaths_per_cache) + " out of range", "1.." + std::to_string(c.datapaths)}};
    return std::nullopt;
  };
  shared.read = [](YamlReader&, AsicConfig&) {};
  t->add(std::move(shared));
  return t;
}

struct AsicTable {
  std::vector<std::string_view> unit_sections;
  std::shared_ptr<const ParamTable<AsicConfig>> table = make_asic_params(unit_sections);
};
const AsicTable& asic_table() {
  static const AsicTable t;
  return t;
}
}  // namespace

std::span<const std::string_view> asic_unit_sections() { return asic_table().unit_sections; }

const ParamTable<AsicConfig>& asic_params() { return *asic_table().table; }

}  // namespace normsim::config
