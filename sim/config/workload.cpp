#include "sim/config/workload.hpp"

#include <filesystem>
#include <memory>

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

nlohmann::json distribution_json(const rng::Distribution& d) {
  switch (d.kind) {
    case rng::Distribution::kNormal: return {{"kind", "normal"}, {"mean", d.a}, {"sigma", d.b}};
    case rng::Distribution::kCancellation: return {{"kind", "cancellation"}, {"mean", d.a}, {"sigma", d.b}};
    case rng::Distribution::kUniform: return {{"kind", "uniform"}, {"low", d.a}, {"high", d.b}};
    case rng::Distribution::kInt8: return {{"kind", "int8"}, {"low", d.a}, {"high", d.b}};
    case rng::Distribution::kConstant: return {{"kind", "constant"}, {"value", d.a}};
  }
  return {};
}

nlohmann::json tensor_json(const TensorSpec& t) {
  nlohmann::json j = {{"dtype", std::string(core::to_string(t.dtype))}};
  if (t.dtype == core::ElemType::int8) j["scale"] = t.scale.scale;
  return j;
}

// A distribution's keys' units: its values are in the tensor's units.
std::string distribution_unit(const std::string& sub) { return sub == "kind" ? "" : "value units"; }

std::shared_ptr<const ParamTable<Workload>> make_workload_params() {
  auto t = std::make_shared<ParamTable<Workload>>();
  Param<Workload> name;
  name.key = "name";
  name.keys = {"name"};
  name.doc = {{"name", "string", "file name", "", "label in reports"}};
  name.read = [](YamlReader& r, Workload& w) {
    w.name = r.get_string("name").value_or(std::filesystem::path(r.file()).stem().string());
  };
  name.echo = [](const Workload& w) { return nlohmann::json(w.name); };
  t->add(std::move(name));

  Param<Workload> norm = choice_param<Workload>(
      "norm", NORMSIM_MEMBER(norm), {"layernorm", "rmsnorm"}, [](const std::string& v) { return core::parse_norm_kind(v); },
      [](core::NormKind k) { return core::to_string(k); }, "which normalisation");
  norm.doc[0].default_value = "required";
  norm.read = [](YamlReader& r, Workload& w) {
    const auto v = r.get_choice("norm", {"layernorm", "rmsnorm"});
    if (!v) r.fail("norm", "missing", std::string(core::kNormKindNames));
    w.norm = *core::parse_norm_kind(*v);
  };
  t->add(std::move(norm));

  // The rows: given, or batch x seq (a model's tokens).
  Param<Workload> rows;
  rows.key = "rows";
  rows.keys = {"rows", "batch", "seq"};
  rows.unit = "rows";
  rows.doc = {{"rows", "int 1..2^32", "", "rows", "number of rows (tokens); or give `batch` and `seq`"},
              {"batch`, `seq", "int", "", "rows", "rows = batch x seq"}};
  rows.read = [](YamlReader& r, Workload& w) {
    const auto n = r.get_int("rows", 1, kMaxRows);
    const auto batch = r.get_int("batch", 1, kMaxRows);
    const auto seq = r.get_int("seq", 1, kMaxRows);
    if (n && (batch || seq)) r.fail("rows", "give either rows or batch and seq, not both");
    if (n) {
      w.rows = *n;
    } else if (batch && seq) {
      if (*batch * *seq > kMaxRows) r.fail("seq", "batch * seq exceeds the row limit", "1.." + std::to_string(kMaxRows));
      w.rows = *batch * *seq;
    } else {
      r.fail(batch ? "seq" : "rows", "missing: give rows, or batch and seq");
    }
  };
  rows.echo = [](const Workload& w) { return nlohmann::json(w.rows); };
  t->add(std::move(rows));

  Param<Workload> hidden = integer_param<Workload>("hidden", NORMSIM_MEMBER(hidden), 1, kMaxHidden, "elements",
                                                   "row length C (the normalised dimension)", "int 1..2^24");
  hidden.doc[0].default_value = "required";
  hidden.read = [](YamlReader& r, Workload& w) {
    const auto v = r.get_int("hidden", 1, kMaxHidden);
    if (!v) r.fail("hidden", "missing", "1.." + std::to_string(kMaxHidden));
    w.hidden = *v;
  };
  t->add(std::move(hidden));
  t->add(real_param<Workload>("eps", NORMSIM_MEMBER(eps), positive(), "1", "added to the variance before the square root"));
  t->add(integer_param<Workload>("seed", NORMSIM_MEMBER(seed), 0, INT64_MAX, "1",
                                 "seed of the counter-based RNG (`sim/core/counter_rng.hpp`)", "int >= 0"));

  Param<Workload> input;
  input.key = "input";
  input.keys = {"input"};
  input.doc = {{"input.dtype", "`fp32` \\| `bf16` \\| `fp16` \\| `int8`", "fp32", "", "stored input element type"},
               {"input.scale", "> 0", "required for int8", "", "value = code x scale"},
               {"input.distribution", "distribution", "normal(0, 1)", "", "how inputs are generated"}};
  input.read = [](YamlReader& r, Workload& w) {
    std::optional<rng::Distribution> dist;
    if (auto in = r.get_map("input")) w.input = parse_tensor(*in, true, &dist);
    if (dist) w.input_dist = *dist;
    if (w.input.dtype == core::ElemType::int8 && w.input_dist.kind != rng::Distribution::kInt8 && !dist)
      w.input_dist = rng::Distribution::int8_codes();
    if (w.input_dist.kind == rng::Distribution::kInt8 && w.input.dtype != core::ElemType::int8)
      r.fail("input", "distribution kind int8 needs input dtype int8");
  };
  input.echo = [](const Workload& w) { return tensor_json(w.input); };
  input.unit_of = [](const std::string& sub) -> std::string { return sub == "scale" ? "value units" : ""; };
  t->add(std::move(input));

  Param<Workload> output;
  output.key = "output";
  output.keys = {"output"};
  output.doc = {{"output.dtype`, `output.scale", "as input", "fp32", "", "stored output element type"}};
  output.read = [](YamlReader& r, Workload& w) {
    if (auto out = r.get_map("output")) w.output = parse_tensor(*out, false, nullptr);
  };
  output.echo = [](const Workload& w) { return tensor_json(w.output); };
  output.unit_of = input.unit_of;
  t->add(std::move(output));

  Param<Workload> gamma;
  gamma.key = "gamma";
  gamma.keys = {"gamma"};
  gamma.doc = {{"gamma", "distribution", "constant 1", "", "scale parameter, stored as fp32"}};
  gamma.read = [](YamlReader& r, Workload& w) {
    if (auto g = r.get_map("gamma")) w.gamma = parse_distribution(*g);
  };
  gamma.echo = [](const Workload& w) { return distribution_json(w.gamma); };
  gamma.unit_of = distribution_unit;
  t->add(std::move(gamma));

  Param<Workload> beta;
  beta.key = "beta";
  beta.keys = {"beta"};
  beta.doc = {{"beta", "distribution \\| `none`", "constant 0 (LayerNorm), none (RMSNorm)", "", "bias parameter"}};
  beta.read = [](YamlReader& r, Workload& w) {
    if (w.norm == core::NormKind::layernorm) w.beta = rng::Distribution::constant(0.0);
    if (!r.has("beta")) return;
    if (!r.is_map("beta")) {
      if (r.get_string("beta") != "none") r.fail("beta", "expected a distribution mapping or 'none'");
      w.beta.reset();
    } else {
      w.beta = parse_distribution(*r.get_map("beta"));
    }
  };
  beta.echo = [](const Workload& w) { return w.beta ? distribution_json(*w.beta) : nlohmann::json("none"); };
  beta.unit_of = distribution_unit;
  t->add(std::move(beta));
  return t;
}

}  // namespace

const ParamTable<Workload>& workload_params() {
  static const std::shared_ptr<const ParamTable<Workload>> t = make_workload_params();
  return *t;
}

nlohmann::json workload_echo(const Workload& w) {
  nlohmann::json j = workload_params().echo(w);
  j["source"] = w.source;
  j["elements"] = w.elements();
  j["input_distribution"] = distribution_json(w.input_dist);  // as generated (an int8 input's default: its codes)
  return j;
}

Workload parse_workload_text(const std::string& text, const std::string& file, const std::vector<Override>& overrides) {
  YamlReader r = YamlReader::from_text(text, file);
  for (const auto& o : overrides)
    if (o.target == "workload") r.apply(o);
  Workload w;
  w.source = file;
  workload_params().read(r, w);
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
