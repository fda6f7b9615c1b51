#include "sim/asic/asic_run.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <exception>
#include <string_view>
#include <thread>

#include "sim/asic/norm_accelerator.hpp"
#include "sim/asic/replay_path.hpp"
#include "sim/asic/run_geometry.hpp"
#include "sim/asic/sim_time.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/datapath_config.hpp"
#include "sim/core/functional_run.hpp"
#include "sim/core/row_inputs.hpp"
#include "sim/core/row_sample.hpp"

namespace normsim::asic {

namespace {
constexpr int kSampleGroups = 8;  ///< a row sample's error is also reported per group, for its spread
std::string fmt_bytes(uint64_t b) { return std::to_string(b) + " B"; }

// SystemC displays its info and warning reports on stdout, where they would
// break a --json report: warnings go to stderr, infos (such as the VCD's
// timescale note) nowhere; errors keep SystemC's own actions (they throw).
void systemc_reports_off_stdout(const sc_core::sc_report& r, const sc_core::sc_actions& actions) {
  if (r.get_severity() == sc_core::SC_INFO) return;
  // A VCD samples every cycle (its unit is the cycle's ns); the kernel's
  // steps at fractions of a cycle in between are not written, as meant.
  if (std::string_view(r.get_msg_type()).find("not representable in VCD time units") != std::string_view::npos) return;
  if (r.get_severity() == sc_core::SC_WARNING) {
    std::fprintf(stderr, "normsim: SystemC warning: %s\n", r.what());
    return;
  }
  sc_core::sc_report_handler::default_handler(r, actions);
}
// The design's timing at the clock (sim/rtl/timing_closure.hpp), from the
// configured latencies: its SRAM banks are those the area costs.
rtl::TimingClosure timing_closure_of(const config::Workload& w, const config::Arch& a, const AsicConfig& c, const AsicOptions& o) {
  const double sram_bytes = c.sram.area_at_capacity ? static_cast<double>(c.sram.capacity_bytes)
                                                    : static_cast<double>(traffic_identity(w, a, c).onchip_bytes());
  return rtl::close_timing(config::datapath_config(w, a, o.algorithm), c, sram_bytes);
}

// resolve_asic_config, and the closure it applied (from the configured latencies) when `closure_out` is given.
AsicConfig resolve(const config::Workload& w, const config::Arch& a, const AsicOptions& o, rtl::TimingClosure* closure_out) {
  if (!a.asic)
    throw config::ConfigError(a.source + ": key 'asic': missing: this arch has no timing model (allowed: an arch with an "
                                         "'asic' section, e.g. workloads/arch/asic-default.yaml)");
  config::check_fusion(w, a);
  AsicConfig c = *a.asic;
  if (o.path) c.path = *o.path;
  if (auto e = config::asic_params().check(c))
    throw config::ConfigError(config::format_config_error(a.source, 0, "asic." + e->key_path, e->problem.problem, e->problem.allowed));
  const auto alg = o.algorithm.value_or(a.algorithm);
  if (w.is_backward()) {
    // The backward (docs/ASIC.md, "Backward"): its formats and order, no
    // statistics written (it reads the forward's); its units are its own
    // (unit_registry.cpp), each with its latency key.
    (void)config::backward_config(w, a);
    if (o.rtl) throw config::ConfigError("--rtl: the backward has no lock-stepped RTL pipeline (drop --rtl)");
    c.write_stats = false;
  } else if (w.norm == core::NormKind::layernorm && alg == core::VarianceAlgorithm::two_pass)
    throw config::ConfigError(a.source + ": key 'algorithm': two-pass needs a third pass over x, which the ASIC "
                                         "datapath does not have (allowed: welford, single-pass)");
  if (o.sample_rows > 0 && (w.is_backward() || o.rtl || o.keep_outputs))
    throw config::ConfigError(std::string("--sample-rows: ") +
                              (w.is_backward() ? "a backward's numerics run on every row" : o.rtl ? "--rtl checks every row" : "the outputs kept are every row's") +
                              " (allowed: --sample-rows on a forward's timing model, without --rtl or saved outputs)");
  // --rtl: the built RTL must be this datapath, checked before any work.
  if (o.rtl) {
    if (!o.numerics) throw config::ConfigError("--rtl: the RTL computes the numerics (drop --no-numerics)");
    if (const std::string why = rtl_pipeline_mismatch(a, config::datapath_config(w, a, o.algorithm)); !why.empty())
      throw config::ConfigError(a.source + ": --rtl: " + why);
  }
  const TrafficIdentity id = traffic_identity(w, a, c);
  const uint64_t need = id.onchip_bytes();
  if (need > c.sram.capacity_bytes) {
    // What would run: this SRAM on another path, or this path with more SRAM.
    std::string fits;
    for (const config::InputPath p : {config::InputPath::sram_replay, config::InputPath::dram_reread, config::InputPath::partial_replay}) {
      if (p == c.path) continue;
      AsicConfig other = c;
      other.path = p;
      if (const uint64_t n = traffic_identity(w, a, other).onchip_bytes(); n <= c.sram.capacity_bytes)
        fits += std::string(fits.empty() ? "" : ", ") + "--path " + std::string(to_string(p)) + " (needs " + fmt_bytes(n) + ")";
    }
    throw config::ConfigError(
        a.origin_of("asic.sram.capacity_bytes") + ": key 'asic.sram.capacity_bytes': " + fmt_bytes(c.sram.capacity_bytes) + " is too small for " +
        std::string(to_string(c.path)) + " of " + w.name + " (hidden " + std::to_string(w.hidden) + ", " +
        std::string(core::to_string(w.input.dtype)) + "): needs at least " + fmt_bytes(need) + " (" +
        std::to_string(c.rows_in_flight) + " row buffers of " + fmt_bytes(replay_row_buffer_bytes(c, w.hidden, row_elem_bytes(w), 1)) +
        " + " + fmt_bytes(id.param_bytes) + " of parameters" +
        (id.reread_fifo_bytes ? " + " + fmt_bytes(id.reread_fifo_bytes) + " of re-read FIFO" : std::string()) +
        (id.accumulator_bytes ? " + " + fmt_bytes(id.accumulator_bytes) + " of dgamma/dbeta accumulator" : std::string()) +
        ") (allowed: --set arch.asic.sram.capacity_bytes=" + std::to_string(need) + " or more" +
        (fits.empty() ? std::string() : ", or with this SRAM " + fits) + ")");
  }
  // Timing closure: the units and the SRAM's banks at the clock; stages
  // added past a unit's maximum frequency. The backward's units have no
  // depth fit yet: its latencies are taken as configured.
  rtl::TimingClosure closure = timing_closure_of(w, a, c, o);
  if (w.is_backward()) closure.units.clear(), closure.violation.clear();  // the SRAM's banks alone
  if (!closure.violation.empty())
    throw config::ConfigError(a.origin_of("asic.clock_ghz") + ": key 'asic.clock_ghz': value " + config::format_number(c.clock_ghz) +
                              " is too fast: " + closure.violation + " (allowed: a clock_ghz the design meets, a faster node or supply_v" +
                              (c.past_fmax == config::PastFmax::refuse ? ", or asic.past_fmax: add_stages)" : ")"));
  c = rtl::with_closed_timing(c, closure);
  if (closure_out) *closure_out = closure;
  // --rtl-full: the clocked model (the RTL is cycle-discrete), on a design the built RTL carries.
  if (o.rtl_full) {
    c.timing = config::UnitTiming::cycle;
    if (const std::string why = rtl_unit_mismatch(make_run_geometry(w, a, c), c, a); !why.empty())
      throw config::ConfigError(a.source + ": " + why);
  }
  // A residual workload also holds r and z (the sum: stored in the input's type).
  const uint64_t residual_elem_bytes =
      w.residual ? static_cast<uint64_t>(core::elem_bytes(w.residual->tensor.dtype) + core::elem_bytes(w.input.dtype)) : 0;
  // A backward also holds dy and its gradients' partials or accumulators.
  const uint64_t grad_elem_bytes = w.is_backward() ? static_cast<uint64_t>(core::elem_bytes(w.backward.dy.dtype)) : 0;
  const uint64_t grad_bytes = id.dram_bytes[static_cast<int>(Traffic::partials)] + id.dram_bytes[static_cast<int>(Traffic::param_grads)] +
                              (w.is_backward() ? static_cast<uint64_t>(w.hidden * param_grad_count(w) * param_grad_acc_bytes(a)) : 0);
  const uint64_t footprint = static_cast<uint64_t>(w.elements()) *
                                 (static_cast<uint64_t>(core::elem_bytes(w.input.dtype) + core::elem_bytes(w.output.dtype)) +
                                  residual_elem_bytes + grad_elem_bytes) +
                             static_cast<uint64_t>(param_bytes(w, a)) + static_cast<uint64_t>(w.rows) * 8 + grad_bytes;
  if (footprint > c.dram.capacity_bytes)
    throw config::ConfigError(w.origin_of("rows") + ": key 'rows': the workload needs " + fmt_bytes(footprint) + " of DRAM (input, " +
                              (w.residual ? "residual, sum, " : "") + "output, parameters, statistics), more than " + a.source +
                              "'s asic.dram.capacity_bytes = " + fmt_bytes(c.dram.capacity_bytes));
  return c;
}

// Why a run must simulate every row, or "" when the fast-forward may look
// for a period: the RTL lock step checks every row, and dgamma/dbeta
// partials close every partial_rows rows, a period longer than it looks for.
// (A separate adder's pass ends before the first row; the passes after the
// last row take the whole tensor's bytes and start m T later.)
std::string fast_forward_refusal(const config::Workload& w, const AsicConfig& c, const AsicOptions& o) {
  if (!o.fast_forward) return "--no-fast-forward";
  if (o.rtl) return "--rtl: every row runs in lock step with the RTL";
  if (o.rtl_full) return "--rtl-full: the RTL runs every row";
  if (w.is_backward() && c.param_grad_accumulator.path == config::ParamGradPath::partials)
    return "dgamma/dbeta partials close every partial_rows rows";
  return "";
}

// The numerics of a run: beside the simulation on a thread (the functional
// model on every row or a sample of them, or the backward's), or inside the
// units (--rtl: the row arithmetic they call, checked by an OutputChecker).
// finish() joins the thread and rethrows what it threw; the destructor joins
// it on every other way out (an exception in the simulation too).
class RunNumerics {
 public:
  RunNumerics(const config::Workload& w, const config::Arch& a, const AsicOptions& o, AsicResult& res)
      : dcfg_(config::datapath_config(w, a, o.algorithm)) {
    core::NumericsResult& num = res.numerics;
    if (o.numerics && w.is_backward()) {
      core::init_numerics(num, w, dcfg_);
      const core::BackwardConfig bcfg = config::backward_config(w, a);
      beside([&res, &w, &o, bcfg, this] {
        res.backward = core::run_backward_functional(w, dcfg_, bcfg, o.keep_outputs ? &res.backward_outputs : nullptr);
      });
    } else if (o.numerics && o.sample_rows > 0 && o.sample_rows < w.rows) {
      beside([&res, &w, &o, this] { res.sample = sample_rows(w, o, res.numerics); });
    } else if (o.numerics && !o.rtl) {
      beside([&res, &w, &o, this] {
        core::FunctionalResult f =
            core::run_functional(w, dcfg_, core::FunctionalOptions{o.keep_outputs, o.keep_inputs, std::max(1, o.threads)});
        res.numerics = std::move(f.numerics);
        res.outputs = std::move(f.outputs);
      });
    } else if (o.numerics) {
      core::generate_params(w, gamma_, beta_);
      dp_ = std::make_unique<core::NormDatapath>(dcfg_, gamma_, beta_);
      core::init_numerics(num, w, dcfg_);
      num.counters.add(dp_->parameter_counters());
      if (o.keep_outputs) res.outputs.allocate(w.rows, w.hidden, o.keep_inputs);
      checker_ = std::make_unique<core::OutputChecker>(w, dp_->output_lsb(), gamma_, beta_, o.keep_outputs ? &res.outputs : nullptr);
      arith_ = RowArithmetic{&w, dp_.get(), checker_.get(), &num, nullptr};
    } else {
      core::init_numerics(num, w, dcfg_);
    }
  }
  ~RunNumerics() {
    if (thread_.joinable()) thread_.join();
  }
  const core::DatapathConfig& datapath() const { return dcfg_; }
  const std::vector<float>& gamma() const { return gamma_; }
  const std::vector<float>& beta() const { return beta_; }
  /// The units' arithmetic (--rtl), or null when the numerics run beside them or not at all.
  RowArithmetic* in_units() { return arith_.datapath ? &arith_ : nullptr; }
  void check_against(RtlPipeline* rtl) { arith_.rtl = rtl; }
  void finish() {
    if (thread_.joinable()) thread_.join();
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  template <class F>
  void beside(F&& f) {
    thread_ = std::thread([this, f = std::forward<F>(f)] {
      try {
        f();
      } catch (...) {
        failure_ = std::current_exception();
      }
    });
  }
  // A sample of the rows, in interleaved groups: the error over all of
  // them, and its spread from group to group.
  AsicResult::RowSample sample_rows(const config::Workload& w, const AsicOptions& o, core::NumericsResult& num) const {
    const std::vector<int64_t> rows = core::sampled_rows(w.rows, o.sample_rows);
    AsicResult::RowSample s;
    s.rows = static_cast<int64_t>(rows.size());
    s.groups = static_cast<int>(std::min<int64_t>(kSampleGroups, s.rows));
    for (int g = 0; g < s.groups; ++g) {
      std::vector<int64_t> group;
      for (size_t k = static_cast<size_t>(g); k < rows.size(); k += static_cast<size_t>(s.groups)) group.push_back(rows[k]);
      const core::FunctionalResult f =
          core::run_functional(core::rows_of(w, std::move(group)), dcfg_, core::FunctionalOptions{false, false, std::max(1, o.threads)});
      const double rel = f.numerics.output_error.rel_l2(), ulp = f.numerics.output_error.max_ulp();
      s.rel_l2_error_min = g ? std::min(s.rel_l2_error_min, rel) : rel;
      s.rel_l2_error_max = g ? std::max(s.rel_l2_error_max, rel) : rel;
      s.max_ulp_error_min = g ? std::min(s.max_ulp_error_min, ulp) : ulp;
      s.max_ulp_error_max = g ? std::max(s.max_ulp_error_max, ulp) : ulp;
      if (g == 0) num = f.numerics;
      else core::merge_numerics(num, f.numerics);
    }
    return s;
  }
  core::DatapathConfig dcfg_;
  std::vector<float> gamma_, beta_;
  std::unique_ptr<core::NormDatapath> dp_;
  std::unique_ptr<core::OutputChecker> checker_;
  RowArithmetic arith_;
  std::thread thread_;
  std::exception_ptr failure_;
};

// A further simulation in this process elaborates in a fresh SystemC
// context (the last one's modules are gone; its kernel is left behind).
void fresh_simulation_context(bool whole_cycles) {
  static int simulations = 0;
  if (simulations++ > 0) {
    sc_core::sc_curr_simcontext = new sc_core::sc_simcontext;
    sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
  }
  sc_core::sc_report_handler::set_handler(systemc_reports_off_stdout);
  set_cycle_resolution();
  g_whole_cycles = whole_cycles;
}

// Runs the elaborated model to its last row: the fast-forward where the run
// allows it, the VCD of the first rows when asked. Fills res.fast_forward.
void simulate(NormAccelerator& top, const config::Workload& w, const AsicOptions& o, AsicResult& res) {
  const std::string no_skip = fast_forward_refusal(w, res.cfg, o);
  if (no_skip.empty()) top.fast_forward({.rows = w.rows, .first_row = o.trace_file.empty() ? 0 : o.trace_rows});
  sc_core::sc_trace_file* tf = nullptr;
  if (!o.trace_file.empty()) {
    std::string base = o.trace_file;
    if (base.size() > 4 && base.substr(base.size() - 4) == ".vcd") base.resize(base.size() - 4);
    tf = sc_core::sc_create_vcd_trace_file(base.c_str());
    tf->set_time_unit(1, sc_core::SC_NS);
    top.trace(tf, o.trace_rows);
  }
  sc_core::sc_start();
  if (tf) sc_core::sc_close_vcd_trace_file(tf);
  if (top.output().rows_done() != top.row_limit())
    throw std::runtime_error("asic model stopped after " + std::to_string(top.output().rows_done()) + " of " +
                             std::to_string(top.row_limit()) + " rows");
  res.fast_forward = top.fast_forward_result();
  res.fast_forward.enabled = no_skip.empty();
  res.fast_forward.rows_simulated = top.output().rows_done();
  if (!no_skip.empty()) res.fast_forward.reason = no_skip;
  else if (!res.fast_forward.applied && res.fast_forward.reason.empty())
    res.fast_forward.reason = "no period found in the " + std::to_string(w.rows) + " rows";
}

// The RTL lock step's account, and its latencies against the model's.
RtlCheck rtl_check(const RtlPipeline& rtl, const AsicConfig& cfg, const core::MergeSchedule& merge) {
  RtlCheck c;
  c.rows_checked = rtl.rows_checked();
  c.rtl_cycles = rtl.rtl_cycles();
  c.stats_latency_cycles = rtl.stats_latency_cycles();
  c.normalize_latency_cycles = rtl.normalize_latency_cycles();
  c.model_stats_latency_cycles =
      cfg.welford_lanes.latency_cycles + merge.latency_cycles(cfg.chan_merge_tree.level_cycles) + cfg.rsqrt.latency_cycles;
  c.model_normalize_latency_cycles = cfg.normalize.latency_cycles;
  c.seconds = rtl.seconds();
  if (c.stats_latency_cycles != c.model_stats_latency_cycles || c.normalize_latency_cycles != c.model_normalize_latency_cycles)
    throw std::runtime_error("--rtl: the RTL pipeline took " + std::to_string(c.stats_latency_cycles) + " / " +
                             std::to_string(c.normalize_latency_cycles) + " cycles (statistics / normalise), the model " +
                             std::to_string(c.model_stats_latency_cycles) + " / " +
                             std::to_string(c.model_normalize_latency_cycles));
  return c;
}

// The result from the finished model (the passes after its last row still
// move bytes through its memories): its cycles, every unit's counters
// (with the skipped periods' deltas added), the DRAM's bytes by kind and
// the SRAM's, each read by its name.
void assemble(NormAccelerator& top, const RunGeometry& g, const config::Workload& w, const config::Arch& a,
              AsicResult& res) {
  // Skipped periods: every time after the cut moves by m T, every counter by m deltas.
  const double skipped_cycles = res.fast_forward.cycles_skipped();
  // The run ends when its last write is done: at that edge, with whole cycles.
  res.cycles = edge_of(top.output().last_output_cycle()) + skipped_cycles;
  for (const auto& [pass, done] : top.finish_after_rows()) {  // a backward's dgamma/dbeta, its branch pass
    if (pass == "param_grad_accumulator") res.param_grads_done_cycle = edge_of(done) + skipped_cycles;
    res.cycles = std::max(res.cycles, edge_of(done) + skipped_cycles);
  }
  res.first_stats_cycle = top.lanes().first_stats_cycle();
  res.last_lanes_cycle = top.lanes().last_row_cycle() + skipped_cycles;
  res.unit_stats = top.stats();
  std::vector<double> values = top.counter_values();
  if (res.fast_forward.applied) {
    const double m = static_cast<double>(res.fast_forward.periods_skipped);
    for (size_t i = 0; i < values.size(); ++i) values[i] += m * res.fast_forward.counter_delta.at(i);
    size_t i = 0;
    for (core::StatSet& s : res.unit_stats)
      for (core::Stat& st : s.stats) st.value = values[i++];
  }
  const std::vector<std::string> names = top.counter_names();
  auto count = [&](const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) throw std::logic_error("run_asic: no counter " + name);
    return static_cast<uint64_t>(values[static_cast<size_t>(it - names.begin())]);
  };
  for (int k = 0; k < kTrafficKinds; ++k) res.dram_bytes[k] = count("dram.bytes." + std::string(to_string(static_cast<Traffic>(k))));
  res.dram_bytes_read = count("dram.total_bytes_read");
  res.dram_bytes_written = count("dram.total_bytes_written");
  // The parameters are written into their buffer once and read once per row.
  // The SRAM holds the row buffers, gamma/beta (written once, read every row)
  // and the re-read FIFO (every re-read byte written and read once).
  const std::string output = top.output().basename();
  const uint64_t fifo = count(output + ".reread_fifo_read_bytes");
  res.param_buffer_read_bytes = count(output + ".param_buffer_read_bytes");
  res.sram_bytes_read = count("sram.bytes_read") + res.param_buffer_read_bytes + fifo;
  res.sram_bytes_written = count("sram.bytes_written") + static_cast<uint64_t>(g.param_bytes) + fifo;
  res.sram_peak_bytes = count("sram.peak_occupancy_bytes");
  res.row_buffers_peak = count("input_path.row_buffers_peak");
  res.row_buffer_waits = count("input_path.row_buffer_waits");
  res.expected = traffic_identity(w, a, res.cfg);
}

}  // namespace

AsicConfig resolve_asic_config(const config::Workload& w, const config::Arch& a, const AsicOptions& o) {
  return resolve(w, a, o, nullptr);
}

// A run in four steps: the config resolved and checked, the numerics
// started (RunNumerics), the model elaborated and simulated, the result
// assembled from its counters.
AsicResult run_asic(const config::Workload& w, const config::Arch& a, const AsicOptions& o) {
  AsicResult res;
  res.cfg = resolve(w, a, o, &res.timing_closure);
  res.bit_accurate = o.numerics;
  res.workload = w;
  res.arch = a;
  const RunGeometry geometry = make_run_geometry(w, a, res.cfg);
  const core::MergeSchedule merge{a.lanes, a.merge.units};

  RunNumerics numerics(w, a, o, res);
  fresh_simulation_context(res.cfg.timing == config::UnitTiming::cycle);
  std::unique_ptr<RtlPipeline> rtl;
  if (o.rtl) {
    rtl = std::make_unique<RtlPipeline>(a, numerics.datapath(), numerics.gamma(), numerics.beta());
    numerics.check_against(rtl.get());
  }
  NormAccelerator top("norm_accelerator", w, a, geometry, res.cfg, merge, numerics.in_units(), o.rows_done);
  // --rtl-full: the verilated unit elaborated beside the model, run on the model's design once it is done.
  std::unique_ptr<RtlUnit> rtl_unit;
  EdgeLog model_acts;
  if (o.rtl_full) {
    rtl_unit = std::make_unique<RtlUnit>(geometry, res.cfg, merge);
    top.log_edges(model_acts);
  }
  simulate(top, w, o, res);
  if (rtl) res.rtl = rtl_check(*rtl, res.cfg, merge);
  assemble(top, geometry, w, a, res);
  if (rtl_unit) res.rtl_full = rtl_unit->compare(model_acts);
  numerics.finish();
  return res;
}

}  // namespace normsim::asic
