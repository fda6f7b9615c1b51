#include "sim/config/arch.hpp"

#include <filesystem>
#include <memory>

#include "sim/config/embedded_configs.hpp"
#include "sim/core/rsqrt_kind.hpp"
#include "sim/core/sha256.hpp"
#include "sim/config/shipped_configs.hpp"
#include "sim/config/yaml_reader.hpp"

namespace normsim::config {

namespace {

core::FixedFormat parse_format(YamlReader m, core::Rounding def_round, core::Overflow def_ovf) {
  core::FixedFormat f;
  const auto bits = m.get_int("bits", 1, core::kMaxFixedBits);
  if (!bits) m.fail("bits", "missing", "1..64");
  f.total_bits = static_cast<int>(*bits);
  // Any integer is read, so that the one range message is 0..bits.
  const auto frac = m.get_int("frac", INT64_MIN, INT64_MAX);
  if (!frac) m.fail("frac", "missing", "0..bits");
  if (*frac < 0 || *frac > f.total_bits)
    m.fail_rule("frac", {"bits"}, "fraction bits " + std::to_string(*frac) + " impossible with " + std::to_string(f.total_bits) +
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

nlohmann::json format_json(const core::FixedFormat& f) {
  return {{"bits", f.total_bits}, {"frac", f.frac_bits}, {"signed", f.is_signed},
          {"rounding", std::string(core::to_string(f.rounding))}, {"overflow", std::string(core::to_string(f.overflow))}};
}

// A format's keys' units: its widths are bits.
std::string formats_unit_of(const std::string& sub) {
  const auto dot = sub.rfind('.');
  const std::string leaf = dot == std::string::npos ? sub : sub.substr(dot + 1);
  return leaf == "bits" || leaf == "frac" ? "bits" : "";
}

std::vector<std::string> stage_names() {
  std::vector<std::string> v;
  for (int s = 0; s < core::kStageCount; ++s) v.emplace_back(core::to_string(static_cast<core::Stage>(s)));
  return v;
}

/// A power of two within 1..4096 (lanes, merge groups: the trees have log2 levels).
template <class Get>
Param<Arch> power_of_two_param(const std::string& key, Get get, const std::string& why, const std::string& unit,
                               const std::string& description) {
  Param<Arch> p = integer_param<Arch>(key, get, 1, 4096, unit, description, "power of two 1..4096");
  p.check = [get, why](const Arch& a) -> std::optional<ParamError> {
    const int v = get(a);
    if (v < 1 || v > 4096) return ParamError{"", {"value " + std::to_string(v) + " out of range", "1..4096"}};
    if ((v & (v - 1)) != 0)
      return ParamError{"", {"value " + std::to_string(v) + " is not a power of two" + why, "1, 2, 4, ..., 4096"}};
    return std::nullopt;
  };
  return p;
}

std::shared_ptr<const ParamTable<core::RsqrtConfig>> rsqrt_params() {
  auto t = std::make_shared<ParamTable<core::RsqrtConfig>>();
  t->add(integer_param<core::RsqrtConfig>("table_bits", NORMSIM_MEMBER(table_bits), 1, 16, "bits",
                                          "seed table index: 1 exponent-parity bit + table_bits-1 mantissa bits"));
  t->add(integer_param<core::RsqrtConfig>("iterations", NORMSIM_MEMBER(iterations), 0, 4, "steps",
                                          "Newton-Raphson steps y' = y (3 - m y^2) / 2"));
  t->add(integer_param<core::RsqrtConfig>("nr_frac_bits", NORMSIM_MEMBER(nr_frac_bits), 4, 60, "bits",
                                          "fraction bits of the Newton iterate registers"));
  t->add(choice_param<core::RsqrtConfig>(
      "seed", NORMSIM_MEMBER(seed), core::kRsqrtSeeds.list(),
      [](const std::string& v) { return core::kRsqrtSeeds.parse(v); },
      [](core::RsqrtSeed s) { return core::kRsqrtSeeds.name(s); },
      "the Newton steps' seed: a table value an interval, or a line c0 + c1 t an interval (twice the ROM and one "
      "multiply-add stage; about twice the seed's correct bits, so one step where a table needs two)"));
  // The units and their one-line summaries come from sim/core/rsqrt_kind.hpp's table.
  std::string units = "the RSQRT unit built: ";
  const auto& kinds = core::rsqrt_kinds();
  for (size_t i = 0; i < kinds.size(); ++i)
    units += std::string(i == 0 ? "" : i + 1 == kinds.size() ? " or " : ", ") + std::string(kinds[i].name) + " (" +
             std::string(kinds[i].summary) + ")";
  t->add(choice_param<core::RsqrtConfig>(
      "unit", NORMSIM_MEMBER(unit), core::rsqrt_kind_names(),
      [](const std::string& v) { return core::rsqrt_kind_index(v); },
      [](int k) { return core::rsqrt_kinds().at(static_cast<size_t>(k)).name; }, units));
  return t;
}

std::shared_ptr<const ParamTable<MergeConfig>> merge_params() {
  auto t = std::make_shared<ParamTable<MergeConfig>>();
  Param<MergeConfig> units = integer_param<MergeConfig>(
      "units", NORMSIM_MEMBER(units), 1, 4095, "units",
      "merge units the tree's levels run on: lanes - 1 is the dedicated, pipelined tree; fewer are time-shared by a "
      "sequencer (one row at a time, latency sum over levels of ceil(merges / units) - 1 + asic.chan_merge_tree.level_cycles; docs/ASIC.md)",
      "int 1..lanes-1");
  units.doc[0].default_value = "lanes - 1";
  units.check_when_given_only = true;  // 0: the dedicated tree
  t->add(std::move(units));
  return t;
}

std::shared_ptr<const ParamTable<Arch>> make_arch_params() {
  auto t = std::make_shared<ParamTable<Arch>>();
  Param<Arch> name;
  name.key = "name";
  name.keys = {"name"};
  name.doc = {{"name", "string", "file name", "", "label"}};
  name.read = [](YamlReader& m, Arch& a) {
    a.name = m.get_string("name").value_or(std::filesystem::path(m.file()).stem().string());
  };
  name.echo = [](const Arch& a) { return nlohmann::json(a.name); };
  t->add(std::move(name));
  t->add(power_of_two_param(
      "lanes", NORMSIM_MEMBER(lanes), " (the Chan merge tree has log2 L levels)", "lanes",
      "Welford lanes (element i goes to lane i mod L), merged by a log2 L level Chan tree; partial-sum lanes for the "
      "other algorithms"));
  t->add(choice_param<Arch>("algorithm", NORMSIM_MEMBER(algorithm), {"welford", "two-pass", "single-pass"},
                            [](const std::string& v) { return core::parse_variance_algorithm(v); },
                            [](core::VarianceAlgorithm v) { return core::to_string(v); },
                            "LayerNorm variance algorithm (RMSNorm always uses the sum of squares)"));
  t->add(bool_param<Arch>("variance_clamp", NORMSIM_MEMBER(variance_clamp), "single-pass: var = max(var, 0), counted"));
  t->add(choice_param<Arch>(
      "arithmetic", NORMSIM_MEMBER(arithmetic), {"fp32", "fixed"},
      [](const std::string& v) { return std::optional(v == "fixed" ? core::Arithmetic::fixed : core::Arithmetic::fp32); },
      [](core::Arithmetic a) { return a == core::Arithmetic::fixed ? "fixed" : "fp32"; },
      "IEEE fp32 in every stage, or a fixed-point format per stage"));

  // A fixed-point datapath's formats: one per stage, with defaults for their rounding and overflow.
  Param<Arch> formats;
  formats.key = "formats";
  formats.keys = {"formats"};
  formats.doc = {{"formats", "mapping", "required when fixed", "", "one format per stage, below"},
                 {"formats.defaults", "`{rounding, overflow}`", "half-even, saturate", "", "defaults for the stage formats"}};
  formats.read = [](YamlReader& r, Arch& a) {
    if (a.arithmetic != core::Arithmetic::fixed) {
      if (r.has("formats")) r.fail("formats", "only applies to 'arithmetic: fixed'");
      return;
    }
    auto fm = r.get_map("formats");
    if (!fm) r.fail("formats", "missing: a fixed-point datapath needs a format per stage", core::kStages.joined());
    core::Rounding def_round = core::Rounding::half_even;
    core::Overflow def_ovf = core::Overflow::saturate;
    if (auto d = fm->get_map("defaults")) {
      if (auto ro = d->get_choice("rounding", {"truncate", "half-even", "half-away"})) def_round = *core::parse_rounding(*ro);
      if (auto ov = d->get_choice("overflow", {"saturate", "wrap"})) def_ovf = *core::parse_overflow(*ov);
      d->finish({"rounding", "overflow"});
    }
    for (int s = 0; s < core::kStageCount; ++s) {
      const std::string stage(core::to_string(static_cast<core::Stage>(s)));
      auto sm = fm->get_map(stage);
      if (!sm) fm->fail(stage, "missing format for stage '" + stage + "'", "a mapping {bits, frac, signed, rounding, overflow}");
      a.formats[s] = parse_format(*sm, def_round, def_ovf);
    }
    auto allowed = stage_names();
    allowed.push_back("defaults");
    fm->finish(allowed);
  };
  formats.echo = [](const Arch& a) {
    if (a.arithmetic != core::Arithmetic::fixed) return nlohmann::json();
    nlohmann::json j = nlohmann::json::object();
    for (int s = 0; s < core::kStageCount; ++s) j[std::string(core::to_string(static_cast<core::Stage>(s)))] = format_json(a.formats[s]);
    return j;
  };
  formats.unit_of = formats_unit_of;
  t->add(std::move(formats));

  // The backward's formats: a fixed-point datapath's, when it runs backward workloads.
  Param<Arch> bformats;
  bformats.key = "backward_formats";
  bformats.keys = {"backward_formats"};
  bformats.doc = {{"backward_formats", "mapping", "none (a backward workload on a fixed arch needs it)", "",
                   "one format per backward stage: " + std::string(core::kBackwardStages.joined())},
                  {"backward_formats.defaults", "`{rounding, overflow}`", "half-even, saturate", "", "defaults for the backward formats"}};
  bformats.read = [](YamlReader& r, Arch& a) {
    auto fm = r.get_map("backward_formats");
    if (!fm) return;
    if (a.arithmetic != core::Arithmetic::fixed) r.fail("backward_formats", "only applies to 'arithmetic: fixed'");
    core::Rounding def_round = core::Rounding::half_even;
    core::Overflow def_ovf = core::Overflow::saturate;
    if (auto d = fm->get_map("defaults")) {
      if (auto ro = d->get_choice("rounding", {"truncate", "half-even", "half-away"})) def_round = *core::parse_rounding(*ro);
      if (auto ov = d->get_choice("overflow", {"saturate", "wrap"})) def_ovf = *core::parse_overflow(*ov);
      d->finish({"rounding", "overflow"});
    }
    core::BackwardFormats f{};
    for (int s = 0; s < core::kBackwardStageCount; ++s) {
      const std::string stage(core::kBackwardStages.name(static_cast<core::BackwardStage>(s)));
      auto sm = fm->get_map(stage);
      if (!sm) fm->fail(stage, "missing format for backward stage '" + stage + "'", "a mapping {bits, frac, signed, rounding, overflow}");
      f[static_cast<size_t>(s)] = parse_format(*sm, def_round, def_ovf);
    }
    auto allowed = core::kBackwardStages.list();
    allowed.push_back("defaults");
    fm->finish(allowed);
    a.backward_formats = f;
  };
  bformats.echo = [](const Arch& a) {
    if (!a.backward_formats) return nlohmann::json("none");
    nlohmann::json j = nlohmann::json::object();
    for (int s = 0; s < core::kBackwardStageCount; ++s)
      j[std::string(core::kBackwardStages.name(static_cast<core::BackwardStage>(s)))] = format_json((*a.backward_formats)[static_cast<size_t>(s)]);
    return j;
  };
  bformats.unit_of = formats_unit_of;
  t->add(std::move(bformats));

  // The RSQRT unit: a fixed-point datapath's only.
  const auto rsqrt = rsqrt_params();
  Param<Arch> rs = section_param<Arch>("rsqrt", NORMSIM_MEMBER(rsqrt), rsqrt);
  rs.read = [rsqrt](YamlReader& r, Arch& a) {
    if (a.arithmetic != core::Arithmetic::fixed) {
      if (r.has("rsqrt")) r.fail("rsqrt", "only applies to 'arithmetic: fixed'");
      return;
    }
    if (auto m = r.get_map("rsqrt")) rsqrt->read(*m, a.rsqrt);
  };
  rs.echo = [rsqrt](const Arch& a) { return a.arithmetic == core::Arithmetic::fixed ? rsqrt->echo(a.rsqrt) : nlohmann::json(); };
  t->add(std::move(rs));

  // The merge tree's order and FMA contraction: how a GPU kernel's datapath
  // rounds (workloads/arch/gpu-warp.yaml); fp32 only.
  Param<Arch> order = choice_param<Arch>(
      "merge_order", NORMSIM_MEMBER(merge_order), {"adjacent", "butterfly"},
      [](const std::string& v) { return std::optional(v == "butterfly" ? core::MergeOrder::butterfly : core::MergeOrder::adjacent); },
      [](core::MergeOrder o) { return o == core::MergeOrder::butterfly ? "butterfly" : "adjacent"; },
      "the merge tree's order: adjacent lanes (the RTL's), or a warp shuffle's xor butterfly (fp32 only)");
  order.check = [](const Arch& a) -> std::optional<ParamError> {
    if (a.merge_order == core::MergeOrder::butterfly && a.arithmetic == core::Arithmetic::fixed)
      return ParamError{"", {"butterfly needs 'arithmetic: fp32' (the fixed-point tree is the RTL's adjacent one)", "adjacent"}};
    return std::nullopt;
  };
  t->add(std::move(order));
  t->add(power_of_two_param("merge_group", NORMSIM_MEMBER(merge_group), "", "lanes",
                            "lanes per butterfly group (a warp); the groups' results merge in a second tree"));
  Param<Arch> merge = section_param<Arch>("merge", NORMSIM_MEMBER(merge), merge_params());
  // Echoed as the units the design has (lanes - 1 for the dedicated tree).
  merge.echo = [](const Arch& a) { return nlohmann::json{{"units", a.merge.units ? a.merge.units : a.lanes - 1}}; };
  t->add(std::move(merge));
  // The units are at most the tree's nodes, which the lanes set.
  Param<Arch> merge_nodes;
  merge_nodes.read = [](YamlReader&, Arch&) {};
  merge_nodes.check = [](const Arch& a) -> std::optional<ParamError> {
    if (a.merge.units <= a.lanes - 1) return std::nullopt;
    return ParamError{"merge.units",
                      {"value " + std::to_string(a.merge.units) + " is more than the tree's " + std::to_string(a.lanes - 1) +
                           " nodes (lanes - 1)",
                       a.lanes > 1 ? "1.." + std::to_string(a.lanes - 1) : "none: one lane has no merge tree"}};
  };
  t->add(std::move(merge_nodes));
  Param<Arch> fma = bool_param<Arch>("fma_contraction", NORMSIM_MEMBER(fma_contraction),
                                     "fused multiply-adds where a GPU compiler contracts them (fp32 only)");
  fma.check = [](const Arch& a) -> std::optional<ParamError> {
    if (a.fma_contraction && a.arithmetic == core::Arithmetic::fixed)
      return ParamError{"", {"applies to 'arithmetic: fp32' only", "false"}};
    return std::nullopt;
  };
  t->add(std::move(fma));

  // A residual workload's adder: where it is and its arithmetic.
  Param<Arch> fuse;
  fuse.key = "fuse";
  fuse.keys = {"fuse"};
  fuse.doc = {{"fuse.mode", "`none` \\| `residual` \\| `residual_dropout`", "none", "",
               "where a residual workload's sum z = dropout(x) + r is made: a separate adder through DRAM (none), or "
               "this unit, reading x and r (and regenerating the dropout mask)"},
              {"fuse.add_format", "`fp32` \\| a fixed format `{bits, frac, ...}`", "fp32", "",
               "the adder's arithmetic (fp32: the GPU kernels'; the sum is stored in the input's type)"}};
  fuse.read = [](YamlReader& r, Arch& a) {
    auto fm = r.get_map("fuse");
    if (!fm) return;
    YamlReader m = *fm;
    if (auto v = m.get_choice("mode", {"none", "residual", "residual_dropout"})) a.fuse.mode = *parse_fuse_mode(*v);
    if (m.has("add_format")) {
      if (m.is_map("add_format")) {
        a.fuse.add.fixed = true;
        a.fuse.add.format = parse_format(*m.get_map("add_format"), core::Rounding::half_even, core::Overflow::saturate);
      } else if (m.get_string("add_format") != "fp32") {
        m.fail("add_format", "expected fp32 or a fixed-point format mapping", "fp32, {bits: 1..64, frac: 0..bits, ...}");
      }
    }
    m.finish({"mode", "add_format"});
  };
  fuse.echo = [](const Arch& a) {
    return nlohmann::json{{"mode", std::string(to_string(a.fuse.mode))},
                          {"add_format", a.fuse.add.fixed ? format_json(a.fuse.add.format) : nlohmann::json("fp32")}};
  };
  fuse.unit_of = [](const std::string& sub) -> std::string {
    return sub == "add_format.bits" || sub == "add_format.frac" ? "bits" : "";
  };
  t->add(std::move(fuse));

  // The timing model: absent, an arch reports numerics only.
  Param<Arch> asic;
  asic.key = "asic";
  asic.keys = {"asic"};
  asic.section = true;
  asic.doc = asic_params().document("asic");
  asic.read = [](YamlReader& r, Arch& a) {
    if (auto m = r.get_map("asic")) {
      a.asic.emplace();
      asic_params().read(*m, *a.asic);
    }
  };
  asic.check = [](const Arch& a) -> std::optional<ParamError> {
    if (!a.asic) return std::nullopt;
    if (auto e = asic_params().check(*a.asic)) return e;
    return std::nullopt;
  };
  asic.echo = [](const Arch& a) { return a.asic ? asic_params().echo(*a.asic) : nlohmann::json(); };
  asic.unit_of = [](const std::string& sub) { return asic_params().unit_of(sub); };
  t->add(std::move(asic));
  // A fixed-point RSQRT unit takes a cycle each for the leading-zero
  // normalise and the table seed, its own stages (a Newton unit's: the
  // linear seed's multiply-add, every step) and the output rounding, after
  // its input register (its kind's stages()): its latency cannot be less.
  Param<Arch> rsqrt_latency;
  rsqrt_latency.read = [](YamlReader&, Arch&) {};
  rsqrt_latency.check = [](const Arch& a) -> std::optional<ParamError> {
    if (!a.asic || a.arithmetic != core::Arithmetic::fixed) return std::nullopt;
    const int need = a.rsqrt.stages() + 1;
    if (a.asic->rsqrt.latency_cycles < need)
      return ParamError{"asic.rsqrt.latency_cycles",
                        {"value " + std::to_string(a.asic->rsqrt.latency_cycles) + " is below the RSQRT unit's " +
                             std::to_string(need) + " cycles (its input register, normalise and seed, " +
                             a.rsqrt.kind().stage_names(a.rsqrt) + ", round)",
                         std::to_string(need) + "..10000"}};
    return std::nullopt;
  };
  t->add(std::move(rsqrt_latency));
  // The RSQRT unit's own constraints on the rsqrt section's other keys.
  Param<Arch> rsqrt_unit;
  rsqrt_unit.read = [](YamlReader&, Arch&) {};
  rsqrt_unit.check = [](const Arch& a) -> std::optional<ParamError> {
    if (a.arithmetic != core::Arithmetic::fixed) return std::nullopt;
    const auto r = a.rsqrt.refusal();
    if (!r) return std::nullopt;
    return ParamError{"rsqrt." + r->key,
                      {"value " + r->value + ": " + r->why + " (rsqrt.unit " + std::string(a.rsqrt.kind().name) + ")", r->allowed}};
  };
  t->add(std::move(rsqrt_unit));
  return t;
}

}  // namespace

std::string_view to_string(FuseMode m) {
  switch (m) {
    case FuseMode::none: return "none";
    case FuseMode::residual: return "residual";
    case FuseMode::residual_dropout: return "residual_dropout";
  }
  return "none";
}

std::optional<FuseMode> parse_fuse_mode(std::string_view s) {
  if (s == "none") return FuseMode::none;
  if (s == "residual") return FuseMode::residual;
  if (s == "residual_dropout") return FuseMode::residual_dropout;
  return std::nullopt;
}

const ParamTable<Arch>& arch_params() {
  static const std::shared_ptr<const ParamTable<Arch>> t = make_arch_params();
  return *t;
}

namespace {
// An arch without an `asic` section has no timing model: a --set of one of
// its keys would build one silently from the defaults. Refused (a whole
// `arch.asic={...}` mapping given on purpose is not).
void apply_arch_overrides(YamlReader& r, const std::string& file, const std::vector<Override>& overrides) {
  const bool has_asic = r.has("asic");
  for (const auto& o : overrides) {
    if (o.target != "arch") continue;
    if (!has_asic && o.path.size() > 1 && o.path[0] == "asic")
      throw ConfigError(format_config_error("--set", 0, o.text,
                                            file + " has no 'asic' section (no timing model) to override",
                                            "an arch with an asic section, e.g. --arch asic-default"));
    r.apply(o);
  }
}
}  // namespace

Arch parse_arch_text(const std::string& text, const std::string& file, const std::vector<Override>& overrides, bool digest) {
  YamlReader r = YamlReader::from_text(text, file);
  apply_arch_overrides(r, file, overrides);
  Arch a;
  a.source = file;
  if (digest) a.sha256 = core::sha256_hex(r.emit());
  a.set_by = r.set_by();
  arch_params().read(r, a);
  return a;
}

Arch load_arch(const std::string& name_or_path, const std::vector<Override>& overrides, bool digest) {
  const ResolvedConfig c = resolve_config(ShippedKind::arch, name_or_path, "--arch");
  Arch a = parse_arch_text(c.text, c.file, overrides, digest);
  a.source = c.source;
  return a;
}

std::string arch_yaml_with(const std::string& path, const std::vector<Override>& overrides) {
  YamlReader r = path.empty() ? YamlReader::from_text(embedded::kDefaultArchYaml, embedded::kDefaultArchPath)
                              : [&] {
                                  const ResolvedConfig c = resolve_config(ShippedKind::arch, path, "--arch");
                                  return YamlReader::from_text(c.text, c.file);
                                }();
  apply_arch_overrides(r, path.empty() ? embedded::kDefaultArchPath : path, overrides);
  return r.emit();
}

Arch default_arch(const std::vector<Override>& overrides, bool digest) {
  Arch a = parse_arch_text(embedded::kDefaultArchYaml, embedded::kDefaultArchPath, overrides, digest);
  a.source = std::string("<embedded default: ") + embedded::kDefaultArchPath + ">";
  return a;
}

}  // namespace normsim::config
