#include "sim/explore/width_search.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "sim/area/area_energy.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/functional_run.hpp"
#include "sim/core/llm_activation.hpp"
#include "sim/core/row_sample.hpp"

namespace normsim::explore {

using core::FixedFormat;
using core::Stage;
using core::StageFormats;

namespace {
struct MetricName {
  WidthTarget::Metric metric;
  const char* target;  ///< as --target spells it
  const char* report;  ///< as the reports name it
};
constexpr MetricName kMetrics[] = {
    {WidthTarget::Metric::max_ulp, "max_ulp", "max_ulp_error"},
    {WidthTarget::Metric::rel_l2, "rel_l2", "rel_l2_error"},
    {WidthTarget::Metric::max_abs, "max_abs", "max_abs_error"},
    {WidthTarget::Metric::rms, "rms", "rms_error"},
    {WidthTarget::Metric::frac_within_1ulp, "frac_within_1ulp", "frac_within_1ulp"},
};

int idx(Stage s) { return static_cast<int>(s); }
std::string sname(Stage s) { return std::string(core::to_string(s)); }
}  // namespace

WidthTarget parse_width_target(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return config::ConfigError("--target '" + text + "': " + why +
                               " (allowed: max_ulp<=V, rel_l2<=V, max_abs<=V, rms<=V, frac_within_1ulp>=V)");
  };
  const size_t le = text.find("<="), ge = text.find(">=");
  if ((le == std::string::npos) == (ge == std::string::npos)) throw bad("expected METRIC<=VALUE or METRIC>=VALUE");
  WidthTarget t;
  t.text = text;
  t.at_most = le != std::string::npos;
  const size_t at = t.at_most ? le : ge;
  const std::string name = text.substr(0, at), value = text.substr(at + 2);
  const auto m = std::find_if(std::begin(kMetrics), std::end(kMetrics), [&](const MetricName& k) { return name == k.target; });
  if (m == std::end(kMetrics)) throw bad("unknown metric '" + name + "'");
  t.metric = m->metric;
  if ((t.metric == WidthTarget::Metric::frac_within_1ulp) == t.at_most)
    throw bad(t.at_most ? "frac_within_1ulp is a lower bound" : "an error metric is an upper bound");
  char* end = nullptr;
  t.value = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(t.value) || t.value < 0)
    throw bad("value '" + value + "' is not a finite number >= 0");
  if (t.metric == WidthTarget::Metric::frac_within_1ulp && t.value > 1) throw bad("a fraction is at most 1");
  return t;
}

std::string metric_name(WidthTarget::Metric m) {
  for (const auto& k : kMetrics)
    if (k.metric == m) return k.report;
  return "";
}

WidthGuards parse_width_guards(const std::string& text) {
  WidthGuards g;
  if (text == "auto") return g;
  g.automatic = false;
  if (text == "none") return g;
  for (size_t start = 0;;) {
    const size_t c = text.find(',', start);
    const std::string item = text.substr(start, c == std::string::npos ? std::string::npos : c - start);
    if (item == "llm") {
      g.llm = true;
    } else if (item.rfind("hidden=", 0) == 0) {
      const std::string v = item.substr(7);
      char* end = nullptr;
      errno = 0;
      const long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || end != v.c_str() + v.size() || errno || n < 1 || n > (int64_t(1) << 24))
        throw config::ConfigError("--guard '" + text + "': '" + item + "' is not a row length in 1..2^24 (allowed: auto, none, "
                                  "or a list of hidden=N and llm)");
      g.hidden.push_back(n);
    } else {
      throw config::ConfigError("--guard '" + text + "': unknown item '" + item +
                                "' (allowed: auto, none, or a list of hidden=N and llm)");
    }
    if (c == std::string::npos) break;
    start = c + 1;
  }
  return g;
}

uint64_t WidthMetrics::overflow_total() const {
  uint64_t n = 0;
  for (uint64_t v : overflows) n += v;
  return n;
}

double WidthMetrics::value(WidthTarget::Metric m) const {
  switch (m) {
    case WidthTarget::Metric::max_ulp: return max_ulp;
    case WidthTarget::Metric::rel_l2: return rel_l2;
    case WidthTarget::Metric::max_abs: return max_abs;
    case WidthTarget::Metric::rms: return rms;
    case WidthTarget::Metric::frac_within_1ulp: return frac_within_1ulp;
  }
  return 0;
}

namespace {

class Searcher {
 public:
  Searcher(const config::Workload& w, const config::Arch& a, const WidthSearchOptions& o, WidthSearchResult& res)
      : w_(w), o_(o), res_(res), base_(config::datapath_config(w, a)) {
    res_.node = a.asic ? a.asic->node : config::AsicConfig{}.node;
    merge_level_cycles_ = a.asic ? a.asic->latency.merge_level_cycles : config::AsicConfig{}.latency.merge_level_cycles;
    res_.ulp_floor = core::datapath_output_lsb(base_);
    build_guards(a);
  }

  void run() {
    const StageFormats start = base_.formats;
    res_.start = start;
    res_.start_um2 = area(start);
    drop_uncosted_stages(start);
    const WidthEvaluation s0 = eval(start, "start", "", w_.rows);
    res_.start_all_rows = s0.metrics;
    res_.start_meets = s0.meets;
    int64_t n = std::min(o_.sample_rows, w_.rows);
    StageFormats cur = start;
    for (;;) {
      sample_ = core::sample_rows(w_, n);
      for (GuardProblem& g : guards_) g.sample = core::sample_rows(g.all, n);
      cur = search_round(cur);
      const WidthEvaluation c = eval(cur, "confirm", "", w_.rows);
      if (c.meets) break;
      if (n >= w_.rows) throw config::ConfigError("widths: no formats found that meet the targets on all rows (internal: the search ended on a failing choice)");
      n = std::min(w_.rows, n * 4);
      ++round_;
    }
    if (o_.margin_bits > 0) {
      StageFormats m = cur;
      for (Stage s : res_.stages) {
        FixedFormat& f = m[idx(s)];
        const int frac = std::min(o_.margin_bits, core::kMaxFixedBits - f.total_bits);
        f.frac_bits += frac;
        f.total_bits = std::min(core::kMaxFixedBits, f.total_bits + frac + o_.margin_bits);
      }
      const WidthEvaluation e = eval(m, "margin", "every searched stage +" + std::to_string(o_.margin_bits) + " int, +" +
                                                      std::to_string(o_.margin_bits) + " frac",
                                     w_.rows);
      if (!e.meets)
        throw config::ConfigError("widths: --margin-bits " + std::to_string(o_.margin_bits) +
                                  ": the widened formats fail the targets (" + (e.error.empty() ? "an overflow" : e.error) +
                                  ") (allowed: a smaller margin)");
      cur = m;
    }
    res_.margin_bits = o_.margin_bits;
    res_.chosen = cur;
    res_.chosen_um2 = area(cur);
    res_.chosen_all_rows = eval(cur, "confirm", "", w_.rows).metrics;
  }

 private:
  struct GuardProblem {
    config::Workload all;     ///< as many rows as the workload: what a confirmation runs
    core::NormProblem sample;  ///< the round's sample of them
    core::DatapathConfig dp;
  };

  // The guard set (WidthGuards): the workload at other row lengths and on the
  // LLM-activation model, each on a fixed sample of its rows.
  void build_guards(const config::Arch& a) {
    std::vector<int64_t> hidden = o_.guards.hidden;
    bool llm = o_.guards.llm;
    const bool synthetic = !w_.input_source;
    const auto* llm_source = dynamic_cast<const core::LlmActivationInput*>(w_.input_source.get());
    if (o_.guards.automatic) {
      hidden = {std::max<int64_t>(1, std::llround(0.73 * static_cast<double>(w_.hidden))), w_.hidden + w_.hidden / 4};
      llm = synthetic;
    }
    auto add = [&](const std::string& name, config::Workload g) {
      core::DatapathConfig dp = config::datapath_config(g, a);
      res_.guards.push_back({name, g.hidden, g.rows});
      guards_.push_back({std::move(g), {}, std::move(dp)});
    };
    for (int64_t h : hidden) {
      if (h == w_.hidden) continue;
      if (!synthetic && !llm_source)
        throw config::ConfigError("widths: --guard hidden=" + std::to_string(h) + ": the workload's rows come from a file of " +
                                  std::to_string(w_.hidden) + " columns (allowed: --guard llm or none for a .npy input)");
      config::Workload g = w_;
      g.hidden = h;
      if (llm_source) g.input_source = std::make_shared<core::LlmActivationInput>(llm_source->params(), w_.seed, h);
      add("hidden " + std::to_string(h), std::move(g));
    }
    if (llm && !llm_source) {
      config::Workload g = w_;
      g.input_source = std::make_shared<core::LlmActivationInput>(core::LlmActivation{}, w_.seed, w_.hidden);
      add("llm activations", std::move(g));
    }
  }

  // Stages whose width the area model does not cost here are kept as given.
  void drop_uncosted_stages(const StageFormats& start) {
    const double a0 = area(start);
    std::vector<Stage> kept;
    for (Stage s : res_.stages) {
      StageFormats wider = start, more_int = start;
      ++wider[idx(s)].total_bits;
      ++wider[idx(s)].frac_bits;
      ++more_int[idx(s)].total_bits;
      if (area(wider) == a0 && area(more_int) == a0) res_.uncosted.push_back(s);
      else kept.push_back(s);
    }
    res_.stages = kept;
    if (kept.empty()) {
      std::string which;
      for (Stage s : res_.uncosted) which += (which.empty() ? "" : ", ") + sname(s);
      throw config::ConfigError("widths: --stages: the width of " + which +
                                " costs no area at this workload: nothing to search (allowed: stages whose area moves, e.g. "
                                "xhat, gamma)");
    }
  }
  // One round on the current sample, from `cur`.
  StageFormats search_round(StageFormats cur) {
    const auto& stages = res_.stages;
    // Ranges: each stage's fewest integer bits without overflow, in data-flow order.
    for (Stage s : stages) {
      FixedFormat f = cur[idx(s)];
      auto with_ib = [&](int ib) {
        StageFormats c = cur;
        c[idx(s)].total_bits = ib + f.frac_bits;
        return c;
      };
      auto ok = [&](int ib) {
        const WidthEvaluation e = eval(
            with_ib(ib), "ranges", sname(s) + ".bits " + std::to_string(f.total_bits) + "->" + std::to_string(ib + f.frac_bits),
            sample_.rows);
        return e.error.empty() && e.metrics.overflows[idx(s)] == 0;
      };
      const int ib0 = f.int_bits();
      const int lo = std::max(0, (f.is_signed ? 2 : 1) - f.frac_bits), hi = core::kMaxFixedBits - f.frac_bits;
      int best;
      if (ok(ib0)) {
        best = lowest(lo, ib0, ok);
      } else {
        if (!ok(hi))
          throw config::ConfigError("widths: stage '" + sname(s) + "' overflows even at " + std::to_string(core::kMaxFixedBits) +
                                    " bits with " + std::to_string(f.frac_bits) + " fraction bits (allowed: inputs whose range fits 64-bit formats)");
        best = lowest(ib0 + 1, hi, ok);
      }
      cur = with_ib(best);
    }
    // Overflows the stages cause each other: one more integer bit where they remain.
    for (int guard = 0;; ++guard) {
      const WidthEvaluation e = eval(cur, "ranges", "", sample_.rows);
      if (e.metrics.overflow_total() == 0) break;
      if (guard > core::kMaxFixedBits) throw config::ConfigError("widths: overflow that more integer bits do not remove");
      std::string move;
      // An uncosted stage is not narrowed, but it is widened where it overflows.
      std::vector<Stage> widenable = stages;
      widenable.insert(widenable.end(), res_.uncosted.begin(), res_.uncosted.end());
      for (Stage s : widenable)
        if (e.metrics.overflows[idx(s)] && cur[idx(s)].total_bits < core::kMaxFixedBits) {
          ++cur[idx(s)].total_bits;
          move += (move.empty() ? "" : ", ") + sname(s) + ".bits +1";
        }
      if (move.empty()) {
        std::string which;
        for (int s = 0; s < core::kStageCount; ++s)
          if (e.metrics.overflows[s]) which += (which.empty() ? "" : ", ") + sname(static_cast<Stage>(s));
        throw config::ConfigError("widths: stage " + which + " overflows" +
                                  (guards_.empty() ? std::string() : " on the workload or its guards") +
                                  " and is not searched (allowed: search it too with --stages" +
                                  (guards_.empty() ? std::string() : ", or --guard none") + ")");
      }
      eval(cur, "ranges", move, sample_.rows);
    }
    // Widen every fraction together until the targets hold.
    if (!eval(cur, "widen", "", sample_.rows).meets) {
      // k doubles from cur each round; once every stage is at the widest
      // format and the targets still fail, nothing wider exists.
      for (int k = 1;; k *= 2) {
        StageFormats c = cur;
        bool at_widest = true;
        for (Stage s : stages) {
          if (s == Stage::output) continue;  // the yardstick (below)
          FixedFormat& f = c[idx(s)];
          const int add = std::min(k, core::kMaxFixedBits - f.total_bits);
          f.total_bits += add;
          f.frac_bits += add;
          at_widest &= f.total_bits >= core::kMaxFixedBits;
        }
        if (eval(c, "widen", "every frac +" + std::to_string(k), sample_.rows).meets) {
          cur = c;
          break;
        }
        if (at_widest) {
          std::string t;
          for (const auto& x : o_.targets) t += (t.empty() ? "" : ", ") + x.text;
          throw config::ConfigError("widths: the targets (" + t + ") are not met even with every searched stage at 64 bits");
        }
      }
    }
    // Precision: each stage's fewest fraction bits alone.
    StageFormats low = cur;
    for (Stage s : stages) {
      if (s == Stage::output) continue;
      const FixedFormat f = cur[idx(s)];
      auto with_frac = [&](int fr) {
        StageFormats c = cur;
        c[idx(s)].frac_bits = fr;
        c[idx(s)].total_bits = f.int_bits() + fr;
        return c;
      };
      auto ok = [&](int fr) {
        return eval(with_frac(fr), "precision", sname(s) + ".frac " + std::to_string(f.frac_bits) + "->" + std::to_string(fr), sample_.rows)
            .meets;
      };
      low[idx(s)] = with_frac(lowest(min_frac(s, f), f.frac_bits, ok))[idx(s)];
    }
    // Combine: all at their lows, then put back the bits that buy most.
    StageFormats c = low;
    for (int guard = 0; !eval(c, "combine", "every stage at its own fewest fraction bits", sample_.rows).meets; ++guard) {
      if (guard > 64 * core::kStageCount) break;
      const double area_now = area(c);
      double best_score = -1;
      StageFormats best = cur;
      std::string best_move;
      for (Stage s : stages) {
        if (c[idx(s)].frac_bits >= cur[idx(s)].frac_bits) continue;
        StageFormats t = c;
        ++t[idx(s)].frac_bits;
        ++t[idx(s)].total_bits;
        const std::string move = sname(s) + ".frac +1";
        const WidthEvaluation e = eval(t, "combine", move, sample_.rows);
        const double gain = shortfall(eval(c, "combine", "", sample_.rows)) - shortfall(e);
        const double cost = std::max(1e-9, area(t) - area_now);
        const double score = e.meets ? std::numeric_limits<double>::max() / (1 + cost) : gain / cost;
        if (score > best_score) {
          best_score = score;
          best = t;
          best_move = move;
        }
      }
      if (best_move.empty()) {
        c = cur;  // nothing left to put back: the candidate that met them
        break;
      }
      c = best;
    }
    // Descend: single-bit narrowings by area saved, while the targets hold.
    for (bool moved = true; moved;) {
      moved = false;
      struct Move {
        StageFormats f;
        std::string text;
        double saved;
      };
      std::vector<Move> moves;
      const double area_now = area(c);
      for (Stage s : stages) {
        if (s == Stage::output) continue;
        const FixedFormat f = c[idx(s)];
        if (f.frac_bits > min_frac(s, f) && f.total_bits > (f.is_signed ? 2 : 1)) {
          StageFormats t = c;
          --t[idx(s)].frac_bits;
          --t[idx(s)].total_bits;
          moves.push_back({t, sname(s) + ".frac -1", area_now - area(t)});
        }
      }
      std::stable_sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) { return a.saved > b.saved; });
      for (const Move& m : moves) {
        if (m.saved <= 0) break;
        if (eval(m.f, "descend", m.text, sample_.rows).meets) {
          c = m.f;
          moved = true;
          break;
        }
      }
    }
    return c;
  }

  // The lowest v in [lo, hi] with ok(v), given ok(hi) (monotone).
  template <class Ok>
  static int lowest(int lo, int hi, Ok&& ok) {
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (ok(mid)) hi = mid;
      else lo = mid + 1;
    }
    return hi;
  }

  static int min_frac(Stage s, const FixedFormat& f) {
    const int need = (s == Stage::rsqrt_in || s == Stage::recip) ? 1 : 0;  // DatapathConfig::validate
    return std::max(need, (f.is_signed ? 2 : 1) - f.int_bits());
  }

  // How far an evaluation is from meeting the targets (0 when it does).
  double shortfall(const WidthEvaluation& e) const {
    double s = e.metrics.overflow_total() ? 1e6 : 0.0;
    for (const auto& t : o_.targets) {
      const double v = e.metrics.value(t.metric);
      if (!std::isfinite(v)) return std::numeric_limits<double>::max();
      if (!t.met(v)) s += t.at_most ? (t.value > 0 ? v / t.value : v + 1) : (v > 0 ? t.value / v : t.value + 1);
    }
    return s;
  }

  double area(const StageFormats& f) {
    core::DatapathConfig d = base_;
    d.formats = f;
    return area::estimate_area(d, {}, res_.node, merge_level_cycles_).datapath_um2;
  }

  WidthMetrics measure(const core::NormProblem& p, const core::DatapathConfig& d) const {
    core::FunctionalOptions fo;
    fo.threads = o_.threads;
    fo.ulp_floor = res_.ulp_floor;
    const core::FunctionalResult r = core::run_functional(p, d, fo);
    const auto& er = r.numerics.output_error;
    WidthMetrics m;
    m.max_ulp = er.max_ulp();
    m.rel_l2 = er.rel_l2();
    m.max_abs = er.max_abs();
    m.rms = er.rms();
    m.frac_within_1ulp = er.frac_within_1ulp();
    m.nonfinite = er.nonfinite();
    m.overflows = r.numerics.counters.overflows;
    return m;
  }

  static void worst_of(WidthMetrics& a, const WidthMetrics& b) {
    a.max_ulp = std::max(a.max_ulp, b.max_ulp);
    a.rel_l2 = std::max(a.rel_l2, b.rel_l2);
    a.max_abs = std::max(a.max_abs, b.max_abs);
    a.rms = std::max(a.rms, b.rms);
    a.frac_within_1ulp = std::min(a.frac_within_1ulp, b.frac_within_1ulp);
    a.nonfinite += b.nonfinite;
    for (int s = 0; s < core::kStageCount; ++s) a.overflows[s] += b.overflows[s];
  }

  static std::string key(const StageFormats& f, int64_t rows) {
    std::string k = std::to_string(rows);
    for (const auto& x : f) k += "," + std::to_string(x.total_bits) + "." + std::to_string(x.frac_bits);
    return k;
  }

  // One evaluation (cached by formats and rows; recorded once).
  WidthEvaluation eval(const StageFormats& f, const std::string& phase, const std::string& move, int64_t rows) {
    const std::string k = key(f, rows);
    if (auto it = cache_.find(k); it != cache_.end()) return res_.evaluations[it->second];
    WidthEvaluation e;
    e.index = static_cast<int>(res_.evaluations.size());
    e.round = round_;
    e.phase = phase;
    e.move = move;
    e.rows = rows;
    e.formats = f;
    e.datapath_um2 = area(f);
    core::DatapathConfig d = base_;
    d.formats = f;
    if (const std::string why = d.validate(); !why.empty()) {
      e.error = why;
    } else {
      try {
        const core::NormProblem& p = rows >= w_.rows ? static_cast<const core::NormProblem&>(w_) : sample_;
        e.metrics = measure(p, d);
        // The guard set: the worst of the workload and every guard.
        for (const GuardProblem& g : guards_) {
          core::DatapathConfig gd = g.dp;
          gd.formats = f;
          worst_of(e.metrics, measure(rows >= w_.rows ? static_cast<const core::NormProblem&>(g.all) : g.sample, gd));
        }
        e.meets = e.metrics.nonfinite == 0 && e.metrics.overflow_total() == 0;
        for (const auto& t : o_.targets) e.meets &= t.met(e.metrics.value(t.metric));
        // A format eps rounds to 0 in is refused, whatever the sample shows.
        if (const auto warn = d.warnings(); !warn.empty()) {
          e.refused = warn.front();
          e.meets = false;
        }
      } catch (const std::overflow_error& x) {
        e.error = x.what();  // wider than the model's exact intermediates
      }
    }
    cache_[k] = res_.evaluations.size();
    res_.evaluations.push_back(e);
    if (o_.on_evaluation) o_.on_evaluation(e);
    return res_.evaluations.back();
  }

  const config::Workload& w_;
  const WidthSearchOptions& o_;
  WidthSearchResult& res_;
  core::DatapathConfig base_;
  int merge_level_cycles_ = 0;
  core::NormProblem sample_;
  std::vector<GuardProblem> guards_;
  int round_ = 0;
  std::map<std::string, size_t> cache_;
};

}  // namespace

WidthSearchResult search_widths(const config::Workload& w, const config::Arch& a, const WidthSearchOptions& o) {
  if (a.arithmetic != core::Arithmetic::fixed)
    throw config::ConfigError(a.source + ": key 'arithmetic': widths searches fixed-point formats (allowed: an arch with arithmetic: fixed, e.g. asic-default)");
  if (o.targets.empty()) throw config::ConfigError("widths: --target: missing (allowed: e.g. --target max_ulp<=1 --target rel_l2<=1e-3)");
  if (o.sample_rows < 1) throw config::ConfigError("widths: --sample-rows must be >= 1");
  if (o.margin_bits < 0 || o.margin_bits > 16)
    throw config::ConfigError("widths: --margin-bits " + std::to_string(o.margin_bits) + " out of range (allowed: 0..16)");
  WidthSearchResult res;
  const core::DatapathConfig d = config::datapath_config(w, a);
  const auto used = core::stages_used(d.kind, d.algorithm, w.beta.has_value());
  if (o.stages.empty()) {
    res.stages = used;
  } else {
    for (Stage s : o.stages) {
      if (std::find(used.begin(), used.end(), s) == used.end()) {
        std::string list;
        for (Stage u : used) list += (list.empty() ? "" : ", ") + sname(u);
        throw config::ConfigError("widths: --stages '" + sname(s) + "': not a stage of this datapath (allowed: " + list + ")");
      }
      if (std::find(res.stages.begin(), res.stages.end(), s) == res.stages.end()) res.stages.push_back(s);
    }
    std::sort(res.stages.begin(), res.stages.end());
  }
  Searcher(w, a, o, res).run();
  return res;
}

std::vector<std::string> format_overrides(const WidthSearchResult& r) {
  std::vector<std::string> v;
  for (int s = 0; s < core::kStageCount; ++s) {
    const auto& a = r.start[s];
    const auto& b = r.chosen[s];
    const std::string k = "arch.formats." + sname(static_cast<Stage>(s));
    if (a.total_bits != b.total_bits) v.push_back(k + ".bits=" + std::to_string(b.total_bits));
    if (a.frac_bits != b.frac_bits) v.push_back(k + ".frac=" + std::to_string(b.frac_bits));
  }
  return v;
}

}  // namespace normsim::explore
