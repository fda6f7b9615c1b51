#include "sim/config/workload.hpp"

#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>

#include "sim/config/embedded_configs.hpp"
#include "sim/config/param_table.hpp"
#include "sim/config/shipped_configs.hpp"
#include "sim/config/yaml_reader.hpp"
#include "sim/core/llm_activation.hpp"
#include "sim/core/npy_input.hpp"
#include "sim/core/sha256.hpp"

namespace normsim::config {

namespace {

// The largest magnitude a tensor of `t` holds (int8: none here; its codes
// saturate and are counted).
double max_finite(core::ElemType t) {
  switch (t) {
    case core::ElemType::fp16: return 65504.0;
    case core::ElemType::bf16: return 0x1.fep127;
    case core::ElemType::fp32: return 0x1.fffffep127;
    case core::ElemType::int8: return std::numeric_limits<double>::infinity();
  }
  return 0x1.fffffep127;
}

// A distribution whose values are stored as `t` (gamma and beta: fp32): its
// location and bounds must be finite in `t`, or every element would be Inf.
rng::Distribution parse_distribution(YamlReader m, core::ElemType t = core::ElemType::fp32) {
  const double limit = max_finite(t);
  const auto finite_in_t = [&](const char* key, double v) {
    if (std::fabs(v) > limit)
      m.fail(key, "value " + format_number(v) + " is not finite in " + std::string(core::to_string(t)),
             "|" + std::string(key) + "| <= " + format_number(limit));
  };
  const auto kind = m.get_choice("kind", {"normal", "uniform", "int8", "cancellation", "constant"});
  if (!kind) m.fail("kind", "missing", "normal, uniform, int8, cancellation, constant");
  rng::Distribution d;
  if (*kind == "normal" || *kind == "cancellation") {
    const bool canc = *kind == "cancellation";
    const double mean = m.get_double("mean").value_or(canc ? 1.0e4 : 0.0);
    const double sigma = m.get_double("sigma").value_or(1.0);
    if (!(sigma > 0)) m.fail("sigma", "must be > 0");
    finite_in_t("mean", mean);
    finite_in_t("sigma", sigma);
    d = canc ? rng::Distribution::cancellation(mean, sigma) : rng::Distribution::normal(mean, sigma);
    m.finish({"kind", "mean", "sigma"});
  } else if (*kind == "uniform") {
    const double lo = m.get_double("low").value_or(-1.0);
    const double hi = m.get_double("high").value_or(1.0);
    if (!(hi > lo)) m.fail("high", "must be greater than low");
    finite_in_t("low", lo);
    finite_in_t("high", hi);
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
    finite_in_t("value", *v);
    d = rng::Distribution::constant(*v);
    m.finish({"kind", "value"});
  }
  return d;
}

// `{kind: llm, ...}`: the LLM-activation model's parameters (llm_activation.hpp).
core::LlmActivation parse_llm(YamlReader m) {
  core::LlmActivation p;
  if (auto v = m.get_double("sigma")) p.sigma = *v;
  if (!(p.sigma > 0) || !std::isfinite(p.sigma)) m.fail("sigma", "must be a finite number > 0");
  if (auto v = m.get_double("channel_spread")) p.channel_spread = *v;
  if (!(p.channel_spread >= 0 && p.channel_spread <= 5)) m.fail("channel_spread", "out of range", "[0, 5]");
  if (auto v = m.get_int("outlier_channels", 0, kMaxHidden)) p.outlier_channels = *v;
  if (auto v = m.get_double("outlier_scale")) p.outlier_scale = *v;
  if (!(p.outlier_scale >= 1 && p.outlier_scale <= 1e6)) m.fail("outlier_scale", "out of range", "[1, 1e6]");
  if (auto v = m.get_int("massive_channels", 0, kMaxHidden)) p.massive_channels = *v;
  if (auto v = m.get_double("massive_ratio")) p.massive_ratio = *v;
  if (!(p.massive_ratio >= 1 && p.massive_ratio <= 1e9)) m.fail("massive_ratio", "out of range", "[1, 1e9]");
  if (auto v = m.get_int("massive_every", 0, kMaxRows)) p.massive_every = *v;
  m.finish({"kind", "sigma", "channel_spread", "outlier_channels", "outlier_scale", "massive_channels", "massive_ratio",
            "massive_every"});
  return p;
}

nlohmann::json llm_json(const core::LlmActivation& p) {
  return {{"kind", "llm"},
          {"sigma", p.sigma},
          {"channel_spread", p.channel_spread},
          {"outlier_channels", p.outlier_channels},
          {"outlier_scale", p.outlier_scale},
          {"massive_channels", p.massive_channels},
          {"massive_ratio", p.massive_ratio},
          {"massive_every", p.massive_every}};
}

// dtype and scale of a tensor (keys read, not finished).
TensorSpec parse_tensor_type(YamlReader& m) {
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
  return t;
}

TensorSpec parse_tensor(YamlReader m, bool allow_distribution, std::optional<rng::Distribution>* dist) {
  TensorSpec t = parse_tensor_type(m);
  if (allow_distribution) {
    if (auto d = m.get_map("distribution")) *dist = parse_distribution(*d, t.dtype);
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

// A second tensor of the input's shape read from a .npy (residual.file,
// backward.dy.file), relative to the workload file; `m.dtype`, if given,
// must be the file's. Floating-point only.
std::shared_ptr<core::NpyRowInput> input_shaped_npy(const YamlReader& r, YamlReader& m, const std::string& file,
                                                    const Workload& w, const std::string& section, core::ElemType declared) {
  const std::filesystem::path rel(file);
  const std::filesystem::path full =
      rel.is_absolute() || r.file().empty() || r.file()[0] == '<' ? rel : std::filesystem::path(r.file()).parent_path() / rel;
  std::shared_ptr<core::NpyRowInput> src;
  try {
    src = std::make_shared<core::NpyRowInput>(full.string());
  } catch (const std::exception& e) {
    m.fail("file", "'" + full.string() + "': " + e.what(), "a .npy of fp32 (<f4), fp16 (<f2) or bf16 bits (<u2)");
  }
  if (src->dtype() == core::ElemType::int8)
    m.fail("file", "'" + full.string() + "' holds int8 codes", "a .npy of fp32 (<f4), fp16 (<f2) or bf16 bits (<u2)");
  if (src->elements() != w.elements())
    m.fail("file", "'" + full.string() + "' holds " + std::to_string(src->elements()) + " values, the input " +
                       std::to_string(w.elements()),
           std::to_string(w.rows) + " x " + std::to_string(w.hidden) + " values");
  if (m.has("dtype") && src->dtype() != declared)
    m.fail("file", "'" + full.string() + "' holds " + std::string(core::to_string(src->dtype())) + " but " + section + ".dtype is " +
                       std::string(core::to_string(declared)),
           section + ".dtype " + std::string(core::to_string(src->dtype())) + ", or no " + section + ".dtype");
  return src;
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
      "norm", NORMSIM_MEMBER(norm), core::kNormKinds.list(), [](const std::string& v) { return core::parse_norm_kind(v); },
      [](core::NormKind k) { return core::to_string(k); }, "which normalisation");
  norm.doc[0].default_value = "required";
  norm.read = [](YamlReader& r, Workload& w) {
    const auto v = r.get_choice("norm", core::kNormKinds.list());
    if (!v) r.fail("norm", "missing", core::kNormKinds.joined());
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
    } else if (batch || seq) {
      r.fail(batch ? "batch" : "seq", std::string("given without ") + (batch ? "seq" : "batch") + ": give rows, or batch and seq");
    } else {
      w.rows = 0;  // inferred from input.file, or refused by the input row
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
  input.doc = {{"input.dtype", "`fp32` \\| `bf16` \\| `fp16` \\| `int8`", "fp32 (a file: its own)", "", "stored input element type"},
               {"input.scale", "> 0", "required for int8", "", "value = code x scale"},
               {"input.distribution", "distribution \\| `{kind: llm, ...}`", "normal(0, 1)", "",
                "how inputs are generated (`llm`: the LLM-activation model, below)"},
               {"input.file", "path to a .npy", "none", "",
                "read the rows from a tensor instead (relative to the workload file; memory-mapped, row by row)"}};
  input.read = [](YamlReader& r, Workload& w) {
    std::optional<rng::Distribution> dist;
    if (auto in = r.get_map("input")) {
      YamlReader m = *in;
      const bool dtype_given = m.has("dtype");
      const auto file = m.get_string("file");
      if (file && m.has("distribution"))
        m.fail("file", "give either input.file or input.distribution, not both");
      std::optional<core::LlmActivation> llm;
      if (auto d = m.get_map("distribution"); d && d->get_string("kind") == std::optional<std::string>("llm"))
        llm = parse_llm(*d);
      // The tensor's dtype and scale (a file's dtype, when not given, is its own).
      if (file) {
        const std::filesystem::path rel(*file);
        const std::filesystem::path full =
            rel.is_absolute() || r.file().empty() || r.file()[0] == '<' ? rel : std::filesystem::path(r.file()).parent_path() / rel;
        std::shared_ptr<core::NpyRowInput> src;
        const std::string dt = m.get_choice("dtype", {"fp32", "bf16", "fp16", "int8"}).value_or("");
        double scale = 1.0;
        if (auto sc = m.get_double("scale")) scale = *sc;
        try {
          src = std::make_shared<core::NpyRowInput>(full.string(), core::Int8Scale{scale});
        } catch (const std::exception& e) {
          m.fail("file", "'" + full.string() + "': " + e.what(),
                 "a .npy of fp32 (<f4), fp16 (<f2), bf16 bits (<u2) or int8 codes (|i1), shape (rows, hidden) or flat");
        }
        const std::string file_dt(core::to_string(src->dtype()));
        if (dtype_given && dt != file_dt)
          m.fail("file", "'" + full.string() + "' holds " + src->descr() + " (" + file_dt + ") but input.dtype is " + dt,
                 "input.dtype " + file_dt + ", or no input.dtype");
        w.input.dtype = src->dtype();
        if (w.input.dtype == core::ElemType::int8) {
          if (!m.has("scale")) m.fail("scale", "missing: an int8 tensor needs its scale (value = code * scale)");
          if (!(scale > 0)) m.fail("scale", "must be > 0");
          w.input.scale.scale = scale;
        } else if (m.has("scale")) {
          m.fail("scale", "only applies to dtype int8");
        }
        // Shape: (rows, hidden), or flat with the rows inferred.
        const auto& sh = src->shape();
        const std::string shape_text = [&] {
          std::string t = "(";
          for (size_t i = 0; i < sh.size(); ++i) t += (i ? ", " : "") + std::to_string(sh[i]);
          return t + (sh.size() == 1 ? ",)" : ")");
        }();
        const std::string where = "'" + full.string() + "' of shape " + shape_text;
        if (sh.size() == 2 && sh[1] != w.hidden)
          m.fail("file", where + " has rows of " + std::to_string(sh[1]) + " but hidden is " + std::to_string(w.hidden),
                 "shape (rows, " + std::to_string(w.hidden) + ")");
        if (sh.size() != 1 && sh.size() != 2)
          m.fail("file", where + " is neither (rows, hidden) nor flat", "shape (rows, " + std::to_string(w.hidden) + ") or (rows * hidden,)");
        if (src->elements() == 0 || src->elements() % w.hidden != 0)
          m.fail("file", where + " holds " + std::to_string(src->elements()) + " values, not a whole number of rows of " +
                             std::to_string(w.hidden), "a positive multiple of hidden");
        const int64_t rows = src->elements() / w.hidden;
        if (w.rows == 0) {
          if (rows > kMaxRows) m.fail("file", where + ": " + std::to_string(rows) + " rows", "1.." + std::to_string(kMaxRows));
          w.rows = rows;
        } else if (rows != w.rows) {
          m.fail("file", where + " holds " + std::to_string(rows) + " rows but the workload has " + std::to_string(w.rows),
                 "rows " + std::to_string(rows) + ", or no rows (inferred from the file)");
        }
        w.input_source = std::move(src);
        m.finish({"dtype", "scale", "file"});
      } else if (llm) {
        w.input = parse_tensor_type(m);
        w.input_source = std::make_shared<core::LlmActivationInput>(*llm, w.seed, w.hidden);
        m.finish({"dtype", "scale", "distribution"});
      } else {
        w.input = parse_tensor(m, true, &dist);
      }
    }
    if (w.rows == 0) r.fail("rows", "missing: give rows, or batch and seq (or an input.file to infer them from)");
    if (dist) w.input_dist = *dist;
    if (w.input.dtype == core::ElemType::int8 && w.input_dist.kind != rng::Distribution::kInt8 && !dist && !w.input_source)
      w.input_dist = rng::Distribution::int8_codes();
    if (w.input_dist.kind == rng::Distribution::kInt8 && w.input.dtype != core::ElemType::int8)
      r.fail("input", "distribution kind int8 needs input dtype int8");
  };
  input.echo = [](const Workload& w) {
    nlohmann::json j = tensor_json(w.input);
    if (auto f = std::dynamic_pointer_cast<const core::NpyRowInput>(w.input_source)) j["file"] = f->path();
    return j;
  };
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

  // A residual stream added before the norm (docs/ASIC.md, "Fusion").
  Param<Workload> residual;
  residual.key = "residual";
  residual.keys = {"residual"};
  residual.doc = {
      {"residual", "mapping", "none", "", "a residual stream r: the norm takes z = dropout(x) + r, stored in the input's type"},
      {"residual.dtype", "`fp32` \\| `bf16` \\| `fp16`", "the input's", "", "stored type of r"},
      {"residual.distribution", "distribution", "normal(0, 1)", "", "how r is generated"},
      {"residual.file", "path to a .npy", "none", "", "read r from a tensor of the input's shape instead"},
      {"residual.dropout", "0 <= p < 1", "0", "1", "drop probability on the branch x (the mask: `sim/core/dropout_mask.hpp`); a backward writes the branch's gradient dz mask / (1 - p) beside dz"},
      {"residual.write_sum", "bool", "false", "", "the workload keeps z in DRAM (training saves it); a backward reads the kept z, else re-makes it from x and r"},
      {"residual.dataflow", "`post_norm` \\| `pre_norm`", "post_norm", "",
       "pre_norm: z is the next block's residual stream and always written"}};
  residual.read = [](YamlReader& r, Workload& w) {
    auto rm = r.get_map("residual");
    if (!rm) return;
    YamlReader m = *rm;
    if (w.input.dtype == core::ElemType::int8)
      m.fail("dtype", "a residual sum is stored in the input's type, and input.dtype is int8",
             "input.dtype fp32, bf16 or fp16 with a residual");
    core::ResidualSpec spec;
    spec.tensor.dtype = w.input.dtype;
    if (auto dt = m.get_choice("dtype", {"fp32", "bf16", "fp16"})) spec.tensor.dtype = *core::parse_elem_type(*dt);
    const auto file = m.get_string("file");
    if (file && m.has("distribution")) m.fail("file", "give either residual.file or residual.distribution, not both");
    if (auto d = m.get_map("distribution")) spec.dist = parse_distribution(*d, spec.tensor.dtype);
    if (file) {
      auto src = input_shaped_npy(r, m, *file, w, "residual", spec.tensor.dtype);
      spec.tensor.dtype = src->dtype();
      spec.source = std::move(src);
    }
    if (auto p = m.get_double("dropout")) {
      if (!(*p >= 0 && *p < 1)) m.fail("dropout", "value " + format_number(*p) + " is not a drop probability", "0 <= p < 1");
      spec.dropout_p = *p;
    }
    if (auto df = m.get_choice("dataflow", {"post_norm", "pre_norm"}))
      spec.dataflow = *df == "pre_norm" ? core::Dataflow::pre_norm : core::Dataflow::post_norm;
    if (auto ws = m.get_bool("write_sum")) {
      if (!*ws && spec.dataflow == core::Dataflow::pre_norm)
        m.fail("write_sum", "false, but pre_norm's sum is the next block's residual stream: it is always written",
               "true, or no write_sum");
      spec.write_sum = *ws;
    }
    m.finish({"dtype", "distribution", "file", "dropout", "write_sum", "dataflow"});
    w.residual = std::move(spec);
  };
  residual.echo = [](const Workload& w) -> nlohmann::json {
    if (!w.residual) return nlohmann::json("none");
    const core::ResidualSpec& s = *w.residual;
    nlohmann::json j = {{"dtype", std::string(core::to_string(s.tensor.dtype))}};
    if (auto f = std::dynamic_pointer_cast<const core::NpyRowInput>(s.source)) j["file"] = f->path();
    else j["distribution"] = distribution_json(s.dist);
    j["dropout"] = s.dropout_p;
    j["write_sum"] = s.sum_written();
    j["dataflow"] = s.dataflow == core::Dataflow::pre_norm ? "pre_norm" : "post_norm";
    return j;
  };
  residual.unit_of = [](const std::string& sub) -> std::string {
    if (sub == "dropout") return "1";
    return sub.rfind("distribution.", 0) == 0 && sub != "distribution.kind" ? "value units" : "";
  };
  t->add(std::move(residual));

  // The backward pass (docs/ASIC.md, "Backward"): dx, dgamma, dbeta from dy.
  Param<Workload> pass;
  pass.key = "pass";
  pass.keys = {"pass"};
  pass.doc = {{"pass", "`forward` \\| `backward`", "forward", "",
               "backward: dx, dgamma and dbeta from dy and the forward's saved mean and rstd (computed by normsim's forward of the same x)"}};
  pass.read = [](YamlReader& r, Workload& w) {
    if (auto v = r.get_choice("pass", core::kPasses.list())) w.pass = *core::kPasses.parse(*v);
  };
  pass.echo = [](const Workload& w) { return nlohmann::json(std::string(core::kPasses.name(w.pass))); };
  pass.check = [](const Workload& w) -> std::optional<ParamError> {
    if (!w.is_backward()) return std::nullopt;
    if (w.input.dtype == core::ElemType::int8)
      return ParamError{"", {"pass backward with input.dtype int8: the backward reads x as the forward stored it in a float type",
                             "input.dtype fp32, bf16 or fp16"}};
    if (w.output.dtype == core::ElemType::int8)
      return ParamError{"", {"pass backward with output.dtype int8: dx is stored in a float type", "output.dtype fp32, bf16 or fp16"}};
    return std::nullopt;
  };
  t->add(std::move(pass));

  // A fused Post-Norm backward (docs/ASIC.md, "Backward"): dz from the
  // forward's z; a Pre-Norm block's backward would add the next block's
  // gradient to dz, another stream this unit does not take.
  Param<Workload> residual_backward;
  residual_backward.read = [](YamlReader&, Workload&) {};
  residual_backward.check = [](const Workload& w) -> std::optional<ParamError> {
    if (!w.is_backward() || !w.residual || w.residual->dataflow == core::Dataflow::post_norm) return std::nullopt;
    return ParamError{"residual.dataflow",
                      {"pre_norm with pass backward: a Pre-Norm block's backward adds the next block's gradient to dz, which is not modelled",
                       "post_norm, or pass: forward"}};
  };
  t->add(std::move(residual_backward));

  Param<Workload> backward;
  backward.key = "backward";
  backward.keys = {"backward"};
  backward.doc = {{"backward.dy", "mapping", "normal(0, 1) in the output's type", "", "the upstream gradient dy (pass: backward)"},
                  {"backward.dy.dtype", "`fp32` \\| `bf16` \\| `fp16`", "the output's", "", "dy's stored type"},
                  {"backward.dy.distribution", "distribution", "normal(0, 1)", "", "how dy is generated (the counter RNG's gradient stream)"},
                  {"backward.dy.file", "path to a .npy", "none", "", "read dy from a tensor of the input's shape instead"}};
  backward.read = [](YamlReader& r, Workload& w) {
    w.backward.dy.dtype = w.output.dtype == core::ElemType::int8 ? core::ElemType::fp32 : w.output.dtype;
    auto bm = r.get_map("backward");
    if (!bm) return;
    if (!w.is_backward()) r.fail("backward", "given, but the workload's pass is forward", "pass: backward, or no backward");
    YamlReader b = *bm;
    if (auto dm = b.get_map("dy")) {
      YamlReader m = *dm;
      if (auto dt = m.get_choice("dtype", {"fp32", "bf16", "fp16"})) w.backward.dy.dtype = *core::parse_elem_type(*dt);
      const auto file = m.get_string("file");
      if (file && m.has("distribution")) m.fail("file", "give either backward.dy.file or backward.dy.distribution, not both");
      if (auto d = m.get_map("distribution")) w.backward.dist = parse_distribution(*d, w.backward.dy.dtype);
      if (file) {
        auto src = input_shaped_npy(r, m, *file, w, "backward.dy", w.backward.dy.dtype);
        w.backward.dy.dtype = src->dtype();
        w.backward.source = std::move(src);
      }
      m.finish({"dtype", "distribution", "file"});
    }
    b.finish({"dy"});
  };
  backward.echo = [](const Workload& w) -> nlohmann::json {
    if (!w.is_backward()) return nlohmann::json("none");
    nlohmann::json dy = {{"dtype", std::string(core::to_string(w.backward.dy.dtype))}};
    if (auto f = std::dynamic_pointer_cast<const core::NpyRowInput>(w.backward.source)) dy["file"] = f->path();
    else dy["distribution"] = distribution_json(w.backward.dist);
    return nlohmann::json{{"dy", dy}};
  };
  backward.unit_of = [](const std::string& sub) -> std::string {
    return sub.rfind("dy.distribution.", 0) == 0 && sub != "dy.distribution.kind" ? "value units" : "";
  };
  t->add(std::move(backward));
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
  // As generated (an int8 input's default: its codes), or where the rows come from.
  if (auto f = std::dynamic_pointer_cast<const core::NpyRowInput>(w.input_source)) {
    j["input_distribution"] = {{"kind", "file"}, {"path", f->path()}, {"descr", f->descr()}, {"shape", f->shape()}};
  } else if (auto l = std::dynamic_pointer_cast<const core::LlmActivationInput>(w.input_source)) {
    j["input_distribution"] = llm_json(l->params());
    j["input_distribution"]["outlier_channel_indices"] = l->outlier_channels();
    j["input_distribution"]["massive_channel_indices"] = l->massive_channels();
  } else {
    j["input_distribution"] = distribution_json(w.input_dist);
  }
  return j;
}

Workload parse_workload_text(const std::string& text, const std::string& file, const std::vector<Override>& overrides, bool digest) {
  YamlReader r = YamlReader::from_text(text, file);
  for (const auto& o : overrides) {
    if (o.target != "workload") continue;
    // rows and batch x seq say the same thing: an override of one replaces the other.
    if (o.path == std::vector<std::string>{"rows"}) {
      r.erase("batch", o);
      r.erase("seq", o);
    } else if (o.path == std::vector<std::string>{"batch"} || o.path == std::vector<std::string>{"seq"}) {
      r.erase("rows", o);
    }
    r.apply(o);
  }
  Workload w;
  w.source = file;
  if (digest) w.sha256 = core::sha256_hex(r.emit());
  w.set_by = r.set_by();
  workload_params().read(r, w);
  return w;
}

Workload load_workload(const std::string& name_or_path, const std::vector<Override>& overrides, bool digest) {
  const ResolvedConfig c = resolve_config(ShippedKind::workload, name_or_path, "workload");
  Workload w = parse_workload_text(c.text, c.file, overrides, digest);
  w.source = c.source;
  return w;
}

Workload default_workload(const std::vector<Override>& overrides, bool digest) {
  Workload w = parse_workload_text(embedded::kDefaultWorkloadYaml, embedded::kDefaultWorkloadPath, overrides, digest);
  w.source = std::string("<embedded default: ") + embedded::kDefaultWorkloadPath + ">";
  return w;
}

}  // namespace normsim::config
