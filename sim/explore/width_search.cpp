#include "sim/explore/width_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "sim/area/area_energy.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/functional_run.hpp"
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
  }

  void run() {
    const StageFormats start = base_.formats;
    res_.start = start;
    res_.start_um2 = area(start);
    const WidthEvaluation s0 = eval(start, "start", "", w_.rows);
    res_.start_all_rows = s0.metrics;
    res_.start_meets = s0.meets;
    int64_t n = std::min(o_.sample_rows, w_.rows);
    StageFormats cur = start;
    for (;;) {
      sample_ = core::sample_rows(w_, n);
      cur = search_round(cur);
      const WidthEvaluation c = eval(cur, "confirm", "", w_.rows);
      if (c.meets) break;
      if (n >= w_.rows) throw config::ConfigError("widths: no formats found that meet the targets on all rows (internal: the search ended on a failing choice)");
      n = std::min(w_.rows, n * 4);
      ++round_;
    }
    res_.chosen = cur;
    res_.chosen_um2 = area(cur);
    res_.chosen_all_rows = eval(cur, "confirm", "", w_.rows).metrics;
  }

 private:
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
        return eval(with_ib(ib), "ranges", sname(s) + ".bits " + std::to_string(f.total_bits) + "->" + std::to_string(ib + f.frac_bits),
                    sample_.rows)
                   .metrics.overflows[idx(s)] == 0;
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
      for (Stage s : stages)
        if (e.metrics.overflows[idx(s)] && cur[idx(s)].total_bits < core::kMaxFixedBits) {
          ++cur[idx(s)].total_bits;
          move += (move.empty() ? "" : ", ") + sname(s) + ".bits +1";
        }
      if (move.empty()) throw config::ConfigError("widths: a stage outside --stages overflows (allowed: search it too)");
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
        core::FunctionalOptions fo;
        fo.threads = o_.threads;
        fo.ulp_floor = res_.ulp_floor;
        const core::FunctionalResult r = core::run_functional(p, d, fo);
        const auto& er = r.numerics.output_error;
        e.metrics.max_ulp = er.max_ulp();
        e.metrics.rel_l2 = er.rel_l2();
        e.metrics.max_abs = er.max_abs();
        e.metrics.rms = er.rms();
        e.metrics.frac_within_1ulp = er.frac_within_1ulp();
        e.metrics.nonfinite = er.nonfinite();
        e.metrics.overflows = r.numerics.counters.overflows;
        e.meets = e.metrics.nonfinite == 0 && e.metrics.overflow_total() == 0;
        for (const auto& t : o_.targets) e.meets &= t.met(e.metrics.value(t.metric));
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
  int round_ = 0;
  std::map<std::string, size_t> cache_;
};

}  // namespace

WidthSearchResult search_widths(const config::Workload& w, const config::Arch& a, const WidthSearchOptions& o) {
  if (a.arithmetic != core::Arithmetic::fixed)
    throw config::ConfigError(a.source + ": key 'arithmetic': widths searches fixed-point formats (allowed: an arch with arithmetic: fixed, e.g. asic-default)");
  if (o.targets.empty()) throw config::ConfigError("widths: --target: missing (allowed: e.g. --target max_ulp<=1 --target rel_l2<=1e-3)");
  if (o.sample_rows < 1) throw config::ConfigError("widths: --sample-rows must be >= 1");
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
