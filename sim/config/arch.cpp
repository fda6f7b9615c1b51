#include "sim/config/arch.hpp"

#include <filesystem>

#include "sim/config/embedded_configs.hpp"
#include "sim/config/l2_reuse_keys.hpp"
#include "sim/config/yaml_reader.hpp"

namespace normsim::config {

namespace {

core::FixedFormat parse_format(YamlReader m, core::Rounding def_round, core::Overflow def_ovf) {
  core::FixedFormat f;
  const auto bits = m.get_int("bits", 1, core::kMaxFixedBits);
  if (!bits) m.fail("bits", "missing", "1..64");
  f.total_bits = static_cast<int>(*bits);
  const auto frac = m.get_int("frac", -1024, 1024);
  if (!frac) m.fail("frac", "missing", "0..bits");
  if (*frac < 0 || *frac > f.total_bits)
    m.fail("frac", "fraction bits " + std::to_string(*frac) + " impossible with " + std::to_string(f.total_bits) +
                       " total bits", "0.." + std::to_string(f.total_bits));
  f.frac_bits = static_cast<int>(*frac);
  f.is_signed = m.get_bool("signed").value_or(true);
  if (f.is_signed && f.total_bits < 2) m.fail("bits", "a signed format needs at least 2 bits", "2..64");
  if (auto r = m.get_choice("rounding", {"truncate", "half-even", "half-away"})) f.rounding = *core::parse_rounding(*r);
  else f.rounding = def_round;
  if (auto o = m.get_choice("overflow", {"saturate", "wrap"})) f.overflow = *core::parse_overflow(*o);
  else f.overflow = def_ovf;
  m.finish({"bits", "frac", "signed", "rounding", "overflow"});
  return f;
}

std::vector<std::string> stage_names() {
  std::vector<std::string> v;
  for (int s = 0; s < core::kStageCount; ++s) v.emplace_back(core::to_string(static_cast<core::Stage>(s)));
  return v;
}

AsicConfig parse_asic(YamlReader m) {
  AsicConfig c;
  c.clock_ghz = m.get_positive("clock_ghz", c.clock_ghz);
  if (auto p = m.get_choice("input_path", {"sram-replay", "dram-reread", "partial-replay"})) c.path = *parse_input_path(*p);
  c.replay_fraction = m.get_double("replay_fraction").value_or(c.replay_fraction);
  if (!(c.replay_fraction > 0 && c.replay_fraction < 1)) m.fail("replay_fraction", "must be strictly between 0 and 1", "(0, 1)");
  c.rows_in_flight = static_cast<int>(m.get_int("rows_in_flight", 1, 65536).value_or(c.rows_in_flight));
  c.datapaths = static_cast<int>(m.get_int("datapaths", 1, 65536).value_or(c.datapaths));
  c.write_stats = m.get_bool("write_stats").value_or(c.write_stats);
  c.transaction_elems = m.get_int("transaction_elems", 1, int64_t(1) << 24).value_or(c.transaction_elems);
  c.node = m.get_choice("node", {"45nm", "28nm", "16nm", "7nm"}).value_or(c.node);  // the nodes sim/area has sourced tables for
  if (auto d = m.get_map("dram")) {
    c.dram.peak_bytes_per_cycle = d->get_positive("peak_bytes_per_cycle", c.dram.peak_bytes_per_cycle);
    c.dram.latency_cycles = static_cast<int>(d->get_int("latency_cycles", 1, 1000000).value_or(c.dram.latency_cycles));
    c.dram.max_outstanding = static_cast<int>(d->get_int("max_outstanding", 1, 1 << 20).value_or(c.dram.max_outstanding));
    c.dram.burst_bytes = static_cast<int>(d->get_int("burst_bytes", 1, 1 << 20).value_or(c.dram.burst_bytes));
    c.dram.capacity_bytes = static_cast<uint64_t>(d->get_int("capacity_bytes", 1, INT64_MAX).value_or(static_cast<int64_t>(c.dram.capacity_bytes)));
    c.dram.energy_pj_per_bit = d->get_double("energy_pj_per_bit").value_or(c.dram.energy_pj_per_bit);
    if (c.dram.energy_pj_per_bit < 0) d->fail("energy_pj_per_bit", "must be >= 0");
    d->finish({"peak_bytes_per_cycle", "latency_cycles", "max_outstanding", "burst_bytes", "capacity_bytes", "energy_pj_per_bit"});
  }
  if (auto s = m.get_map("sram")) {
    c.sram.capacity_bytes = static_cast<uint64_t>(s->get_int("capacity_bytes", 1, INT64_MAX).value_or(static_cast<int64_t>(c.sram.capacity_bytes)));
    c.sram.banks = static_cast<int>(s->get_int("banks", 1, 4096).value_or(c.sram.banks));
    c.sram.ports = static_cast<int>(s->get_int("ports", 1, 2).value_or(c.sram.ports));
    c.sram.access_bytes = static_cast<int>(s->get_int("access_bytes", 1, 4096).value_or(c.sram.access_bytes));
    c.sram.latency_cycles = static_cast<int>(s->get_int("latency_cycles", 1, 1000).value_or(c.sram.latency_cycles));
    s->finish({"capacity_bytes", "banks", "ports", "access_bytes", "latency_cycles"});
  }
  if (auto l = m.get_map("latency")) {
    c.latency.welford_cycles = static_cast<int>(l->get_int("welford_cycles", 1, 10000).value_or(c.latency.welford_cycles));
    c.latency.merge_level_cycles = static_cast<int>(l->get_int("merge_level_cycles", 1, 10000).value_or(c.latency.merge_level_cycles));
    c.latency.rsqrt_cycles = static_cast<int>(l->get_int("rsqrt_cycles", 1, 10000).value_or(c.latency.rsqrt_cycles));
    c.latency.normalize_cycles = static_cast<int>(l->get_int("normalize_cycles", 1, 10000).value_or(c.latency.normalize_cycles));
    l->finish({"welford_cycles", "merge_level_cycles", "rsqrt_cycles", "normalize_cycles"});
  }
  if (auto l = m.get_map("l2")) {
    L2Config& l2 = c.l2;
    l2.capacity_bytes = static_cast<double>(l->get_int("capacity_bytes", 1, int64_t(1) << 40).value_or(0));
    l2.line_bytes = static_cast<int>(l->get_int("line_bytes", 1, 4096).value_or(l2.line_bytes));
    if (auto r = l->get_choice("replacement", {"lru", "measured"}))
      l2.replacement = *r == "lru" ? L2Replacement::lru : L2Replacement::measured;
    auto priority = [&](const char* key, L2Priority def) {
      const auto p = l->get_choice(key, {"normal", "evict_first"});
      return !p ? def : *p == "normal" ? L2Priority::normal : L2Priority::evict_first;
    };
    l2.reread_priority = priority("reread_priority", l2.reread_priority);
    l2.store_priority = priority("store_priority", l2.store_priority);
    // The measured curves (the same keys as workloads/arch/h200.yaml's l2).
    read_l2_reuse(*l, l2.reuse, l2.capacity_bytes);
    std::vector<std::string> keys = {"capacity_bytes", "line_bytes", "replacement", "reread_priority", "store_priority"};
    keys.insert(keys.end(), l2_reuse_keys().begin(), l2_reuse_keys().end());
    l->finish(keys);
  }
  if (auto l = m.get_map("l1")) {
    L1Config& l1 = c.l1;
    l1.capacity_bytes = static_cast<double>(l->get_int("capacity_bytes", 1, int64_t(1) << 40).value_or(0));
    l1.datapaths_per_cache = static_cast<int>(l->get_int("datapaths_per_cache", 1, c.datapaths).value_or(l1.datapaths_per_cache));
    l1.reuse_steepness = l->get_positive("reuse_steepness", l1.reuse_steepness);
    l->finish({"capacity_bytes", "datapaths_per_cache", "reuse_steepness"});
  }
  m.finish({"clock_ghz", "input_path", "replay_fraction", "rows_in_flight", "datapaths", "l1", "l2", "write_stats", "transaction_elems", "node",
            "dram", "sram", "latency"});
  return c;
}

}  // namespace

Arch parse_arch_text(const std::string& text, const std::string& file, const std::vector<Override>& overrides) {
  YamlReader r = YamlReader::from_text(text, file);
  for (const auto& o : overrides)
    if (o.target == "arch") r.apply(o);
  Arch a;
  a.source = file;
  a.name = r.get_string("name").value_or(std::filesystem::path(file).stem().string());
  a.lanes = static_cast<int>(r.get_int("lanes", 1, 4096).value_or(16));
  if ((a.lanes & (a.lanes - 1)) != 0)
    r.fail("lanes", "value " + std::to_string(a.lanes) + " is not a power of two (the Chan merge tree has log2 L levels)",
           "1, 2, 4, ..., 4096");
  if (auto alg = r.get_choice("algorithm", {"welford", "two-pass", "single-pass"}))
    a.algorithm = *core::parse_variance_algorithm(*alg);
  a.variance_clamp = r.get_bool("variance_clamp").value_or(true);
  const auto arith = r.get_choice("arithmetic", {"fp32", "fixed"}).value_or("fp32");
  a.arithmetic = arith == "fixed" ? core::Arithmetic::fixed : core::Arithmetic::fp32;

  if (a.arithmetic == core::Arithmetic::fixed) {
    auto fm = r.get_map("formats");
    if (!fm) r.fail("formats", "missing: a fixed-point datapath needs a format per stage", std::string(core::kStageNames));
    core::Rounding def_round = core::Rounding::half_even;
    core::Overflow def_ovf = core::Overflow::saturate;
    if (auto d = fm->get_map("defaults")) {
      if (auto ro = d->get_choice("rounding", {"truncate", "half-even", "half-away"})) def_round = *core::parse_rounding(*ro);
      if (auto ov = d->get_choice("overflow", {"saturate", "wrap"})) def_ovf = *core::parse_overflow(*ov);
      d->finish({"rounding", "overflow"});
    }
    for (int s = 0; s < core::kStageCount; ++s) {
      const std::string name(core::to_string(static_cast<core::Stage>(s)));
      auto sm = fm->get_map(name);
      if (!sm) fm->fail(name, "missing format for stage '" + name + "'", "a mapping {bits, frac, signed, rounding, overflow}");
      a.formats[s] = parse_format(*sm, def_round, def_ovf);
    }
    auto allowed = stage_names();
    allowed.push_back("defaults");
    fm->finish(allowed);
    if (auto rs = r.get_map("rsqrt")) {
      a.rsqrt.table_bits = static_cast<int>(rs->get_int("table_bits", 1, 16).value_or(a.rsqrt.table_bits));
      a.rsqrt.iterations = static_cast<int>(rs->get_int("iterations", 0, 4).value_or(a.rsqrt.iterations));
      a.rsqrt.nr_frac_bits = static_cast<int>(rs->get_int("nr_frac_bits", 4, 60).value_or(a.rsqrt.nr_frac_bits));
      rs->finish({"table_bits", "iterations", "nr_frac_bits"});
    }
  } else {
    for (const char* k : {"formats", "rsqrt"})
      if (r.has(k)) r.fail(k, "only applies to 'arithmetic: fixed'");
  }
  // The merge tree's order and FMA contraction: how a GPU kernel's datapath
  // rounds (workloads/arch/gpu-warp.yaml); fp32 only.
  if (auto mo = r.get_choice("merge_order", {"adjacent", "butterfly"})) {
    a.merge_order = *mo == "butterfly" ? core::MergeOrder::butterfly : core::MergeOrder::adjacent;
    if (a.merge_order == core::MergeOrder::butterfly && a.arithmetic == core::Arithmetic::fixed)
      r.fail("merge_order", "butterfly needs 'arithmetic: fp32' (the fixed-point tree is the RTL's adjacent one)",
             "adjacent");
  }
  a.merge_group = static_cast<int>(r.get_int("merge_group", 1, 4096).value_or(32));
  if ((a.merge_group & (a.merge_group - 1)) != 0)
    r.fail("merge_group", "value " + std::to_string(a.merge_group) + " is not a power of two", "1, 2, 4, ..., 4096");
  if (auto fc = r.get_bool("fma_contraction")) {
    a.fma_contraction = *fc;
    if (*fc && a.arithmetic == core::Arithmetic::fixed)
      r.fail("fma_contraction", "applies to 'arithmetic: fp32' only", "false");
  }
  if (auto am = r.get_map("asic")) a.asic = parse_asic(*am);
  r.finish({"name", "lanes", "algorithm", "variance_clamp", "arithmetic", "formats", "rsqrt", "merge_order",
            "merge_group", "fma_contraction", "asic"});
  return a;
}

Arch load_arch(const std::string& path, const std::vector<Override>& overrides) {
  return parse_arch_text(read_config_file(path), path, overrides);
}

Arch default_arch(const std::vector<Override>& overrides) {
  Arch a = parse_arch_text(embedded::kDefaultArchYaml, embedded::kDefaultArchPath, overrides);
  a.source = std::string("<embedded default: ") + embedded::kDefaultArchPath + ">";
  return a;
}

}  // namespace normsim::config
