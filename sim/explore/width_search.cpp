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
#include "sim/config/shipped_configs.hpp"
#include "sim/core/functional_run.hpp"
#include "sim/core/llm_activation.hpp"
#include "sim/core/row_sample.hpp"

namespace normsim::explore {

using core::FixedFormat;

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

std::vector<int64_t> automatic_guard_hidden(int64_t hidden) {
  const auto at = [hidden](double k) { return std::max<int64_t>(1, std::llround(k * static_cast<double>(hidden))); };
  return {at(0.73), hidden + hidden / 4, at(11008.0 / 4096)};
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

double metric_value(const WidthMetrics& m, WidthTarget::Metric metric) {
  switch (metric) {
    case WidthTarget::Metric::max_ulp: return m.max_ulp;
    case WidthTarget::Metric::rel_l2: return m.rel_l2;
    case WidthTarget::Metric::max_abs: return m.max_abs;
    case WidthTarget::Metric::rms: return m.rms;
    case WidthTarget::Metric::frac_within_1ulp: return m.frac_within_1ulp;
  }
  return 0;
}

namespace {

// What a space holds may grow this much over the start's: the worst of a
// thousand accumulated columns moves by chance whenever an upstream rounding
// moves, and a strict bound would refuse even a wider format.
constexpr double kHeldSlack = 1.05;

class Searcher {
 public:
  Searcher(const config::Workload& w, const config::Arch& a, const WidthSearchOptions& o, FormatSpace& space,
           WidthSearchResult& res)
      : w_(w), o_(o), space_(space), res_(res), start_(space.of(a)) {
    res_.node = a.asic ? a.asic->node : config::AsicConfig{}.node;
    res_.ulp_floor = space_.ulp_floor();
    build_guards();
  }

  void run() {
    const SearchFormats start = start_;
    res_.start = start;
    res_.start_um2 = area(start);
    drop_uncosted_stages(start);
    const WidthEvaluation s0 = eval(start, "start", "", w_.rows);
    res_.start_all_rows = s0.metrics;
    res_.start_meets = s0.meets;
    int64_t n = std::min(o_.sample_rows, w_.rows);
    SearchFormats cur = start;
    for (;;) {
      sample_ = core::sample_rows(w_, n);
      for (GuardProblem& g : guards_) g.sample = core::sample_rows(g.all, n);
      cur = search_round(cur);
      const WidthEvaluation c = eval(cur, "confirm", "", w_.rows);
      if (c.meets) break;
      if (repair_overflows(cur, c)) break;
      if (n >= w_.rows) throw config::ConfigError("widths: no formats found that meet the targets on all rows (internal: the search ended on a failing choice)");
      n = std::min(w_.rows, n * 4);
      ++round_;
    }
    if (o_.margin_bits > 0) {
      SearchFormats m = cur;
      for (int s : res_.stages) {
        FixedFormat& f = m[static_cast<size_t>(s)];
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
    const WidthEvaluation chosen = eval(cur, "confirm", "", w_.rows);
    res_.chosen_all_rows = chosen.metrics;
    for (size_t i = 0; i < res_.guards.size() && i < chosen.guard_metrics.size(); ++i) res_.guards[i].chosen = chosen.guard_metrics[i];
  }

 private:
  struct GuardProblem {
    config::Workload all;     ///< as many rows as the workload: what a confirmation runs
    core::NormProblem sample;  ///< the round's sample of them
    int problem = 0;           ///< the space's index of it
  };

  // The guard set (WidthGuards): row lengths crossed with input models,
  // each problem on a fixed sample of its rows.
  void build_guards() {
    std::vector<int64_t> hidden = o_.guards.hidden;
    bool llm = o_.guards.llm;
    const bool synthetic = !w_.input_source;
    const auto* llm_source = dynamic_cast<const core::LlmActivationInput*>(w_.input_source.get());
    if (o_.guards.automatic) {
      hidden = automatic_guard_hidden(w_.hidden);
      // A backward's x comes in the forward's formats, which it does not
      // search: LLM activations' range is the forward's search to hold.
      llm = !w_.is_backward();
    }
    if (!synthetic && !llm_source)
      for (int64_t h : hidden)
        if (h != w_.hidden)
          throw config::ConfigError("widths: --guard hidden=" + std::to_string(h) + ": the workload's rows come from a file of " +
                                    std::to_string(w_.hidden) + " columns (allowed: --guard llm or none for a .npy input)");
    std::vector<int64_t> lengths{w_.hidden};
    for (int64_t h : hidden)
      if (std::find(lengths.begin(), lengths.end(), h) == lengths.end()) lengths.push_back(h);
    // The input models: the workload's own (a file's at its own C only),
    // Gaussian rows where its own are LLM activations, and each shipped
    // LLM-activation model (but the workload's own).
    struct Model {
      std::string name;  ///< "own", "gaussian" or the shipped workload's
      core::LlmActivation params;
      uint64_t seed = 0;
    };
    std::vector<Model> models{{"own", {}, 0}};
    if (llm && llm_source) models.push_back({"gaussian", {}, 0});
    if (llm)
      for (const config::ShippedConfig& sc : config::shipped_configs()) {
        if (sc.kind != config::ShippedKind::workload || w_.name == sc.name) continue;
        const config::Workload shipped = config::load_workload(sc.name, {}, false);
        if (const auto* m = dynamic_cast<const core::LlmActivationInput*>(shipped.input_source.get()))
          models.push_back({sc.name, m->params(), shipped.seed});
      }
    for (const Model& m : models)
      for (int64_t h : lengths) {
        if (m.name == "own" && h == w_.hidden) continue;  // the workload itself
        config::Workload g = w_;
        g.hidden = h;
        if (m.name == "gaussian") {
          g.input_source = nullptr;
          g.input_dist = rng::Distribution::normal(0.0, 1.0);
        } else if (m.name != "own") {
          g.input_source = std::make_shared<core::LlmActivationInput>(m.params, m.seed, h);
        } else if (llm_source) {
          g.input_source = std::make_shared<core::LlmActivationInput>(llm_source->params(), w_.seed, h);
        }
        const int problem = space_.add_problem(g);
        const std::string name = "hidden " + std::to_string(h) + (m.name == "own" ? "" : ", " + m.name + " inputs");
        res_.guards.push_back({name, m.name, h, g.rows, {}});
        guards_.push_back({std::move(g), {}, problem});
      }
  }

  // Stages whose width the area model does not cost here are kept as given.
  void drop_uncosted_stages(const SearchFormats& start) {
    const double a0 = area(start);
    std::vector<int> kept;
    for (int s : res_.stages) {
      SearchFormats wider = start, more_int = start;
      ++wider[static_cast<size_t>(s)].total_bits;
      ++wider[static_cast<size_t>(s)].frac_bits;
      ++more_int[static_cast<size_t>(s)].total_bits;
      if (area(wider) == a0 && area(more_int) == a0) res_.uncosted.push_back(s);
      else kept.push_back(s);
    }
    res_.stages = kept;
    if (kept.empty()) {
      std::string which;
      for (int s : res_.uncosted) which += (which.empty() ? "" : ", ") + sname(s);
      throw config::ConfigError("widths: --stages: the width of " + which +
                                " costs no area at this workload: nothing to search (allowed: stages whose area moves, e.g. "
                                "xhat, gamma)");
    }
  }
  // A confirmation that failed only by overflows the sample did not show (a
  // rare row's sums): one more integer bit where they occur, on all rows,
  // until none is left. True (and `cur` the repaired choice) if it then meets.
  bool repair_overflows(SearchFormats& cur, WidthEvaluation e) {
    SearchFormats f = cur;
    while (!e.meets && e.error.empty() && e.metrics.overflow_total() > 0) {
      std::string move;
      for (size_t s = 0; s < f.size(); ++s)
        if (e.metrics.overflows[s] && f[s].total_bits < core::kMaxFixedBits) {
          ++f[s].total_bits;
          move += (move.empty() ? "" : ", ") + res_.names[s] + ".bits +1";
        }
      if (move.empty()) return false;
      e = eval(f, "confirm", move, w_.rows);
    }
    if (!e.meets) return false;
    cur = f;
    return true;
  }

  // One round on the current sample, from `cur`.
  SearchFormats search_round(SearchFormats cur) {
    const auto& stages = res_.stages;
    // Ranges: each stage's fewest integer bits without overflow, in data-flow order.
    for (int s : stages) {
      FixedFormat f = cur[idx(s)];
      auto with_ib = [&](int ib) {
        SearchFormats c = cur;
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
      std::vector<int> widenable = stages;
      widenable.insert(widenable.end(), res_.uncosted.begin(), res_.uncosted.end());
      for (int s : widenable)
        if (e.metrics.overflows[idx(s)] && cur[idx(s)].total_bits < core::kMaxFixedBits) {
          ++cur[idx(s)].total_bits;
          move += (move.empty() ? "" : ", ") + sname(s) + ".bits +1";
        }
      if (move.empty()) {
        std::string which;
        for (size_t s = 0; s < e.metrics.overflows.size(); ++s)
          if (e.metrics.overflows[s]) which += (which.empty() ? "" : ", ") + sname(static_cast<int>(s));
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
        SearchFormats c = cur;
        bool at_widest = true;
        for (int s : stages) {
          if (space_.yardstick(s)) continue;  // the yardstick (below)
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
    SearchFormats low = cur;
    for (int s : stages) {
      if (space_.yardstick(s)) continue;
      const FixedFormat f = cur[idx(s)];
      auto with_frac = [&](int fr) {
        SearchFormats c = cur;
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
    SearchFormats c = low;
    for (int guard = 0; !eval(c, "combine", "every stage at its own fewest fraction bits", sample_.rows).meets; ++guard) {
      if (guard > 64 * static_cast<int>(c.size())) break;
      const double area_now = area(c);
      double best_score = -1;
      SearchFormats best = cur;
      std::string best_move;
      for (int s : stages) {
        if (c[idx(s)].frac_bits >= cur[idx(s)].frac_bits) continue;
        SearchFormats t = c;
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
        SearchFormats f;
        std::string text;
        double saved;
      };
      std::vector<Move> moves;
      const double area_now = area(c);
      for (int s : stages) {
        if (space_.yardstick(s)) continue;
        const FixedFormat f = c[idx(s)];
        if (f.frac_bits > min_frac(s, f) && f.total_bits > (f.is_signed ? 2 : 1)) {
          SearchFormats t = c;
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

  int min_frac(int s, const FixedFormat& f) const { return space_.min_frac(s, f); }
  static size_t idx(int s) { return static_cast<size_t>(s); }
  std::string sname(int s) const { return res_.names[idx(s)]; }

  // How far an evaluation is from meeting the targets (0 when it does).
  double shortfall(const WidthEvaluation& e) const {
    double s = e.metrics.overflow_total() ? 1e6 : 0.0;
    for (const auto& t : o_.targets) {
      const double v = metric_value(e.metrics, t.metric);
      if (!std::isfinite(v)) return std::numeric_limits<double>::max();
      if (!t.met(v)) s += t.at_most ? (t.value > 0 ? v / t.value : v + 1) : (v > 0 ? t.value / v : t.value + 1);
    }
    return s;
  }

  double area(const SearchFormats& f) const { return space_.area_um2(f); }

  static std::string key(const SearchFormats& f, int64_t rows) {
    std::string k = std::to_string(rows);
    for (const auto& x : f) k += "," + std::to_string(x.total_bits) + "." + std::to_string(x.frac_bits);
    return k;
  }

  // One evaluation (cached by formats and rows; recorded once).
  WidthEvaluation eval(const SearchFormats& f, const std::string& phase, const std::string& move, int64_t rows) {
    const std::string k = key(f, rows);
    if (auto it = cache_.find(k); it != cache_.end()) return res_.evaluations[it->second];
    // The start on the same rows first (recorded before this one): what the space holds is measured against it.
    std::vector<double> held_base;
    if (!res_.held_names.empty() && f != start_) held_base = eval(start_, "start", "", rows).metrics.held;
    WidthEvaluation e;
    e.index = static_cast<int>(res_.evaluations.size());
    e.round = round_;
    e.phase = phase;
    e.move = move;
    e.rows = rows;
    e.formats = f;
    e.datapath_um2 = area(f);
    e.metrics.overflows.assign(f.size(), 0);
    if (const std::string why = space_.invalid(f); !why.empty()) {
      e.error = why;
    } else {
      try {
        const core::NormProblem& p = rows >= w_.rows ? static_cast<const core::NormProblem&>(w_) : sample_;
        e.metrics = space_.measure(0, p, f, o_.threads);
        // The guard set: the worst of the workload and every guard.
        for (const GuardProblem& g : guards_) {
          e.guard_metrics.push_back(
              space_.measure(g.problem, rows >= w_.rows ? static_cast<const core::NormProblem&>(g.all) : g.sample, f, o_.threads));
          e.metrics.add_worst(e.guard_metrics.back());
        }
        e.meets = e.metrics.nonfinite == 0 && e.metrics.overflow_total() == 0;
        for (const auto& t : o_.targets) e.meets &= t.met(metric_value(e.metrics, t.metric));
        // What the space holds at the start's (a backward's parameter gradients), on the same rows.
        for (size_t k = 0; k < held_base.size() && k < e.metrics.held.size(); ++k)
          e.meets &= e.metrics.held[k] <= kHeldSlack * held_base[k];
        // Formats that are no design (eps rounds to 0) are refused, whatever the sample shows.
        if (const std::string why_not = space_.refused(f); !why_not.empty()) {
          e.refused = why_not;
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
  FormatSpace& space_;
  WidthSearchResult& res_;
  SearchFormats start_;
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
  const std::unique_ptr<FormatSpace> space = make_format_space(w, a);
  WidthSearchResult res;
  res.key = space->key();
  res.names = space->names();
  res.held_names = space->held_names();
  const std::vector<int> used = space->used();
  if (o.stages.empty()) {
    res.stages = used;
  } else {
    std::string list;
    for (int u : used) list += (list.empty() ? "" : ", ") + res.names[static_cast<size_t>(u)];
    for (const std::string& name : o.stages) {
      const auto at = std::find(res.names.begin(), res.names.end(), name);
      const int s = static_cast<int>(at - res.names.begin());
      if (at == res.names.end() || std::find(used.begin(), used.end(), s) == used.end())
        throw config::ConfigError("widths: --stages '" + name + "': not a stage of this datapath's " + res.key + " (allowed: " +
                                  list + ")");
      if (std::find(res.stages.begin(), res.stages.end(), s) == res.stages.end()) res.stages.push_back(s);
    }
    std::sort(res.stages.begin(), res.stages.end());
  }
  Searcher(w, a, o, *space, res).run();
  return res;
}

std::vector<std::string> format_overrides(const WidthSearchResult& r) {
  std::vector<std::string> v;
  for (size_t s = 0; s < r.start.size(); ++s) {
    const auto& a = r.start[s];
    const auto& b = r.chosen[s];
    const std::string k = "arch." + r.key + "." + r.names[s];
    if (a.total_bits != b.total_bits) v.push_back(k + ".bits=" + std::to_string(b.total_bits));
    if (a.frac_bits != b.frac_bits) v.push_back(k + ".frac=" + std::to_string(b.frac_bits));
  }
  return v;
}

SearchFormats searched_formats(const WidthSearchResult& r, const config::Arch& a) {
  if (r.key == "backward_formats") return a.backward_formats ? SearchFormats(a.backward_formats->begin(), a.backward_formats->end()) : SearchFormats{};
  return SearchFormats(a.formats.begin(), a.formats.end());
}

}  // namespace normsim::explore
