#include "sim/asic/rtl_pipeline.hpp"

#include <bit>
#include <chrono>
#include <deque>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <variant>
#include <vector>

#include "sim/asic/port_signal.hpp"
#include "sim/config/config_error.hpp"
#include "sim/core/fixed_units.hpp"
#include "sim/rtl/rtl_config.hpp"

#ifdef NORMSIM_WITH_RTL
#include "Vpipe_ln.h"
#include "Vpipe_ln_shared.h"
#include "Vpipe_rms.h"
#include "normsim_rtl_pipeline_params.hpp"  // the -G parameters the models were built with
#endif

namespace normsim::asic {

namespace {
using core::Fx;
using core::Stage;
const core::FixedFormat& fmt(const core::DatapathConfig& dp, Stage s) { return dp.formats[static_cast<int>(s)]; }
}  // namespace

#ifndef NORMSIM_WITH_RTL

std::string rtl_pipeline_mismatch(const config::Arch&, const core::DatapathConfig&) {
  return "this normsim was built without Verilator (tools/bootstrap.sh installs it; rebuild)";
}
struct RtlPipeline::Impl {};
struct RtlPipeline::Driver {};
RtlPipeline::RtlPipeline(const config::Arch&, const core::DatapathConfig&, std::span<const float>, std::span<const float>) {
  throw config::ConfigError("--rtl: " + rtl_pipeline_mismatch({}, {}));
}
RtlPipeline::~RtlPipeline() = default;
void RtlPipeline::post_stats(int64_t, std::span<const double>, const core::RowState&) {}
void RtlPipeline::post_normalize(int64_t, std::span<const double>, const core::RowState&, std::span<const double>) {}

#else

namespace {
// The verilated pipelines: LayerNorm on the dedicated tree and on one shared
// merge unit, RMSNorm on the dedicated tree, all at kRtlPipelineArch.
enum class BuiltPipeline { ln, ln_shared, rms };
struct Built {
  BuiltPipeline id;
  bool rms;
  const char* params;
};
constexpr Built kBuilt[] = {{BuiltPipeline::ln, false, kRtlPipelineParamsLn},
                            {BuiltPipeline::ln_shared, false, kRtlPipelineParamsLnShared},
                            {BuiltPipeline::rms, true, kRtlPipelineParamsRms}};

std::string merge_units_text(const std::string& value) { return value == "0" ? "lanes - 1 (the dedicated tree)" : value; }

// The one command that builds a normsim whose RTL is verilated at `arch`
// (CMake's NORMSIM_RTL_ARCH), in a build folder of its own.
std::string rebuild_command(const config::Arch& arch) {
  namespace fs = std::filesystem;
  std::string file = arch.source;
  const std::string shipped = "<shipped: ";
  if (file.rfind(shipped, 0) == 0) file = std::string(NORMSIM_SOURCE_DIR) + "/" + file.substr(shipped.size(), file.size() - shipped.size() - 1);
  std::error_code ec;
  if (fs::exists(file, ec)) file = fs::absolute(file, ec).string();
  const std::string dir = std::string(NORMSIM_SOURCE_DIR) + "/build-rtl-" + arch.name;
  return "cmake -S " + std::string(NORMSIM_SOURCE_DIR) + " -B " + dir + " -G Ninja -DNORMSIM_RTL_ARCH=" + file +
         " && cmake --build " + dir + " --target normsim, then " + dir + "/normsim run --rtl";
}

// The built pipeline for the arch, or why none is (naming the key that differs).
std::variant<BuiltPipeline, std::string> built_pipeline(const config::Arch& arch, const core::DatapathConfig& dp) {
  if (dp.arithmetic != core::Arithmetic::fixed) return "key 'arithmetic': the RTL is fixed point (allowed: fixed)";
  if (dp.kind == core::NormKind::layernorm && dp.algorithm != core::VarianceAlgorithm::welford)
    return "the RTL's LayerNorm lanes are Welford lanes (allowed: --algorithm welford)";
  if (dp.hidden > kRtlPipelineMaxHidden)
    return "rows of " + std::to_string(dp.hidden) + " exceed the RTL's 1/n table (hidden <= " +
           std::to_string(kRtlPipelineMaxHidden) + ")";
  const bool rms = dp.kind == core::NormKind::rmsnorm;
  std::string want;
  try {
    want = rtl::pipeline_parameters(arch, rms, kRtlPipelineMaxHidden);
  } catch (const std::exception& e) {
    const std::string m = e.what(), prefix = arch.source + ": ";
    return m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m;
  }
  std::vector<std::string> merge_units_built;
  const Built* first = nullptr;
  for (const Built& b : kBuilt) {
    if (b.rms != rms) continue;
    if (want == b.params) return b.id;
    if (!first) first = &b;
    const std::string line = std::string(b.params).substr(std::string(b.params).find("-GMERGE_UNITS="));
    merge_units_built.push_back(merge_units_text(line.substr(14, line.find('\n') - 14)));
  }
  // Name the first parameter that differs from the first build (the merge
  // units last: they are the one thing the builds differ in).
  std::istringstream a(want), b(first->params);
  std::string la, lb, merge_want;
  while (std::getline(a, la) && std::getline(b, lb)) {
    const size_t eq = la.find('=');
    const std::string param = la.substr(2, eq - 2);
    if (param == "MERGE_UNITS") {
      merge_want = la.substr(eq + 1);
      continue;
    }
    if (la != lb) {
      // "-GMW=32" -> formats.mean.bits = 32
      const std::string key = rtl::parameter_key(param);
      return "key '" + key + "': the RTL was built with " + key + " = " + lb.substr(eq + 1) + " (" + kRtlPipelineArch +
             "), this arch has " + la.substr(eq + 1) + " (allowed: the built arch's value, or a normsim verilated at this arch: " +
             rebuild_command(arch) + ")";
    }
  }
  std::string allowed;
  for (const auto& v : merge_units_built) allowed += (allowed.empty() ? "" : " or ") + v;
  return "key 'merge.units': the RTL " + std::string(rms ? "RMSNorm" : "LayerNorm") + " pipeline was built with merge.units = " + allowed +
         ", this arch has " + merge_units_text(merge_want) + " (allowed: " + allowed + ")";
}
}  // namespace

std::string rtl_pipeline_mismatch(const config::Arch& arch, const core::DatapathConfig& dp) {
  const auto b = built_pipeline(arch, dp);
  return std::holds_alternative<std::string>(b) ? std::get<std::string>(b) : std::string();
}

namespace {
uint64_t word(Fx v, const core::FixedFormat& f) { return core::to_word(v, f.total_bits); }

// Writes `bits` (width w) at bit `lo` of a port's signal, whatever its C++ type.
template <class T>
void put_bits(T& v, int lo, int w, uint64_t bits) {
  if constexpr (std::is_same_v<T, bool>) {
    v = bits & 1;
  } else if constexpr (std::is_integral_v<T>) {
    const uint64_t mask = w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
    v = static_cast<T>((static_cast<uint64_t>(v) & ~(mask << lo)) | ((bits & mask) << lo));
  } else {
    v.range(lo + w - 1, lo) = bits;
  }
}
template <class T>
uint64_t get_bits(const T& v, int lo, int w) {
  if constexpr (std::is_integral_v<T>) {
    const uint64_t mask = w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
    return (static_cast<uint64_t>(v) >> lo) & mask;
  } else {
    return v.range(lo + w - 1, lo).to_uint64();
  }
}
}  // namespace

struct RtlPipeline::Impl {
  virtual ~Impl() = default;
  virtual void tick() = 0;
  // stats side
  virtual void start(bool) = 0;
  virtual void beat(bool valid, const std::vector<uint64_t>& x, uint32_t mask) = 0;
  virtual bool stats_valid() const = 0;
  virtual uint64_t mean() const = 0;
  virtual uint64_t variance() const = 0;
  virtual uint64_t rstd() const = 0;
  // normalise side
  virtual void n_beat(bool valid, uint64_t mean, uint64_t rstd, const std::vector<uint64_t>& x,
                      const std::vector<uint64_t>& g, const std::vector<uint64_t>& b) = 0;
  virtual bool y_valid() const = 0;
  virtual uint64_t y(int lane) const = 0;
  virtual void load_constants() = 0;  ///< the row length's constants: 1/C, eps, the tree's coefficients
  core::DatapathConfig dp;
  std::vector<Fx> gamma_q, beta_q;
  Fx eps_q;
};

namespace {
// Adds the wall time spent driving the RTL to `seconds`.
struct Timed {
  double& seconds;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  explicit Timed(double& s) : seconds(s) {}
  ~Timed() { seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
};
}  // namespace

// The thread that drives the RTL's pins: the model's units are methods,
// which cannot wait for the delta cycles a clock edge takes, so they post
// rows here. Rows run in posting order at the time they were posted (the
// queue drains in delta cycles before time moves on), so a slot's buffers
// are copied only for the delta cycles until then.
struct RtlPipeline::Driver : sc_core::sc_module {
  struct Job {
    bool stats = true;
    int64_t row = 0;
    std::vector<double> x, y;
    core::RowState s;
  };
  RtlPipeline& rtl;
  std::deque<Job> jobs;
  sc_core::sc_event posted;
  SC_HAS_PROCESS(Driver);
  Driver(sc_core::sc_module_name n, RtlPipeline& p) : sc_module(n), rtl(p) { SC_THREAD(run); }
  void post(Job j) {
    jobs.push_back(std::move(j));
    posted.notify(sc_core::SC_ZERO_TIME);
  }
  void run() {
    for (;;) {
      while (jobs.empty()) wait(posted);
      Job j = std::move(jobs.front());
      jobs.pop_front();
      if (j.stats) rtl.check_stats(j.row, j.x, j.s);
      else rtl.check_normalize(j.row, j.x, j.s, j.y);
    }
  }
};

void RtlPipeline::post_stats(int64_t row, std::span<const double> x, const core::RowState& s) {
  driver_->post({true, row, {x.begin(), x.end()}, {}, s});
}

void RtlPipeline::post_normalize(int64_t row, std::span<const double> x, const core::RowState& s,
                                 std::span<const double> y) {
  driver_->post({false, row, {x.begin(), x.end()}, {y.begin(), y.end()}, s});
}

namespace {
template <class Model>
struct ModelImpl : RtlPipeline::Impl {
  Model m{"norm_row_pipeline"};
  sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS> clk;
#define NORMSIM_PIN(member, port) decltype(bind_signal(m.port))& member = bind_signal(m.port);
  NORMSIM_PIN(start_, start) NORMSIM_PIN(x_valid, x_valid) NORMSIM_PIN(x_mask, x_mask) NORMSIM_PIN(x, x)
  NORMSIM_PIN(coef, coef) NORMSIM_PIN(recip_c, recip_c) NORMSIM_PIN(c_pow2, c_pow2) NORMSIM_PIN(log2c, log2c)
  NORMSIM_PIN(eps, eps) NORMSIM_PIN(stats_valid_, stats_valid) NORMSIM_PIN(mean_, mean)
  NORMSIM_PIN(variance_, variance) NORMSIM_PIN(rstd_, rstd) NORMSIM_PIN(n_valid, n_valid) NORMSIM_PIN(n_mean, n_mean)
  NORMSIM_PIN(n_rstd, n_rstd) NORMSIM_PIN(n_x, n_x) NORMSIM_PIN(n_gamma, n_gamma) NORMSIM_PIN(n_beta, n_beta)
  NORMSIM_PIN(y_valid_, y_valid) NORMSIM_PIN(y_, y)
#undef NORMSIM_PIN
  ModelImpl() { m.clk(clk); }
  void tick() override {
    // A rising edge in delta cycles: the model evaluates on the first, its
    // registers' outputs are visible after the second.
    clk.write(true);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    clk.write(false);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    sc_core::wait(sc_core::SC_ZERO_TIME);
  }
  template <class Sig>
  static void put(Sig& s, int lo, int w, uint64_t bits) {
    auto v = s.read();
    put_bits(v, lo, w, bits);
    s.write(v);
  }
  void start(bool on) override { start_.write(on); }
  void beat(bool valid, const std::vector<uint64_t>& xs, uint32_t mask) override {
    const int xw = fmt(dp, Stage::input).total_bits;
    auto v = x.read();
    for (size_t i = 0; i < xs.size(); ++i) put_bits(v, static_cast<int>(i) * xw, xw, xs[i]);
    x.write(v);
    put(x_mask, 0, dp.lanes, mask);
    x_valid.write(valid);
  }
  bool stats_valid() const override { return stats_valid_.read(); }
  uint64_t mean() const override { return get_bits(mean_.read(), 0, fmt(dp, Stage::mean).total_bits); }
  uint64_t variance() const override { return get_bits(variance_.read(), 0, fmt(dp, Stage::variance).total_bits); }
  uint64_t rstd() const override { return get_bits(rstd_.read(), 0, fmt(dp, Stage::rsqrt_out).total_bits); }
  void n_beat(bool valid, uint64_t mn, uint64_t rs, const std::vector<uint64_t>& xs, const std::vector<uint64_t>& g,
              const std::vector<uint64_t>& b) override {
    put(n_mean, 0, fmt(dp, Stage::mean).total_bits, mn);
    put(n_rstd, 0, fmt(dp, Stage::rsqrt_out).total_bits, rs);
    const int xw = fmt(dp, Stage::input).total_bits, gw = fmt(dp, Stage::gamma).total_bits,
              bw = fmt(dp, Stage::beta).total_bits;
    auto vx = n_x.read();
    auto vg = n_gamma.read();
    auto vb = n_beta.read();
    for (size_t i = 0; i < xs.size(); ++i) {
      put_bits(vx, static_cast<int>(i) * xw, xw, xs[i]);
      put_bits(vg, static_cast<int>(i) * gw, gw, g[i]);
      put_bits(vb, static_cast<int>(i) * bw, bw, b[i]);
    }
    n_x.write(vx);
    n_gamma.write(vg);
    n_beta.write(vb);
    n_valid.write(valid);
  }
  bool y_valid() const override { return y_valid_.read(); }
  uint64_t y(int lane) const override {
    const int yw = fmt(dp, Stage::output).total_bits;
    return get_bits(y_.read(), lane * yw, yw);
  }
  // Row-length constants: 1/C, C a power of two, eps and each tree node's n_b/n.
  void load_constants() override {
    const auto& rf = fmt(dp, Stage::recip);
    const int64_t C = dp.hidden;
    const int L = dp.lanes;
    put(recip_c, 0, rf.total_bits, word(core::make_recip_table(C, rf)[static_cast<size_t>(C)], rf));
    c_pow2.write((C & (C - 1)) == 0);
    put(log2c, 0, 6, static_cast<uint64_t>(std::countr_zero(static_cast<uint64_t>(C))));
    put(eps, 0, fmt(dp, Stage::rsqrt_in).total_bits, word(eps_q, fmt(dp, Stage::rsqrt_in)));
    std::vector<int64_t> n(static_cast<size_t>(L));
    for (int i = 0; i < L; ++i) n[static_cast<size_t>(i)] = (C - i + L - 1) / L;
    int node = 0;
    for (int width = L; width > 1; width /= 2)
      for (int k = 0; k < width / 2; ++k, ++node) {
        const int64_t na = n[static_cast<size_t>(2 * k)], nb = n[static_cast<size_t>(2 * k + 1)];
        const Fx c = na + nb > 0 ? core::merge_coefficient(na, nb, rf) : Fx{0, rf.frac_bits};
        put(coef, node * rf.total_bits, rf.total_bits, word(c, rf));
        n[static_cast<size_t>(k)] = na + nb;
      }
  }
};

std::string row_message(int64_t row, const std::string& what) {
  return "--rtl: row " + std::to_string(row) + ": " + what;
}
}  // namespace

RtlPipeline::RtlPipeline(const config::Arch& arch, const core::DatapathConfig& dp, std::span<const float> gamma,
                         std::span<const float> beta) {
  if (auto why = rtl_pipeline_mismatch(arch, dp); !why.empty()) throw config::ConfigError(arch.source + ": --rtl: " + why);
  std::unique_ptr<Impl> impl;
  auto make = [&]<class Model>() {
    auto m = std::make_unique<ModelImpl<Model>>();
    m->dp = dp;
    impl = std::move(m);
  };
  const BuiltPipeline which = std::get<BuiltPipeline>(built_pipeline(arch, dp));
  switch (which) {
    case BuiltPipeline::ln: make.template operator()<Vpipe_ln>(); break;
    case BuiltPipeline::ln_shared: make.template operator()<Vpipe_ln_shared>(); break;
    case BuiltPipeline::rms: make.template operator()<Vpipe_rms>(); break;
  }
  core::StageCounters scratch;
  for (float g : gamma) impl->gamma_q.push_back(core::quantize_stage(core::exact_from_double(g), Stage::gamma, dp.formats, scratch));
  for (float b : beta) impl->beta_q.push_back(core::quantize_stage(core::exact_from_double(b), Stage::beta, dp.formats, scratch));
  impl->eps_q = core::quantize(dp.eps, fmt(dp, Stage::rsqrt_in));
  impl->load_constants();
  impl_ = std::move(impl);
  driver_ = std::make_unique<Driver>("rtl_driver", *this);
}

RtlPipeline::~RtlPipeline() = default;

void RtlPipeline::check_stats(int64_t row, std::span<const double> xs, const core::RowState& s) {
  Impl& r = *impl_;
  Timed timed(seconds_);
  const auto& dp = r.dp;
  const int L = dp.lanes;
  const auto& xf = fmt(dp, Stage::input);
  r.start(true);
  r.tick();
  r.start(false);
  ++cycles_;
  std::vector<uint64_t> beat(static_cast<size_t>(L));
  const int64_t C = dp.hidden;
  for (int64_t b = 0; b * L < C; ++b) {
    uint32_t mask = 0;
    for (int i = 0; i < L; ++i) {
      const int64_t e = b * L + i;
      beat[static_cast<size_t>(i)] = e < C ? word(core::quantize(xs[static_cast<size_t>(e)], xf), xf) : 0;
      if (e < C) mask |= 1u << i;
    }
    r.beat(true, beat, mask);
    r.tick();
    ++cycles_;
  }
  r.beat(false, beat, 0);
  int latency = 0;
  while (!r.stats_valid()) {
    if (++latency > 10000) throw std::runtime_error(row_message(row, "the RTL never produced the row's statistics"));
    r.tick();
  }
  cycles_ += latency;
  stats_latency_ = latency;
  const Fx mean = core::from_word(r.mean(), fmt(dp, Stage::mean)), var = core::from_word(r.variance(), fmt(dp, Stage::variance)),
           rstd = core::from_word(r.rstd(), fmt(dp, Stage::rsqrt_out));
  if (mean.raw != s.mean.raw || var.raw != s.var.raw || rstd.raw != s.rstd.raw) {
    std::ostringstream o;
    o << "statistics differ: RTL mean " << static_cast<int64_t>(mean.raw) << " variance " << static_cast<int64_t>(var.raw)
      << " rstd " << static_cast<int64_t>(rstd.raw) << ", model " << static_cast<int64_t>(s.mean.raw) << " "
      << static_cast<int64_t>(s.var.raw) << " " << static_cast<int64_t>(s.rstd.raw) << " (raw)";
    throw std::runtime_error(row_message(row, o.str()));
  }
}

void RtlPipeline::check_normalize(int64_t row, std::span<const double> xs, const core::RowState& s,
                                  std::span<const double> y) {
  Impl& r = *impl_;
  Timed timed(seconds_);
  const auto& dp = r.dp;
  const int L = dp.lanes;
  const int64_t C = dp.hidden;
  const auto& xf = fmt(dp, Stage::input);
  const auto& gf = fmt(dp, Stage::gamma);
  const auto& bf = fmt(dp, Stage::beta);
  const auto& yf = fmt(dp, Stage::output);
  std::vector<uint64_t> bx(static_cast<size_t>(L)), bg(bx), bb(bx);
  const int64_t beats = (C + L - 1) / L;
  int64_t out_beat = 0, t = 0, first_out = -1;
  auto collect = [&] {
    if (!r.y_valid()) return;
    if (first_out < 0) first_out = t;
    for (int i = 0; i < L; ++i) {
      const int64_t e = out_beat * L + i;
      if (e >= C) continue;
      const double got = core::to_double(core::from_word(r.y(i), yf));
      if (got != y[static_cast<size_t>(e)])
        throw std::runtime_error(row_message(row, "y[" + std::to_string(e) + "] differs: RTL " + std::to_string(got) +
                                                      ", model " + std::to_string(y[static_cast<size_t>(e)])));
    }
    ++out_beat;
  };
  const uint64_t mean = word(s.mean, fmt(dp, Stage::mean)), rstd = word(s.rstd, fmt(dp, Stage::rsqrt_out));
  for (int64_t b = 0; b < beats; ++b, ++t) {
    for (int i = 0; i < L; ++i) {
      const int64_t e = b * L + i;
      const size_t k = static_cast<size_t>(i);
      bx[k] = e < C ? word(core::quantize(xs[static_cast<size_t>(e)], xf), xf) : 0;
      bg[k] = e < C ? word(r.gamma_q[static_cast<size_t>(e)], gf) : 0;
      bb[k] = e < C && !r.beta_q.empty() ? word(r.beta_q[static_cast<size_t>(e)], bf) : 0;
    }
    r.n_beat(true, mean, rstd, bx, bg, bb);
    r.tick();
    collect();
  }
  r.n_beat(false, mean, rstd, bx, bg, bb);
  while (out_beat < beats) {
    if (t > beats + 10000) throw std::runtime_error(row_message(row, "the RTL's normalise lanes stopped"));
    r.tick();
    ++t;
    collect();
  }
  cycles_ += t;
  norm_latency_ = static_cast<int>(first_out + 1);
  ++rows_;
}

#endif

}  // namespace normsim::asic
