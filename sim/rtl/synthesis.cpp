#include "sim/rtl/synthesis.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

#include "sim/area/area_energy.hpp"
#include "sim/core/merge_schedule.hpp"
#include "sim/core/rsqrt_kind.hpp"
#include "sim/rtl/rtl_config.hpp"
#include "sim/rtl/timing_closure.hpp"

namespace normsim::rtl {

namespace fs = std::filesystem;

std::optional<std::string> find_yosys() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string d;
  while (std::getline(dirs, d, ':')) {
    const fs::path p = fs::path(d) / "yosys";
    if (!d.empty() && ::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return std::nullopt;
}

std::optional<double> cell_ge(const std::string& type) {
  static const std::map<std::string, double> transistors = {
      {"$_NOT_", 2},  {"$_NAND_", 4}, {"$_NOR_", 4},   {"$_AND_", 6},  {"$_OR_", 6},
      {"$_XOR_", 12}, {"$_XNOR_", 12}, {"$_MUX_", 12}, {"$_BUF_", 4}};
  if (auto it = transistors.find(type); it != transistors.end()) return it->second / 4.0;
  if (type.rfind("$_DFF", 0) == 0 || type.rfind("$_SDFF", 0) == 0 || type.rfind("$_DFFE", 0) == 0)
    return area::kGePerFlipFlop;
  return std::nullopt;
}

namespace {
std::string rtl_file(const std::string& dir, const std::string& name) {
  const fs::path p = fs::path(dir) / name;
  if (!fs::exists(p)) throw std::runtime_error(p.string() + ": RTL source not found (pass --rtl-dir)");
  return p.string();
}

// Black boxes for the ROMs, at the widths the unit instantiates them.
std::string rom_stubs(const config::Arch& a, int count_bits) {
  const auto& rf = a.formats[static_cast<int>(core::Stage::recip)];
  std::ostringstream o;
  o << "(* blackbox *) module welford_recip_rom(input wire [" << count_bits - 1 << ":0] n, output wire ["
    << rf.total_bits - 1 << ":0] value); endmodule\n"
    << "(* blackbox *) module rsqrt_seed_rom(input wire [" << a.rsqrt.table_bits - 1 << ":0] index, output wire ["
    << a.rsqrt.rom_words() / (int64_t(1) << a.rsqrt.table_bits) * a.rsqrt.rom_word_bits() - 1
    << ":0] value); endmodule\n"
    << rsqrt_module();
  return o.str();
}
}  // namespace

SynthesisResult synthesize(Unit unit, const config::Arch& a, int count_bits, const std::string& rtl_dir,
                           const std::string& yosys, const std::string& keep_dir, const BackwardUnitOptions& backward) {
  const auto t0 = std::chrono::steady_clock::now();
  fs::path work;
  if (keep_dir.empty()) {
    char tmpl[] = "/tmp/normsim_synth_XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("synthesis: cannot create a scratch directory");
    work = tmpl;
  } else {
    work = fs::path(keep_dir) / module_name(unit);
    std::error_code ec;
    fs::create_directories(work, ec);
    if (ec) throw std::runtime_error(work.string() + ": cannot create (" + ec.message() + ")");
  }
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      if (!p.empty()) fs::remove_all(p, ec);
    }
  } cleanup{keep_dir.empty() ? work : fs::path()};

  std::ofstream(work / "roms.v") << rom_stubs(a, count_bits);
  const std::string top = module_name(unit);
  std::ostringstream script;
  // The sources: the forward's units read theirs, the backward's those and
  // their own (what yosys reads moves abc's result by a few percent, so each
  // unit reads what it was calibrated with).
  const bool backward_unit = unit == Unit::row_sum_lane || unit == Unit::row_sum_node || unit == Unit::row_mean ||
                             unit == Unit::dx_unit || unit == Unit::param_grad_acc;
  std::vector<std::string> sources = {"fx_requant.v", "welford_update.v", "welford_lane.v", "chan_merge.v", "fx_add.v",
                                      "delay_line.v", "chan_merge_seq.v", "normalize_affine.v", "philox_mask.v",
                                      "residual_add.v"};
  if (unit == Unit::rsqrt) {  // the stages every RSQRT unit shares, then each unit's own (rsqrt_module's UNIT picks one)
    sources.insert(sources.end(), {"rsqrt_operand.v", "rsqrt_scale.v"});
    for (const core::RsqrtKind& k : core::rsqrt_kinds()) sources.push_back(std::string(k.verilog_module) + ".v");
  }
  if (backward_unit)
    sources.insert(sources.end(), {"backward_operands.v", "row_sum_lane.v", "row_sum_node.v", "row_mean.v", "dx_unit.v",
                                   "param_grad_acc.v"});
  script << "read_verilog -sv";
  for (const std::string& f : sources) script << " " << rtl_file(rtl_dir, f);
  script << " ";
  script << (work / "roms.v").string() << "\nchparam";
  for (const auto& [k, v] : unit_parameter_list(unit, a, count_bits, backward)) script << " -set " << k << " " << v;
  // synth's own abc is skipped for `abc -fast`: the same gate library, minutes
  // faster on the wide multipliers, a few percent more gates.
  script << " " << top << "\nsynth -flatten -noabc -top " << top
         << "\nabc -fast -g AND,NAND,OR,NOR,XOR,XNOR,MUX\nopt_clean\nstat\nstat -tech cmos\nltp -noff\n";
  std::ofstream(work / "synth.ys") << script.str();

  const std::string log = (work / "yosys.log").string();
  const std::string cmd = yosys + " -q -l " + log + " " + (work / "synth.ys").string() + " > /dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (rc != 0) {
    const std::string tail = text.size() > 600 ? text.substr(text.size() - 600) : text;
    throw std::runtime_error(std::string("yosys failed on ") + top + ":\n" + tail);
  }

  SynthesisResult r;
  r.unit = unit;
  // yosys's CMOS estimate ("Estimated number of transistors: 1234+": the "+"
  // marks cells it has no figure for, here the flip-flops and black boxes).
  if (const size_t tr = text.rfind("Estimated number of transistors:"); tr != std::string::npos)
    r.cmos_transistors = std::stod(text.substr(tr + 32));
  // The first statistics block of the last run: "     $_NAND_    457".
  const size_t cmos = text.rfind("stat -tech cmos");
  const size_t at = text.rfind("Number of cells:", cmos == std::string::npos ? std::string::npos : cmos);
  if (at == std::string::npos) throw std::runtime_error(std::string("yosys printed no statistics for ") + top);
  std::istringstream lines(text.substr(at));
  std::string line;
  std::getline(lines, line);
  const std::regex cell(R"(^\s+(\S+)\s+(\d+)\s*$)");
  std::smatch m;
  while (std::getline(lines, line) && std::regex_match(line, m, cell)) {
    const std::string type = m[1];
    const int64_t n = std::stoll(m[2]);
    r.cells[type] = n;
    if (type.find("_rom") != std::string::npos) continue;  // the black-boxed tables
    const auto ge = cell_ge(type);
    if (!ge) throw std::runtime_error("synthesis: no gate-equivalent weight for yosys cell " + type);
    r.ge += *ge * static_cast<double>(n);
    if (*ge == area::kGePerFlipFlop) r.flip_flops += n;
  }
  // "Longest topological path in rsqrt (length=191):" -- gates between registers (ltp -noff).
  if (const size_t lp = text.rfind("Longest topological path in "); lp != std::string::npos)
    if (const size_t len = text.find("(length=", lp); len != std::string::npos) r.logic_levels = std::stoi(text.substr(len + 8));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// The forward datapath's units (lanes, merge, rsqrt, normalise) into r.
static void synthesize_forward_units(const config::Arch& arch, const core::DatapathConfig& dp, const std::string& rtl_dir,
                                     const std::string& yosys, const std::string& keep_dir, std::vector<DatapathUnitSynthesis>& r);

std::vector<DatapathUnitSynthesis> synthesize_datapath(const config::Arch& arch, const core::DatapathConfig& dp,
                                                       const std::string& rtl_dir, const std::string& yosys,
                                                       const std::string& keep_dir, const core::BackwardConfig* backward) {
  if (dp.arithmetic != core::Arithmetic::fixed)
    throw std::invalid_argument(arch.source + ": synthesis needs a fixed-point datapath (arithmetic: fixed)");
  const int L = dp.lanes;
  std::vector<DatapathUnitSynthesis> r;
  if (backward) {
    // The backward unit's: lanes, accumulators' logic, tree nodes, the row
    // means and the dx lanes (its tree registers are not RTL of their own).
    const core::BackwardConfig& b = *backward;
    const BackwardUnitOptions o{b.kind == core::NormKind::rmsnorm, b.xhat_stored, b.hidden};
    auto one = [&](Unit u) { return synthesize(u, arch, 1, rtl_dir, yosys, keep_dir, o); };
    r = {{"row_sum_lanes", L, one(Unit::row_sum_lane)},
         {"param_grad_lanes", L, one(Unit::param_grad_acc)},
         {"row_sum_tree", L - 1, one(Unit::row_sum_node)},
         {"row_mean_unit", 1, one(Unit::row_mean)},
         {"dx_lanes", L, one(Unit::dx_unit)}};
  } else {
    synthesize_forward_units(arch, dp, rtl_dir, yosys, keep_dir, r);
  }
  // A fused residual unit's adder (a fixed-point one: fp32 has no RTL) and
  // mask generator, four words a pipeline a cycle; a Post-Norm backward's
  // branch-gradient scaler is the same adder lane (r at zero).
  if (dp.residual_adder && dp.residual_add.fixed)
    r.push_back({"residual_adder", L, synthesize(Unit::residual_add, arch, 1, rtl_dir, yosys, keep_dir)});
  if (dp.branch_grad_scaler && dp.residual_add.fixed)
    r.push_back({"branch_grad_scaler", L, synthesize(Unit::residual_add, arch, 1, rtl_dir, yosys, keep_dir)});
  if (dp.mask_generator)
    r.push_back({"dropout_mask_generator", (L + 3) / 4 * (dp.residual_adder && dp.branch_grad_scaler ? 2 : 1),
                 synthesize(Unit::philox_mask, arch, 1, rtl_dir, yosys, keep_dir)});
  return r;
}

void synthesize_forward_units(const config::Arch& arch, const core::DatapathConfig& dp, const std::string& rtl_dir,
                              const std::string& yosys, const std::string& keep_dir, std::vector<DatapathUnitSynthesis>& r) {
  const int L = dp.lanes;
  const int64_t per_lane = (dp.hidden + L - 1) / L;
  const bool welford = dp.kind == core::NormKind::layernorm && dp.algorithm == core::VarianceAlgorithm::welford;
  if (welford) {
    r.push_back({"welford_lanes", L, synthesize(Unit::welford_lane, arch, area::count_bits(per_lane), rtl_dir, yosys, keep_dir),
                 modelled_logic_levels("welford_lanes", area::welford_lane_inventory(dp.formats, area::count_bits(per_lane)).multiplier_bit_products)});
    const double merge_levels =
        modelled_logic_levels("chan_merge_tree", area::chan_merge_inventory(dp.formats, area::count_bits(dp.hidden)).multiplier_bit_products);
    if (core::MergeSchedule{L, dp.merge_units}.shared())
      r.push_back({"merge_sequencer", 1, synthesize(Unit::chan_merge_seq, arch, area::count_bits(dp.hidden), rtl_dir, yosys, keep_dir)});
    else
      r.push_back({"chan_merge_tree", L - 1, synthesize(Unit::chan_merge, arch, area::count_bits(dp.hidden), rtl_dir, yosys, keep_dir),
                   merge_levels});
  }
  r.push_back({"rsqrt_unit", 1, synthesize(Unit::rsqrt, arch, 1, rtl_dir, yosys, keep_dir),
               modelled_logic_levels("rsqrt_unit", area::rsqrt_stage_bit_products(dp.formats, dp.rsqrt))});
  r.push_back({"normalize_affine", L, synthesize(Unit::normalize_affine, arch, 1, rtl_dir, yosys, keep_dir),
               modelled_logic_levels("normalize_affine", area::normalize_inventory(dp.formats).multiplier_bit_products)});
}

}  // namespace normsim::rtl
