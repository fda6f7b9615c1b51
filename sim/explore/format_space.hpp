// What a width search chooses formats for. A forward workload: the
// datapath's stages (the arch's `formats.<stage>`). A backward workload: the
// backward's stages (`backward_formats.<stage>`), the forward's formats --
// the x, mean and rstd it saved -- held as the arch gives them. A space
// evaluates one set of formats on rows of one problem (the workload, or a
// guard of it) bit-accurately and costs it with sim/area's model; the search
// (width_search.hpp) sees only slots, names and these figures.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/config/arch.hpp"
#include "sim/config/workload.hpp"
#include "sim/core/fixed_point.hpp"
#include "sim/core/norm_problem.hpp"

namespace normsim::explore {

/// One format per slot of a space (a forward Stage, or a BackwardStage).
using SearchFormats = std::vector<core::FixedFormat>;

/// The figures of one evaluation: the output's errors (a backward's: dx's),
/// what must not exceed the start's, every output's non-finite values, and
/// the overflows per slot.
struct WidthMetrics {
  double max_ulp = 0, rel_l2 = 0, max_abs = 0, rms = 0, frac_within_1ulp = 0;
  /// Held at the start's: a backward's dgamma and dbeta errors (the space's held_names()).
  std::vector<double> held;
  uint64_t nonfinite = 0;
  std::vector<uint64_t> overflows;  ///< per slot
  uint64_t overflow_total() const;
  /// This and `o` together: the worse of each metric, overflows summed.
  void add_worst(const WidthMetrics& o);
};

class FormatSpace {
 public:
  virtual ~FormatSpace() = default;
  /// The arch key the slots live under: "formats" or "backward_formats".
  virtual std::string key() const = 0;
  /// Every slot's name (formats.<name>).
  virtual std::vector<std::string> names() const = 0;
  /// What WidthMetrics::held holds (empty: nothing).
  virtual std::vector<std::string> held_names() const { return {}; }
  /// The slots the datapath uses, in data-flow order.
  virtual std::vector<int> used() const = 0;
  /// The arch's formats of this space.
  virtual SearchFormats of(const config::Arch& a) const = 0;
  /// A slot whose fraction is a yardstick of the errors (the ulps `run`
  /// floors at): its integer bits are searched, its fraction kept.
  virtual bool yardstick(int slot) const = 0;
  /// The fewest fraction bits slot may have.
  virtual int min_frac(int slot, const core::FixedFormat& f) const = 0;
  /// The datapath's area at these formats, um^2.
  virtual double area_um2(const SearchFormats& f) const = 0;
  /// Why these formats cannot be evaluated ("" when they can).
  virtual std::string invalid(const SearchFormats& f) const = 0;
  /// Why these formats are no design to build though they evaluate ("" when none).
  virtual std::string refused(const SearchFormats& f) const = 0;
  /// The ulp floor of the main output (the yardstick of max_ulp at the start).
  virtual double ulp_floor() const = 0;
  /// Adds a problem to evaluate on (the workload first, then each guard);
  /// returns its index.
  virtual int add_problem(const config::Workload& w) = 0;
  /// `rows` (problem `problem`, or a sample of it) at formats f.
  virtual WidthMetrics measure(int problem, const core::NormProblem& rows, const SearchFormats& f, int threads) const = 0;
};

/// The space of a workload on a fixed-point arch (a backward workload's:
/// the backward's formats, which the arch must have).
std::unique_ptr<FormatSpace> make_format_space(const config::Workload& w, const config::Arch& a);

}  // namespace normsim::explore
