#include "sim/explore/format_space.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/area/area_energy.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/backward_run.hpp"
#include "sim/core/functional_run.hpp"

namespace normsim::explore {

uint64_t WidthMetrics::overflow_total() const {
  uint64_t n = 0;
  for (uint64_t v : overflows) n += v;
  return n;
}

void WidthMetrics::add_worst(const WidthMetrics& o) {
  max_ulp = std::max(max_ulp, o.max_ulp);
  rel_l2 = std::max(rel_l2, o.rel_l2);
  max_abs = std::max(max_abs, o.max_abs);
  rms = std::max(rms, o.rms);
  frac_within_1ulp = std::min(frac_within_1ulp, o.frac_within_1ulp);
  nonfinite += o.nonfinite;
  if (held.size() < o.held.size()) held.resize(o.held.size());
  for (size_t k = 0; k < o.held.size(); ++k) held[k] = std::max(held[k], o.held[k]);
  if (overflows.size() < o.overflows.size()) overflows.resize(o.overflows.size());
  for (size_t s = 0; s < o.overflows.size(); ++s) overflows[s] += o.overflows[s];
}

namespace {

WidthMetrics metrics_of(const core::ErrorMetrics& er) {
  WidthMetrics m;
  m.max_ulp = er.max_ulp();
  m.rel_l2 = er.rel_l2();
  m.max_abs = er.max_abs();
  m.rms = er.rms();
  m.frac_within_1ulp = er.frac_within_1ulp();
  m.nonfinite = er.nonfinite();
  return m;
}

template <class Array>
SearchFormats to_vector(const Array& a) {
  return SearchFormats(a.begin(), a.end());
}
template <class Array>
Array to_array(const SearchFormats& v) {
  Array a{};
  std::copy(v.begin(), v.end(), a.begin());
  return a;
}

std::string node_of(const config::Arch& a) { return a.asic ? a.asic->node : config::AsicConfig{}.node; }
// The merge (or, in a backward, row-sum) tree's level latency, as `run` costs it.
int merge_level_cycles_of(const config::Arch& a, bool backward) {
  return (a.asic ? *a.asic : config::AsicConfig{}).tree_level_cycles(backward);
}

// The forward datapath's stages.
class ForwardSpace : public FormatSpace {
 public:
  ForwardSpace(const config::Workload& w, const config::Arch& a)
      : arch_(a), node_(node_of(a)), mlc_(merge_level_cycles_of(a, false)) {
    add_problem(w);
    has_beta_ = w.beta.has_value();
    floor_ = core::datapath_output_lsb(dps_[0]);
  }
  std::string key() const override { return "formats"; }
  std::vector<std::string> names() const override {
    std::vector<std::string> n;
    for (int s = 0; s < core::kStageCount; ++s) n.emplace_back(core::to_string(static_cast<core::Stage>(s)));
    return n;
  }
  std::vector<int> used() const override {
    std::vector<int> u;
    for (core::Stage s : core::stages_used(dps_[0].kind, dps_[0].algorithm, has_beta_)) u.push_back(static_cast<int>(s));
    return u;
  }
  SearchFormats of(const config::Arch& a) const override { return to_vector(a.formats); }
  bool yardstick(int slot) const override { return slot == static_cast<int>(core::Stage::output); }
  int min_frac(int slot, const core::FixedFormat& f) const override {
    const auto s = static_cast<core::Stage>(slot);
    const int need = (s == core::Stage::rsqrt_in || s == core::Stage::recip) ? 1 : 0;  // DatapathConfig::validate
    return std::max(need, (f.is_signed ? 2 : 1) - f.int_bits());
  }
  double area_um2(const SearchFormats& f) const override {
    return area::estimate_area(with(0, f), {}, node_, mlc_).datapath_um2;
  }
  std::string invalid(const SearchFormats& f) const override { return with(0, f).validate(); }
  std::string refused(const SearchFormats& f) const override {
    const auto warn = with(0, f).warnings();  // eps rounds to 0: a zero-variance row would saturate rsqrt
    return warn.empty() ? "" : warn.front();
  }
  double ulp_floor() const override { return floor_; }
  int add_problem(const config::Workload& w) override {
    dps_.push_back(config::datapath_config(w, arch_));
    return static_cast<int>(dps_.size()) - 1;
  }
  WidthMetrics measure(int problem, const core::NormProblem& rows, const SearchFormats& f, int threads) const override {
    core::FunctionalOptions fo;
    fo.threads = threads;
    fo.ulp_floor = floor_;
    const core::FunctionalResult r = core::run_functional(rows, with(problem, f), fo);
    WidthMetrics m = metrics_of(r.numerics.output_error);
    m.overflows = to_vector_u64(r.numerics.counters.overflows);
    return m;
  }

 private:
  core::DatapathConfig with(int problem, const SearchFormats& f) const {
    core::DatapathConfig d = dps_[static_cast<size_t>(problem)];
    d.formats = to_array<core::StageFormats>(f);
    return d;
  }
  template <class A>
  static std::vector<uint64_t> to_vector_u64(const A& a) {
    return std::vector<uint64_t>(a.begin(), a.end());
  }
  const config::Arch& arch_;
  std::string node_;
  int mlc_;
  bool has_beta_ = false;
  double floor_ = 0;
  std::vector<core::DatapathConfig> dps_;
};

// The backward's stages; the forward's formats (what it saved) as given.
class BackwardSpace : public FormatSpace {
 public:
  BackwardSpace(const config::Workload& w, const config::Arch& a)
      : arch_(a), node_(node_of(a)), mlc_(merge_level_cycles_of(a, true)) {
    add_problem(w);
    // The yardsticks: the start's dx and accumulator resolutions, as `run`
    // of an arch with them floors its ulps.
    const auto& bf = problems_[0].bwd.formats;
    floors_.dx = bf[static_cast<int>(core::BackwardStage::dx)].lsb();
    floors_.dgamma = bf[static_cast<int>(core::BackwardStage::dgamma)].lsb();
    floors_.dbeta = bf[static_cast<int>(core::BackwardStage::dbeta)].lsb();
  }
  std::string key() const override { return "backward_formats"; }
  std::vector<std::string> names() const override {
    std::vector<std::string> n;
    for (int s = 0; s < core::kBackwardStageCount; ++s) n.emplace_back(core::kBackwardStages.name(static_cast<core::BackwardStage>(s)));
    return n;
  }
  // The parameter gradients' accuracy is the start's to keep: their errors
  // are the accumulator's (its fraction a yardstick) and x_hat's.
  std::vector<std::string> held_names() const override {
    std::vector<std::string> n = {"dgamma_rel_l2_error"};
    if (problems_[0].bwd.kind == core::NormKind::layernorm) n.push_back("dbeta_rel_l2_error");
    return n;
  }
  // The accumulators (dgamma, dbeta) are not searched: their fraction is the
  // parameter gradients' yardstick, and their range grows with the rows
  // summed, which a sample of rows does not show.
  std::vector<int> used() const override {
    std::vector<int> u;
    for (core::BackwardStage s : core::backward_stages_used(problems_[0].bwd.kind))
      if (s != core::BackwardStage::dgamma && s != core::BackwardStage::dbeta) u.push_back(static_cast<int>(s));
    return u;
  }
  SearchFormats of(const config::Arch& a) const override {
    if (!a.backward_formats) return {};
    return to_vector(*a.backward_formats);
  }
  bool yardstick(int slot) const override {
    const auto s = static_cast<core::BackwardStage>(slot);
    return s == core::BackwardStage::dx || s == core::BackwardStage::dgamma || s == core::BackwardStage::dbeta;
  }
  int min_frac(int, const core::FixedFormat& f) const override { return std::max(0, (f.is_signed ? 2 : 1) - f.int_bits()); }
  double area_um2(const SearchFormats& f) const override {
    const core::BackwardConfig b = with(0, f);
    return area::estimate_area(problems_[0].fwd, {}, node_, mlc_, &b).datapath_um2;
  }
  std::string invalid(const SearchFormats& f) const override { return with(0, f).validate(); }
  std::string refused(const SearchFormats&) const override { return ""; }
  double ulp_floor() const override { return floors_.dx; }
  int add_problem(const config::Workload& w) override {
    problems_.push_back({config::datapath_config(w, arch_), config::backward_config(w, arch_)});
    return static_cast<int>(problems_.size()) - 1;
  }
  WidthMetrics measure(int problem, const core::NormProblem& rows, const SearchFormats& f, int) const override {
    const core::BackwardNumerics n =
        core::run_backward_functional(rows, problems_[static_cast<size_t>(problem)].fwd, with(problem, f), nullptr, &floors_);
    WidthMetrics m = metrics_of(n.dx_error);
    m.held = {n.dgamma_error.rel_l2()};
    m.nonfinite += n.dgamma_error.nonfinite() + n.dbranch_error.nonfinite();
    if (rows.norm == core::NormKind::layernorm) {
      m.held.push_back(n.dbeta_error.rel_l2());
      m.nonfinite += n.dbeta_error.nonfinite();
    }
    m.overflows.assign(n.counters.overflows.begin(), n.counters.overflows.end());
    return m;
  }

 private:
  struct Problem {
    core::DatapathConfig fwd;
    core::BackwardConfig bwd;
  };
  core::BackwardConfig with(int problem, const SearchFormats& f) const {
    core::BackwardConfig b = problems_[static_cast<size_t>(problem)].bwd;
    b.formats = to_array<core::BackwardFormats>(f);
    return b;
  }
  const config::Arch& arch_;
  std::string node_;
  int mlc_;
  core::BackwardUlpFloors floors_;
  std::vector<Problem> problems_;
};

}  // namespace

std::unique_ptr<FormatSpace> make_format_space(const config::Workload& w, const config::Arch& a) {
  if (w.is_backward()) {
    if (!a.backward_formats)
      throw config::ConfigError(a.source + ": key 'backward_formats': missing: widths searches a backward workload's "
                                "backward_formats from the arch's (allowed: a fixed arch with backward_formats, e.g. asic-default)");
    return std::make_unique<BackwardSpace>(w, a);
  }
  return std::make_unique<ForwardSpace>(w, a);
}

}  // namespace normsim::explore
