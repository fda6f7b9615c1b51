// The cheapest fixed-point formats for an accuracy target: per-stage integer
// and fraction bits chosen for the least datapath area (sim/area's
// calibrated model) such that the outputs meet every target and no stage
// overflows, evaluated bit-accurately on a sample of the workload's rows and
// confirmed on all of them. A forward workload's stages are the arch's
// `formats`; a backward workload's, its `backward_formats` (format_space.hpp),
// whose output is dx (the targets hold for it) and whose parameter gradients
// dgamma and dbeta keep the start's accuracy (max_ulp and rel_l2 no worse on
// the same rows): their fixed-point error is the accumulator's, whose
// fraction is a yardstick, and x_hat's.
//
// The search, from the arch's own formats:
//   ranges     each stage's fewest integer bits that do not overflow (a
//              binary search per stage, the others as given);
//   precision  if the targets fail there, every stage's fraction widened
//              together until they hold; then each stage's fewest fraction
//              bits that still meet them, alone (a binary search per stage);
//   combine    all stages at those widths together, and while the targets
//              fail, the one-bit widening that buys the most accuracy per
//              area put back;
//   descend    single-bit narrowings in order of the area they save, while
//              the targets hold, until none is left;
//   confirm    the choice on all rows; if it fails, the search runs again
//              from it on a sample four times larger;
//   margin     --margin-bits N more integer and fraction bits on every
//              searched stage, confirmed again.
// Every evaluation is recorded, so the choice can be audited.
//
// A choice must hold off the sample too: every evaluation also runs a guard
// set -- row lengths around the workload's (one of them not a power of two,
// where 1/C is a real multiply) crossed with the input models (the
// workload's own rows, Gaussian ones where its own are LLM activations, and
// every shipped LLM-activation model, workloads/README.md) -- and meets only
// when the workload and every guard do. A format in which eps
// rounds to 0 does not meet (a zero-variance row would saturate rsqrt). A
// stage whose width the area model does not cost at this workload (the
// output; recip where C is a power of two and the lanes keep no 1/n table)
// is not searched: narrowing it would buy nothing and hold less.
//
// The output stage's fraction bits (a backward's: dx, dgamma and dbeta) are
// the resolution the ULPs of max_ulp are floored at (as `run` reports them):
// they are the accuracy's yardstick, kept as the arch gives them (set them
// with --set), so that `run` of the chosen arch reports what the search
// measured. Their integer bits are searched.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/arch.hpp"
#include "sim/config/workload.hpp"
#include "sim/explore/format_space.hpp"

namespace normsim::explore {

/// One accuracy target: `metric <= value` (or >= for frac_within_1ulp).
struct WidthTarget {
  enum class Metric { max_ulp, rel_l2, max_abs, rms, frac_within_1ulp };
  Metric metric = Metric::max_ulp;
  bool at_most = true;
  double value = 1.0;
  std::string text;  ///< as given
  bool met(double v) const { return at_most ? v <= value : v >= value; }
};
/// "max_ulp<=1", "rel_l2<=1e-3", "frac_within_1ulp>=0.999"; ConfigError
/// naming --target and what is allowed otherwise.
WidthTarget parse_width_target(const std::string& text);
/// The report name of a metric: max_ulp_error, rel_l2_error, ...
std::string metric_name(WidthTarget::Metric m);

/// The guard set: row lengths crossed with input models. `automatic`: the
/// workload's C and about 0.73 C, 1.25 C and 2.6875 C (a LLaMA MLP's width
/// over its model width, 11008 / 4096), crossed with the workload's own
/// inputs and, when the pass is forward (a backward takes x in the
/// forward's formats, which it does not search), every shipped
/// LLM-activation model (the shipped workloads of `{kind: llm}` inputs, at
/// their parameters and seed), and Gaussian rows where the workload's own
/// are LLM activations. Or as listed: the listed row lengths and the
/// workload's own C, crossed with its own inputs and (`llm`) the shipped
/// models.
struct WidthGuards {
  bool automatic = true;
  std::vector<int64_t> hidden;  ///< row lengths to hold the choice at (besides the workload's)
  bool llm = false;             ///< cross them with the shipped LLM-activation models
};
/// The automatic guards' row lengths around `hidden`.
std::vector<int64_t> automatic_guard_hidden(int64_t hidden);
/// "auto", "none", or a comma list of hidden=N and llm; ConfigError naming
/// --guard otherwise.
WidthGuards parse_width_guards(const std::string& text);

struct WidthSearchOptions {
  std::vector<WidthTarget> targets;
  WidthGuards guards;
  int margin_bits = 0;  ///< integer and fraction bits added to every searched stage after the search
  std::vector<std::string> stages;  ///< by name; empty: every stage the datapath uses
  int64_t sample_rows = 64;         ///< the first round's sample
  int threads = 1;
  /// Called after each evaluation (progress); may be empty.
  std::function<void(const struct WidthEvaluation&)> on_evaluation;
};

/// A metric's value in an evaluation's figures.
double metric_value(const WidthMetrics& m, WidthTarget::Metric metric);

struct WidthEvaluation {
  int index = 0;
  int round = 0;          ///< 0: the first sample; each failed confirmation adds one
  std::string phase;      ///< start, ranges, widen, precision, combine, descend, confirm
  std::string move;       ///< what changed from the candidate it was built from ("xhat.frac 18->12")
  int64_t rows = 0;       ///< rows evaluated
  SearchFormats formats;
  double datapath_um2 = 0;
  WidthMetrics metrics;
  bool meets = false;     ///< every target met, no overflow, every output finite
  std::string error;      ///< why it could not be evaluated (invalid formats, the model's 128-bit intermediates)
  std::string refused;    ///< evaluated, but not a design to build (eps rounds to 0)
  std::vector<WidthMetrics> guard_metrics;  ///< each guard's (WidthSearchResult::guards' order); `metrics` is the worst with the workload's
};

/// One problem of the guard set, as the search ran it.
struct WidthGuard {
  std::string name;   ///< "hidden 2990", "hidden 11008, llama3-70b-acts inputs"
  std::string model;  ///< "own" (the workload's inputs) or the shipped workload whose LLM-activation model it takes
  int64_t hidden = 0;
  int64_t rows = 0;  ///< a confirmation's rows (the workload's); each round samples as many as the workload's sample
  WidthMetrics chosen;  ///< the choice on all its rows
};

struct WidthSearchResult {
  std::string key;                 ///< the arch key of the slots: formats or backward_formats
  std::vector<std::string> names;  ///< every slot's stage name
  std::vector<std::string> held_names;  ///< what WidthMetrics::held holds
  std::vector<int> stages;    ///< searched (slots)
  std::vector<int> uncosted;  ///< asked for, but their width costs no area here: kept as the arch has them
  std::vector<WidthGuard> guards;
  int margin_bits = 0;
  SearchFormats start, chosen;
  double start_um2 = 0, chosen_um2 = 0;
  WidthMetrics start_all_rows, chosen_all_rows;  ///< both on every row
  bool start_meets = false;
  std::string node;
  double ulp_floor = 0;  ///< the yardstick every evaluation's ULPs use (the start's output lsb)
  std::vector<WidthEvaluation> evaluations;
};

/// ConfigError when the arch is not fixed point or the targets cannot be
/// met by any formats up to 64 bits (naming the stage or target).
WidthSearchResult search_widths(const config::Workload& w, const config::Arch& a, const WidthSearchOptions& o);

/// `arch.<key>.<stage>.bits=`/`frac=` overrides for every stage whose
/// chosen format differs from the start (the arch YAML the search writes).
std::vector<std::string> format_overrides(const WidthSearchResult& r);

/// The searched space's formats of an arch (to read the written arch back).
SearchFormats searched_formats(const WidthSearchResult& r, const config::Arch& a);

}  // namespace normsim::explore
