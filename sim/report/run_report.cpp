#include "sim/report/run_report.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "sim/core/npy.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/report_stamp.hpp"

namespace normsim::report {

using nlohmann::json;

json json_number(double v) { return json(v); }

namespace {

// Units of the report's leaves, for the CSV header: the config's from its
// tables (config/*_params), the results' by name.
std::string unit_of(const std::string& path) {
  auto under = [&](const char* prefix) {
    const std::string p(prefix);
    return path.rfind(p, 0) == 0 ? path.substr(p.size()) : std::string();
  };
  if (const std::string k = under("workload."); !k.empty())
    if (std::string u = config::workload_params().unit_of(k); !u.empty()) return u;
  if (const std::string k = under("arch."); !k.empty())
    if (std::string u = config::arch_params().unit_of(k); !u.empty()) return u;
  static const std::map<std::string, std::string> units = {
      {"workload.elements", "elements"}, {"arch.asic.dram.sustained_bytes_per_cycle", "bytes/cycle"},
      {"arch.asic.dram.peak_bytes_per_cycle", "bytes/cycle"}, {"arch.asic.dram.latency_cycles", "cycles"},
      {"numerics.rel_l2_error", "1"}, {"numerics.max_abs_error", "output units"},
      {"numerics.rms_error", "output units"}, {"numerics.max_ulp_error", "ulp"},
      {"numerics.frac_within_1ulp", "fraction"}, {"numerics.negative_variance_clamps", "rows"},
      {"numerics.nonfinite_outputs", "elements"}, {"numerics.elements", "elements"},
      {"numerics.mean_max_abs_error", "input units"}, {"numerics.rstd_max_rel_error", "1"},
      {"numerics.input_saturations", "elements"}, {"numerics.residual_add.sums", "elements"},
      {"numerics.residual_add.dropped", "elements"}, {"numerics.residual_add.dropped_fraction", "fraction"},
      {"numerics.residual_add.dropout_p", "1"}, {"numerics.sample_rows", "rows"}, {"numerics.sample_groups", "count"},
      {"numerics.sample_rel_l2_error_min", "1"}, {"numerics.sample_rel_l2_error_max", "1"},
      {"numerics.sample_max_ulp_error_min", "ulp"}, {"numerics.sample_max_ulp_error_max", "ulp"},
      {"rtl.rows_checked", "rows"}, {"rtl.rtl_seconds", "s"}, {"rtl_full.rows", "rows"},
      {"rtl_full.acts_compared", "acts"}, {"rtl_full.dram_bytes_compared", "bytes"}, {"rtl_full.sram_bytes_compared", "bytes"},
      {"rtl_full.rtl_seconds", "s"}};
  if (auto it = units.find(path); it != units.end()) return it->second;
  // A backward's parameter gradients: the same figures as dx's, in gradient units.
  if (path == "numerics.dbranch.dropped") return "elements";
  if (path == "numerics.dbranch.dropped_fraction") return "fraction";
  if (path == "numerics.dbranch.dropout_p") return "1";
  if (path == "numerics.dbranch.quantizations" || path == "numerics.dbranch.overflows") return "count";
  for (const char* grad : {"numerics.dgamma.", "numerics.dbeta.", "numerics.dbranch."})
    if (const std::string leaf = under(grad); !leaf.empty()) {
      if (leaf == "max_abs_error" || leaf == "rms_error") return "gradient units";
      if (auto it = units.find("numerics." + leaf); it != units.end()) return it->second;
    }
  if (path.rfind("numerics.overflow.", 0) == 0) return "count";
  if (path.rfind("numerics.quantizations.", 0) == 0) return "count";
  if (path.find(".bits") != std::string::npos || path.find(".frac") != std::string::npos) return "bits";
  if (path.rfind("workload.", 0) == 0 && (path.find(".mean") != std::string::npos || path.find(".sigma") != std::string::npos ||
                                          path.find(".value") != std::string::npos || path.find(".low") != std::string::npos ||
                                          path.find(".high") != std::string::npos))
    return "value units";
  // By what the key says it is (timing, traffic, area and energy blocks).
  auto ends = [&](const char* suffix) {
    const std::string sfx(suffix);
    return path.size() >= sfx.size() && path.compare(path.size() - sfx.size(), sfx.size(), sfx) == 0;
  };
  if (ends("bytes_per_cycle")) return "bytes/cycle";
  if (ends("row_buffers_peak")) return "row buffers";
  if (ends("row_buffer_waits")) return "rows";
  if (path.rfind("timing.stall_cycles", 0) == 0 || path.rfind("timing.busy_cycles", 0) == 0 ||
      path.rfind("timing.phase_cycles", 0) == 0 || ends("cycles") || ends("_cycle"))
    return "cycles";
  if (path.rfind("timing.utilization", 0) == 0) return "fraction";
  if (ends("cycles_over_lower_bound")) return "1";
  if (ends("_us")) return "us";
  if (ends("_ghz")) return "GHz";
  if (ends("_gbps")) return "GB/s";
  if (ends("_mw_per_mm2")) return "mW/mm2";
  if (ends("_ps")) return "ps";
  if (ends("_ns")) return "ns";
  if (ends("period_fo4")) return "FO4";
  if (ends("logic_levels") || ends("levels_per_cycle")) return "gates";
  if (ends("_stages")) return "stages";
  if (ends("flip_flops")) return "flip-flops";
  if (ends("_mw")) return "mW";
  if (ends("_mm2")) return "mm2";
  if (ends(".um2") || ends("_um2")) return "um2";
  if (ends("_uj")) return "uJ";
  if (ends("pj_per_element")) return "pJ";
  if (ends("pj_per_bit")) return "pJ/bit";
  if (ends("pj_per_byte")) return "pJ/byte";
  if (ends("energy_factor")) return "1";
  if (ends("supply_v")) return "V";
  if (ends("sram_banks")) return "banks";
  if (ends("sram_macros")) return "macros";
  if (ends("periphery_over_cells")) return "1";
  if (ends("sram_ports")) return "ports per bank";
  if (ends("gate_equivalents")) return "GE";
  if (ends("table_bits")) return "bits";
  if (path.find("bytes") != std::string::npos || ends("row_buffers") || ends("reread_fifo") || ends("parameters") ||
      ends("accumulator"))
    return "bytes";
  return "";
}

void collect_leaves(const json& j, const std::string& prefix, std::vector<std::pair<std::string, json>>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      collect_leaves(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    return;
  }
  out.emplace_back(prefix, j);
}

// A leaf as a CSV cell: a list's items joined by "; ", non-finite numbers by name.
std::string leaf_text(const json& j) {
  std::string v;
  if (j.is_array()) {
    for (const auto& e : j) v += (v.empty() ? "" : "; ") + (e.is_string() ? e.get<std::string>() : e.dump());
  } else if (j.is_string()) v = j.get<std::string>();
  else if (j.is_null()) v = "";
  else if (j.is_number_float() && !std::isfinite(j.get<double>())) v = std::isnan(j.get<double>()) ? "nan" : j.get<double>() > 0 ? "inf" : "-inf";
  else v = j.dump();
  return v;
}

std::string fmt_g(double v, const char* f = "%.4g") {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : "inf";
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

std::vector<std::string> result_warnings(const core::NumericsResult& n) {
  std::vector<std::string> w = n.warnings;
  if (const uint64_t bad = n.output_error.nonfinite())
    w.push_back(std::to_string(bad) + " of " + std::to_string(n.output_error.elements()) +
                " outputs are not finite (inf or nan): the error figures are not finite either");
  return w;
}

std::string overflow_warning(const std::string& stage, const core::FixedFormat& f, uint64_t overflows, uint64_t quantizations) {
  char range[128];
  std::snprintf(range, sizeof range, "%s, range [%g, %g]", f.describe().c_str(), f.min_value(), f.max_value());
  return "overflow: stage '" + stage + "': " + std::to_string(overflows) + " of " + std::to_string(quantizations) +
         " results " + (f.overflow == core::Overflow::saturate ? "saturated" : "wrapped") + " (" + range +
         "; allowed: fewer frac or more bits in arch.formats." + stage + ")";
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string r = "\"";
  for (char c : s) r += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return r + "\"";
}

std::string csv_column(const std::string& path) {
  const std::string u = unit_of(path);
  return u.empty() ? path : path + " [" + u + "]";
}

json run_report_json(const config::Workload& w, const config::Arch& a, const core::NumericsResult& n) {
  // The config as read: every key the files declare (config/*_params), by the same names.
  const json wj = config::workload_echo(w);
  json aj = config::arch_params().echo(a);
  aj["source"] = a.source;
  json overflow = json::object(), quant = json::object();
  std::vector<std::string> warnings = result_warnings(n);
  if (a.arithmetic == core::Arithmetic::fixed) {
    for (int s = 0; s < core::kStageCount; ++s) {
      const std::string name(core::to_string(static_cast<core::Stage>(s)));
      overflow[name] = n.counters.overflows[s];
      quant[name] = n.counters.quantizations[s];
      if (n.counters.overflows[s]) warnings.push_back(overflow_warning(name, a.formats[s], n.counters.overflows[s],
                                                                        n.counters.quantizations[s]));
    }
  }
  // The residual adder's fixed-point format, as a stage of its own.
  if (w.residual && a.fuse.add.fixed) {
    const auto& ra = n.residual_add;
    overflow["residual_add"] = ra.overflows;
    quant["residual_add"] = ra.quantizations;
    if (ra.overflows)
      warnings.push_back("overflow: the residual adder: " + std::to_string(ra.overflows) + " of " +
                         std::to_string(ra.quantizations) + " values " +
                         (a.fuse.add.format.overflow == core::Overflow::saturate ? "saturated" : "wrapped") + " (" +
                         a.fuse.add.format.describe() + "; allowed: fewer frac or more bits in arch.fuse.add_format)");
  }
  const auto& e = n.output_error;
  json nj = {{"algorithm", n.algorithm_name},
             {"elements", e.elements()},
             {"rel_l2_error", json_number(e.rel_l2())},
             {"max_abs_error", json_number(e.max_abs())},
             {"rms_error", json_number(e.rms())},
             {"max_ulp_error", json_number(e.max_ulp())},
             {"frac_within_1ulp", e.frac_within_1ulp()},
             {"ulp_unit", n.ulp_unit},
             {"nonfinite_outputs", e.nonfinite()},
             {"mean_max_abs_error", json_number(n.mean_max_abs_error)},
             {"rstd_max_rel_error", json_number(n.rstd_max_rel_error)},
             {"overflow", overflow},
             {"quantizations", quant},
             {"negative_variance_clamps", n.counters.negative_variance_clamps},
             {"input_saturations", n.input_saturations},
             {"warnings", warnings}};
  // RMSNorm has no mean and no variance to clamp: say only what applies.
  if (w.norm == core::NormKind::rmsnorm) {
    nj.erase("mean_max_abs_error");
    nj.erase("negative_variance_clamps");
  }
  if (w.residual) {
    const auto& ra = n.residual_add;
    nj["residual_add"] = {{"format", a.fuse.add.describe()},
                          {"sums", ra.elements},
                          {"dropped", ra.dropped},
                          {"dropped_fraction", ra.elements ? static_cast<double>(ra.dropped) / static_cast<double>(ra.elements) : 0.0},
                          {"dropout_p", w.residual->dropout_p}};
  }
  return {{"workload", wj}, {"arch", aj}, {"numerics", nj}};
}

std::vector<std::pair<std::string, json>> report_leaves(const json& report) {
  std::vector<std::pair<std::string, json>> leaves;
  collect_leaves(report, "", leaves);
  return leaves;
}

std::string run_report_csv(const json& report) {
  const auto cols = report_leaves(report);
  std::ostringstream h, v;
  for (size_t i = 0; i < cols.size(); ++i) {
    const std::string u = unit_of(cols[i].first);
    h << (i ? "," : "") << csv_escape(u.empty() ? cols[i].first : cols[i].first + " [" + u + "]");
    v << (i ? "," : "") << csv_escape(leaf_text(cols[i].second));
  }
  return h.str() + "\n" + v.str() + "\n";
}

std::string run_summary_table(const config::Workload& w, const config::Arch& a, const core::NumericsResult& n) {
  const auto& e = n.output_error;
  std::ostringstream o;
  o << "normsim run: " << w.name << " (" << core::to_string(w.norm) << ", " << w.rows << " rows x " << w.hidden
    << " hidden, " << core::to_string(w.input.dtype) << " -> " << core::to_string(w.output.dtype) << ")\n";
  o << "arch: " << a.name << " (" << (a.arithmetic == core::Arithmetic::fixed ? "fixed point" : "fp32") << ", "
    << a.lanes << " lanes, variance: " << n.algorithm_name << ")\n\n";
  auto row = [&](const std::string& k, const std::string& v, const std::string& unit) {
    char b[160];
    std::snprintf(b, sizeof b, "  %-28s %16s  %s\n", k.c_str(), v.c_str(), unit.c_str());
    o << b;
  };
  row("elements", std::to_string(e.elements()), "elements");
  row("relative L2 error", fmt_g(e.rel_l2()), "(||y - ref|| / ||ref||, fp64 reference)");
  row("max abs error", fmt_g(e.max_abs()), "output units");
  row("RMS error", fmt_g(e.rms()), "output units");
  row("max ULP error", fmt_g(e.max_ulp()), "ulp, " + n.ulp_unit);
  row("within 1 ULP", fmt_g(100.0 * e.frac_within_1ulp(), "%.4f"), "% of elements");
  const bool layernorm = w.norm == core::NormKind::layernorm;
  if (layernorm) row("mean max abs error", fmt_g(n.mean_max_abs_error), "input units");
  row("rstd max rel error", fmt_g(n.rstd_max_rel_error), "(relative)");
  if (layernorm) row("negative variance clamps", std::to_string(n.counters.negative_variance_clamps), "rows");
  if (e.nonfinite()) row("non-finite outputs", std::to_string(e.nonfinite()), "elements");
  for (const auto& wmsg : result_warnings(n)) o << "  warning: " << wmsg << "\n";
  if (a.arithmetic == core::Arithmetic::fixed) {
    o << "\n  overflow per stage (saturated or wrapped results / quantisations):\n";
    for (int s = 0; s < core::kStageCount; ++s) {
      const std::string name(core::to_string(static_cast<core::Stage>(s)));
      if (n.counters.quantizations[s] == 0) continue;
      char b[200];
      std::snprintf(b, sizeof b, "    %-10s %-28s %12llu / %llu\n", name.c_str(), a.formats[s].describe().c_str(),
                    static_cast<unsigned long long>(n.counters.overflows[s]),
                    static_cast<unsigned long long>(n.counters.quantizations[s]));
      o << b;
    }
  }
  return o.str();
}

namespace {
json error_json(const core::ErrorMetrics& e, const std::string& ulp_unit) {
  return {{"elements", e.elements()},
          {"rel_l2_error", json_number(e.rel_l2())},
          {"max_abs_error", json_number(e.max_abs())},
          {"rms_error", json_number(e.rms())},
          {"max_ulp_error", json_number(e.max_ulp())},
          {"frac_within_1ulp", e.frac_within_1ulp()},
          {"ulp_unit", ulp_unit},
          {"nonfinite_outputs", e.nonfinite()}};
}
}  // namespace

json backward_numerics_json(const config::Workload& w, const config::Arch& a, const core::BackwardNumerics& n) {
  json nj = error_json(n.dx_error, n.dx_ulp_unit);
  nj["pass"] = "backward";
  nj["dgamma"] = error_json(n.dgamma_error, n.param_ulp_unit);
  if (w.norm == core::NormKind::layernorm) nj["dbeta"] = error_json(n.dbeta_error, n.param_ulp_unit);
  if (w.writes_branch_grad()) {
    json b = error_json(n.dbranch_error, n.dx_ulp_unit);
    b["dropped"] = n.branch_counters.dropped;
    b["dropped_fraction"] = n.branch_counters.elements ? static_cast<double>(n.branch_counters.dropped) / n.branch_counters.elements : 0.0;
    b["dropout_p"] = w.residual->dropout_p;
    if (a.fuse.add.fixed) {
      b["quantizations"] = n.branch_counters.quantizations;
      b["overflows"] = n.branch_counters.overflows;
    }
    nj["dbranch"] = b;
  }
  json overflow = json::object(), quant = json::object(), warnings = json::array();
  if (a.arithmetic == core::Arithmetic::fixed && a.backward_formats) {
    for (core::BackwardStage s : core::backward_stages_used(w.norm)) {
      const std::string name(core::kBackwardStages.name(s));
      const auto i = static_cast<size_t>(s);
      overflow[name] = n.counters.overflows[i];
      quant[name] = n.counters.quantizations[i];
      if (n.counters.overflows[i])
        warnings.push_back("overflow: backward stage " + name + ": " + std::to_string(n.counters.overflows[i]) + " of " +
                           std::to_string(n.counters.quantizations[i]) + " values out of " + (*a.backward_formats)[i].describe() +
                           " (allowed: more integer bits in arch.backward_formats." + name + ")");
    }
  }
  nj["overflow"] = overflow;
  nj["quantizations"] = quant;
  nj["warnings"] = warnings;
  return nj;
}

std::string backward_numerics_table(const config::Workload& w, const config::Arch& a, const core::BackwardNumerics& n) {
  std::ostringstream o;
  auto row = [&](const std::string& k, const std::string& v, const std::string& unit) {
    char b[200];
    std::snprintf(b, sizeof b, "  %-28s %16s  %s\n", k.c_str(), v.c_str(), unit.c_str());
    o << b;
  };
  auto block = [&](const std::string& what, const core::ErrorMetrics& e, const std::string& ulp_unit) {
    row(what + " elements", std::to_string(e.elements()), "elements");
    row(what + " relative L2 error", fmt_g(e.rel_l2()), "(||" + what + " - ref|| / ||ref||, fp64 reference)");
    row(what + " max abs error", fmt_g(e.max_abs()), "gradient units");
    row(what + " max ULP error", fmt_g(e.max_ulp()), "ulp, " + ulp_unit);
    row(what + " within 1 ULP", fmt_g(100.0 * e.frac_within_1ulp(), "%.4f"), "% of elements");
    if (e.nonfinite()) row(what + " non-finite", std::to_string(e.nonfinite()), "elements");
  };
  block("dx", n.dx_error, n.dx_ulp_unit);
  block("dgamma", n.dgamma_error, n.param_ulp_unit);
  if (w.norm == core::NormKind::layernorm) block("dbeta", n.dbeta_error, n.param_ulp_unit);
  if (w.writes_branch_grad()) {
    block("dbranch", n.dbranch_error, n.dx_ulp_unit);
    row("dbranch dropped", std::to_string(n.branch_counters.dropped), "elements (p = " + fmt_g(w.residual->dropout_p) + ")");
    if (n.branch_counters.quantizations)
      row("dbranch overflows", std::to_string(n.branch_counters.overflows),
          "of " + std::to_string(n.branch_counters.quantizations) + " quantisations into the adder's format");
  }
  if (a.arithmetic == core::Arithmetic::fixed && a.backward_formats) {
    o << "\n  overflow per backward stage (saturated or wrapped results / quantisations):\n";
    for (core::BackwardStage s : core::backward_stages_used(w.norm)) {
      const auto i = static_cast<size_t>(s);
      char b[200];
      std::snprintf(b, sizeof b, "    %-10s %-28s %12llu / %llu\n", std::string(core::kBackwardStages.name(s)).c_str(),
                    (*a.backward_formats)[i].describe().c_str(), static_cast<unsigned long long>(n.counters.overflows[i]),
                    static_cast<unsigned long long>(n.counters.quantizations[i]));
      o << b;
    }
  }
  return o.str();
}

namespace {
// A tensor as its element type stores it: fp32 '<f4', bf16 its bits '<u2'
// (NumPy has no bf16), fp16 '<f2', int8 its codes '|i1' -- the forms
// `input.file` reads. The values are already of the type, so this is exact.
void write_tensor_npy(const std::string& path, const std::vector<double>& v, const core::TensorSpec& t,
                      const std::vector<int64_t>& shape) {
  switch (t.dtype) {
    case core::ElemType::int8: {
      std::vector<int8_t> codes(v.size());
      for (size_t i = 0; i < v.size(); ++i) codes[i] = core::quantize_int8(v[i], t.scale);
      core::write_npy(path, "|i1", shape, codes.data(), codes.size());
      return;
    }
    case core::ElemType::fp16: {
      std::vector<uint16_t> h(v.size());
      for (size_t i = 0; i < v.size(); ++i) h[i] = core::fp32_to_fp16_bits(static_cast<float>(v[i]));
      core::write_npy(path, "<f2", shape, h.data(), h.size() * 2);
      return;
    }
    case core::ElemType::bf16: {
      std::vector<uint16_t> h(v.size());
      for (size_t i = 0; i < v.size(); ++i) h[i] = core::fp32_to_bf16_bits(static_cast<float>(v[i]));
      core::write_npy(path, "<u2", shape, h.data(), h.size() * 2);
      return;
    }
    case core::ElemType::fp32: {
      const std::vector<float> f(v.begin(), v.end());
      core::write_npy(path, f, shape);
      return;
    }
  }
}
}  // namespace

std::vector<std::string> write_run_outputs(const std::string& dir, const config::Workload& w, const core::KeptOutputs& r,
                                           const json& report, const core::BackwardOutputs* backward) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir + ": cannot create directory: " + ec.message());
  const bool wrote_dx = backward && !backward->dx.empty(), wrote_dbeta = wrote_dx && !backward->dbeta.empty(),
             wrote_dbranch = wrote_dx && !backward->dbranch.empty();
  if (wrote_dx) {
    write_atomic_with(dir + "/dx.npy", [&](const std::string& p) { write_tensor_npy(p, backward->dx, w.output, {w.rows, w.hidden}); });
    const core::TensorSpec fp32;
    write_atomic_with(dir + "/dgamma.npy", [&](const std::string& p) { write_tensor_npy(p, backward->dgamma, fp32, {w.hidden}); });
    if (wrote_dbeta)
      write_atomic_with(dir + "/dbeta.npy", [&](const std::string& p) { write_tensor_npy(p, backward->dbeta, fp32, {w.hidden}); });
    if (wrote_dbranch)
      write_atomic_with(dir + "/dbranch.npy",
                        [&](const std::string& p) { write_tensor_npy(p, backward->dbranch, w.output, {w.rows, w.hidden}); });
  }
  if (!r.y.empty()) {
    const std::vector<int64_t> shape = {w.rows, w.hidden};
    write_atomic_with(dir + "/y.npy", [&](const std::string& p) { write_tensor_npy(p, r.y, w.output, shape); });
    // RMSNorm has no mean: no mean.npy rather than a file of zeros.
    if (w.norm == core::NormKind::layernorm)
      write_atomic_with(dir + "/mean.npy", [&](const std::string& p) { core::write_npy(p, r.mean, {w.rows}); });
    write_atomic_with(dir + "/rstd.npy", [&](const std::string& p) { core::write_npy(p, r.rstd, {w.rows}); });
  }
  // The input the norm took: x, or with a residual stream the sum z (in x's type).
  const char* input_name = w.residual ? "z.npy" : "x.npy";
  if (!r.x.empty()) {
    const std::vector<int64_t> shape = {w.rows, w.hidden};
    write_atomic_with(dir + "/" + input_name, [&](const std::string& p) { write_tensor_npy(p, r.x, w.input, shape); });
    write_atomic_with(dir + "/y_ref.npy", [&](const std::string& p) { core::write_npy(p, r.y_ref, shape); });
  }
  write_file_atomic(dir + "/report.csv", run_report_csv(report));
  write_file_atomic(dir + "/report.json", report_text(report, 2) + "\n");
  // The folder now describes this run only: an earlier run's outputs that
  // this one did not write would sit beside a report they do not belong to.
  std::vector<std::string> removed;
  const bool wrote_y = !r.y.empty(), wrote_x = !r.x.empty();
  const bool wrote_mean = wrote_y && w.norm == core::NormKind::layernorm;
  for (const auto& [name, written] :
       {std::pair<const char*, bool>{"y.npy", wrote_y}, {"mean.npy", wrote_mean}, {"rstd.npy", wrote_y},
        {"x.npy", wrote_x && !w.residual}, {"z.npy", wrote_x && w.residual.has_value()}, {"y_ref.npy", wrote_x},
        {"dx.npy", wrote_dx}, {"dgamma.npy", wrote_dx}, {"dbeta.npy", wrote_dbeta}, {"dbranch.npy", wrote_dbranch}}) {
    if (written) continue;
    const std::filesystem::path p = std::filesystem::path(dir) / name;
    if (std::filesystem::is_regular_file(p, ec) && std::filesystem::remove(p, ec)) removed.push_back(name);
  }
  return removed;
}

}  // namespace normsim::report
