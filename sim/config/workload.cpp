#include "sim/config/workload.hpp"

#include <filesystem>

#include "sim/config/embedded_configs.hpp"
#include "sim/config/yaml_reader.hpp"

namespace normsim::config {

namespace {

rng::Distribution parse_distribution(YamlReader m) {
  const auto kind = m.get_choice("kind", {"normal", "uniform", "int8", "cancellation", "constant"});
  if (!kind) m.fail("kind", "missing", "normal, uniform, int8, cancellation, constant");
  rng::Distribution d;
  if (*kind == "normal" || *kind == "cancellation") {
    const bool canc = *kind == "cancellation";
    const double mean = m.get_double("mean").value_or(canc ? 1.0e4 : 0.0);
    const double sigma = m.get_double("sigma").value_or(1.0);
    if (!(sigma > 0)) m.fail("sigma", "must be > 0");
    d = canc ? rng::Distribution::cancellation(mean, sigma) : rng::Distribution::normal(mean, sigma);
    m.finish({"kind", "mean", "sigma"});
  } else if (*kind == "uniform") {
    const double lo = m.get_double("low").value_or(-1.0);
    const double hi = m.get_double("high").value_or(1.0);
    if (!(hi > lo)) m.fail("high", "must be greater than low");
    d = rng::Distribution::uniform(lo, hi);
    m.finish({"kind", "low", "high"});
  } else if (*kind == "int8") {
    const auto lo = m.get_int("low", -128, 127).value_or(-128);
    const auto hi = m.get_int("high", -128, 127).value_or(127);
    if (hi < lo) m.fail("high", "must be >= low");
    d = rng::Distribution::int8_codes(static_cast<int>(lo), static_cast<int>(hi));
    m.finish({"kind", "low", "high"});
  } else {
    const auto v = m.get_double("value");
    if (!v) m.fail("value", "missing for a constant distribution");
    d = rng::Distribution::constant(*v);
    m.finish({"kind", "value"});
  }
  return d;
}

TensorSpec parse_tensor(YamlReader m, bool allow_distribution, std::optional<rng::Distribution>* dist) {
  TensorSpec t;
  const auto dt = m.get_choice("dtype", {"fp32", "bf16", "fp16", "int8"});
  if (dt) t.dtype = *core::parse_elem_type(*dt);
  if (auto s = m.get_double("scale")) {
    if (t.dtype != core::ElemType::int8) m.fail("scale", "only applies to dtype int8");
    if (!(*s > 0)) m.fail("scale", "must be > 0");
    t.scale.scale = *s;
  } else if (t.dtype == core::ElemType::int8) {
    m.fail("scale", "missing: an int8 tensor needs its scale (value = code * scale)");
  }
  if (allow_distribution) {
    if (auto d = m.get_map("distribution")) *dist = parse_distribution(*d);
    m.finish({"dtype", "scale", "distribution"});
  } else {
    m.finish({"dtype", "scale"});
  }
  return t;
}

}  // namespace

Workload parse_workload_text(const std::string& text, const std::string& file, const std::vector<Override>& overrides) {
  YamlReader r = YamlReader::from_text(text, file);
  for (const auto& o : overrides)
    if (o.target == "workload") r.apply(o);
  Workload w;
  w.source = file;
  w.name = r.get_string("name").value_or(std::filesystem::path(file).stem().string());
  const auto norm = r.get_choice("norm", {"layernorm", "rmsnorm"});
  if (!norm) r.fail("norm", "missing", std::string(core::kNormKindNames));
  w.norm = *core::parse_norm_kind(*norm);

  const auto rows = r.get_int("rows", 1, kMaxRows);
  const auto batch = r.get_int("batch", 1, kMaxRows);
  const auto seq = r.get_int("seq", 1, kMaxRows);
  if (rows && (batch || seq)) r.fail("rows", "give either rows or batch and seq, not both");
  if (rows) {
    w.rows = *rows;
  } else if (batch && seq) {
    if (*batch * *seq > kMaxRows) r.fail("seq", "batch * seq exceeds the row limit", "1.." + std::to_string(kMaxRows));
    w.rows = *batch * *seq;
  } else {
    r.fail(batch ? "seq" : "rows", "missing: give rows, or batch and seq");
  }
  const auto hidden = r.get_int("hidden", 1, kMaxHidden);
  if (!hidden) r.fail("hidden", "missing", "1.." + std::to_string(kMaxHidden));
  w.hidden = *hidden;
  w.eps = r.get_double("eps").value_or(1e-5);
  if (!(w.eps > 0)) r.fail("eps", "must be > 0");
  w.seed = static_cast<uint64_t>(r.get_int("seed", 0, INT64_MAX).value_or(0));

  std::optional<rng::Distribution> dist;
  if (auto in = r.get_map("input")) w.input = parse_tensor(*in, true, &dist);
  if (dist) w.input_dist = *dist;
  if (w.input.dtype == core::ElemType::int8 && w.input_dist.kind != rng::Distribution::kInt8 && !dist)
    w.input_dist = rng::Distribution::int8_codes();
  if (w.input_dist.kind == rng::Distribution::kInt8 && w.input.dtype != core::ElemType::int8)
    r.fail("input", "distribution kind int8 needs input dtype int8");
  if (auto out = r.get_map("output")) w.output = parse_tensor(*out, false, nullptr);

  if (auto g = r.get_map("gamma")) w.gamma = parse_distribution(*g);
  if (w.norm == core::NormKind::layernorm) w.beta = rng::Distribution::constant(0.0);
  if (r.has("beta")) {
    if (!r.is_map("beta")) {
      if (r.get_string("beta") != "none") r.fail("beta", "expected a distribution mapping or 'none'");
      w.beta.reset();
    } else {
      w.beta = parse_distribution(*r.get_map("beta"));
    }
  }
  r.finish({"name", "norm", "rows", "batch", "seq", "hidden", "eps", "seed", "input", "output", "gamma", "beta"});
  return w;
}

Workload load_workload(const std::string& path, const std::vector<Override>& overrides) {
  return parse_workload_text(read_config_file(path), path, overrides);
}

Workload default_workload(const std::vector<Override>& overrides) {
  Workload w = parse_workload_text(embedded::kDefaultWorkloadYaml, embedded::kDefaultWorkloadPath, overrides);
  w.source = std::string("<embedded default: ") + embedded::kDefaultWorkloadPath + ">";
  return w;
}

}  // namespace normsim::config
