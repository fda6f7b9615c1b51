#include "sim/simt/simt_model.hpp"

#include "sim/core/reuse_curve.hpp"
#include "sim/simt/warp_states_model.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace normsim::simt {

namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

Occupancy occupancy(const SubKernel& k, const GpuArch& g) {
  Occupancy o;
  const int warps = static_cast<int>(ceil_div(k.block, g.warp_size));
  const int regs_per_warp =
      static_cast<int>(ceil_div(static_cast<int64_t>(k.registers_per_thread) * g.warp_size, g.register_alloc_unit)) *
      g.register_alloc_unit;
  const int64_t smem_block = k.static_smem_bytes + k.dynamic_smem_bytes + g.smem_reserved_per_block_bytes;
  const int by_threads = g.max_threads_per_sm / (warps * g.warp_size);
  const int by_regs = g.registers_per_sm / (regs_per_warp * warps);
  const int by_smem = static_cast<int>(g.smem_per_sm_bytes / smem_block);
  o.blocks_per_sm = g.max_blocks_per_sm;
  o.limiter = "blocks";
  auto limit = [&](int v, const char* why) {
    if (v < o.blocks_per_sm) {
      o.blocks_per_sm = v;
      o.limiter = why;
    }
  };
  limit(by_threads, "threads");
  limit(by_regs, "registers");
  limit(by_smem, "shared memory");
  o.warps_per_sm = o.blocks_per_sm * warps;
  const int64_t slots = static_cast<int64_t>(g.sms) * o.blocks_per_sm;
  o.waves = slots > 0 ? static_cast<double>(k.grid) / static_cast<double>(slots) : 0;
  o.rows_in_flight = std::min<int64_t>(k.rows, slots * k.rows_per_block / std::max(1, k.blocks_per_row));
  return o;
}

// Latency and DRAM transfer combine as a p-norm. A row slot overlaps its
// rows' latency with other slots' transfers; an SM with R rows in flight
// has R - 1 others to hide behind, a lone one (a block of 1024 threads a
// row, a cluster's half) none: the exponent goes from 1 (R = 1, the two
// add) towards the arch's fitted p as R grows.
double memory_overlap_exponent(const Occupancy& o, const GpuArch& g) {
  const double rows_on_sm = std::max(1.0, static_cast<double>(o.rows_in_flight) / g.sms);
  return 1.0 + (g.memory_overlap_exponent - 1.0) * (1.0 - 1.0 / rows_on_sm);
}

core::Bytes l1_free_bytes(const SubKernel& k, const Occupancy& o, const GpuArch& g) {
  const double smem_per_sm = static_cast<double>(o.blocks_per_sm) *
                             static_cast<double>(k.static_smem_bytes + k.dynamic_smem_bytes);
  // The driver carves at least smem_carveout_bytes out of L1 for shared
  // memory (ncu: 32 KiB for kernels that use little), and gamma/beta, read
  // with every element, stay resident beside the rows.
  return core::Bytes(
      std::max(0.0, g.l1.bytes.value() - std::max(smem_per_sm, g.l1.smem_carveout_bytes.value()) - static_cast<double>(k.param_bytes)));
}

namespace {

// Cycles of the reduction after a pass, along one row's critical path, by
// what the warps wait on.
RowChain reduction_chain(const Pass& p, const SubKernel& k, const GpuArch& g) {
  const double shfl = g.shuffle_latency_cycles, bar = g.barrier_latency_cycles, sm = g.smem_latency_cycles;
  RowChain c;
  // A butterfly: offsets 16..1, a shuffle and an add each.
  auto butterflies = [&](double n) {
    c.shuffle += n * 5 * shfl;
    c.alu += n * 5 * 4;
  };
  // A Chan merge: three shuffles in parallel, two IEEE divisions and a few FMAs, five times.
  auto chans = [&](double n) {
    c.shuffle += n * 5 * shfl;
    c.division += n * 5 * 2 * g.fdiv_latency_cycles;
    c.alu += n * 5 * 16;
  };
  switch (p.after) {
    case Reduction::none: break;
    case Reduction::warp_shuffle: butterflies(1); break;
    case Reduction::block_two_level:
      butterflies(2.0 * p.reductions);
      c.barrier += p.reductions * 2 * bar;
      c.smem += p.reductions * sm;
      break;
    case Reduction::smem_tree: {
      const double levels = std::log2(std::max(2, k.block));
      c.barrier += levels * bar;
      c.smem += levels * sm;
      c.alu += levels * 4;
      break;
    }
    case Reduction::warp_welford: chans(1); break;
    case Reduction::block_welford:
      chans(2);
      c.barrier += 2 * bar;
      c.smem += sm;
      break;
    case Reduction::block_barrier: c.barrier += bar; break;
    // Each block's two-level sum, a cluster barrier, the partials read from
    // the other blocks' shared memory (an SM-to-SM access, about an L2 hit).
    case Reduction::cluster_two_level:
      butterflies(2.0 * p.reductions);
      c.barrier += p.reductions * 3 * bar;
      c.smem += p.reductions * (sm + g.l2.near_hit_latency_cycles);
      break;
  }
  return c;
}

// One row slot's chain for each pass of a row: its loads' latency (in
// batches of loads_in_flight) plus its dependency chain, then the reduction.
// Where a pass's loads are served: the first global pass from DRAM (cold
// caches, unloaded latency: the queueing is in the memory p-norm of the
// duration); a re-read from the L2 or DRAM by the L2 hit fraction, at the
// L2's far-partition latency (measured 515 cycles; lines are homed in either
// partition by address) even where the bytes come from L1 -- the profiled
// normalise loops (ncu_sections: v4 and v5 at 1024 x 4096) take about 700
// cycles per iteration although their lines are L1-resident.
std::vector<RowChain> pass_chains(const SubKernel& k, const GpuArch& g, double l2_hit) {
  const double elems_per_thread = std::ceil(static_cast<double>(k.hidden) / k.threads_per_row);
  const double loads_per_thread =
      std::ceil(static_cast<double>(k.hidden * k.elem_bytes) / (k.threads_per_row * k.vector_bytes));
  const double l2_lat = g.l2.far_hit_latency_cycles;
  const double reread_lat = l2_hit * l2_lat + (1 - l2_hit) * g.dram.latency_cycles.value();
  std::vector<RowChain> chains;
  bool first_global = true;
  for (const Pass& p : k.passes) {
    RowChain c = reduction_chain(p, k, g);
    double batches = std::ceil(loads_per_thread / std::max(1, p.loads_in_flight));
    if (p.remainder_instr_per_elem > 0) {
      // Whole bodies, then one load at a time for the leftover elements.
      const double bodies = std::floor(elems_per_thread / p.body_elems);
      const double leftover = elems_per_thread - bodies * p.body_elems;
      batches = std::ceil(bodies * p.body_elems * loads_per_thread / elems_per_thread / std::max(1, p.loads_in_flight)) +
                leftover * loads_per_thread / elems_per_thread;
    }
    if (p.source == Source::params) {
      const double param_loads = std::ceil(static_cast<double>(k.param_bytes) / (k.block * 16.0));
      c.global_load += std::ceil(param_loads / std::max(1, p.loads_in_flight)) * l2_lat;
    } else if (is_global(p.source)) {
      double lat = first_global ? g.dram.latency_cycles.value() : reread_lat;
      if (k.uncoalesced) lat = g.l2.far_hit_latency_cycles;  // scattered lines: every load an L1 miss
      c.global_load += batches * lat;
      first_global = false;
    } else if (p.source == Source::shared) {
      c.shared_load += batches * g.smem_latency_cycles;
    }
    // In-order issue: the loads of the next batch leave only after the
    // arithmetic that uses this batch, so the load latency and the
    // per-element dependency chain add up.
    c.alu += elems_per_thread * p.chain_cycles_per_elem;
    c.division += elems_per_thread * p.divisions_per_elem * g.fdiv_latency_cycles;
    chains.push_back(c);
  }
  return chains;
}

}  // namespace

RowChain row_chain(const SubKernel& k, const GpuArch& g, double l2_hit) {
  RowChain sum;
  for (const RowChain& c : pass_chains(k, g, l2_hit)) sum += c;
  return sum;
}

namespace {

std::vector<double> pass_cycles(const SubKernel& k, const GpuArch& g, double l2_hit) {
  std::vector<double> cycles;
  for (const RowChain& c : pass_chains(k, g, l2_hit)) cycles.push_back(c.total());
  return cycles;
}

// What the model cannot know, as a launch is evaluated: distance_scale
// multiplies the x in flight that sets every reuse distance (per SM for the
// L1, across the GPU for the L2); phase_scale the steepness of the
// out-of-phase reuse curve (how spread the rows' phases are); dirty_shift
// the written bytes still dirty at the end. The prediction is all 1s and
// 0; the elasticity and the ranges move them.
struct Perturbation {
  double distance_scale = 1.0, phase_scale = 1.0, dirty_shift_bytes = 0.0;
};

// A warp instruction of the epilogue touches this many 32-byte sectors: bf16's
// lanes, 32 B apart, a sector each; fp32's, 16 B apart, two to a sector.
double epilogue_sectors_per_instr(const SubKernel& k, const GpuArch& g) {
  return std::clamp(g.warp_size * k.epilogue_lane_stride_bytes / 32.0, 1.0, static_cast<double>(g.warp_size));
}

// The L1's and the L2's hit fractions of the re-read passes (r.l1_hit, r.l2_hit, r.x_in_flight_bytes).
void predict_reuse(const SubKernel& k, const GpuArch& g, const Perturbation& pert, LaunchPrediction& r) {
  const double distance_scale = pert.distance_scale;
  const Occupancy& o = r.occ;
  const double in = static_cast<double>(k.input_bytes);
  const double row_bytes = static_cast<double>(k.hidden * k.elem_bytes);
  const int gp = k.global_passes();

  // --- reuse of re-read passes ------------------------------------------------
  // L1: the rows one SM works on at once against the L1 left beside shared
  // memory (this decides the L2 traffic; the latency of a re-read is taken
  // as the L2's, below).
  const double l1_free = l1_free_bytes(k, o, g).value();
  const double rows_per_sm = static_cast<double>(o.rows_in_flight) / g.sms;
  r.l1_hit = gp > 1 && !k.uncoalesced && l1_free > 0
                 ? core::reuse_hit_fraction(distance_scale * rows_per_sm * row_bytes, {l1_free, g.l1.reuse_steepness})
                 : 0.0;
  // L2: the reuse distance D(f), bytes that enter the L2 between a row's
  // access to the byte at fraction f of the row and its next access: every
  // access to another line in between pushes this one towards eviction.
  // Lines at normal priority (plain and .CONSTANT loads, a re-read that
  // hits refreshing its line, plain stores at store_weight) count in full;
  // evict-first ones (__ldcs, __stcs) are the first victims and recycle
  // among themselves, so together they displace at most a pool of normal
  // lines. normal[p], evict_first[p]: those bytes per byte of x for pass p
  // (L1 hits stay out; stores of y in the last pass). Curves, pool and
  // store weight are measured by gpu_ref's l2_sweep_probe (docs/SIMT.md).
  if (gp > 1) {
    const core::L2Reuse reuse = g.l2.scaled_reuse();
    core::PassInsertions ins;
    for (const Pass& p : k.passes) {
      if (!is_global(p.source)) continue;
      const double share = ins.normal.empty() ? 1.0 : 1 - r.l1_hit;
      const bool ef = p.source == Source::global_streaming;
      ins.normal.push_back(ef ? 0.0 : share);
      ins.evict_first.push_back(ef ? share : 0.0);
    }
    const double out_per_in = in > 0 ? static_cast<double>(k.output_bytes) / in : 0.0;
    if (k.streaming_store)
      ins.evict_first.back() += out_per_in;
    else
      ins.normal.back() += out_per_in * reuse.store_weight;
    const double pool = reuse.evict_first_pool_bytes;
    const double rows = static_cast<double>(k.rows);
    const double in_flight = static_cast<double>(std::min(k.rows, o.rows_in_flight));
    r.x_in_flight_bytes = in_flight * row_bytes;
    // Rows that start together sweep their passes in lock step: the byte at
    // f of pass j was last touched at f of pass j-1, and between the two
    // come the rest of pass j-1 and the start of pass j over all X bytes.
    // Lock step is never exact: the phase spread softens (or sharpens) the sweep's curve too.
    core::ReuseCurve sweep_curve = reuse.sweep;
    sweep_curve.steepness = std::max(1.0, sweep_curve.steepness * pert.phase_scale);
    const double sweep = core::lockstep_reread_hit(ins, distance_scale * r.x_in_flight_bytes, pool, sweep_curve);
    double steady = sweep;
    if (k.rows > o.rows_in_flight) {
      // The first round starts in lock step (a sweep over the rows in
      // flight); later rows start as slots free, out of phase (the golden
      // transition cases leave no lock step to later rounds: a fitted share
      // carried from round to round went to zero). Out of phase, the
      // in-flight rows insert at a steady rate, and the byte at f of pass j
      // waits (1 - f) T[j-1] + f T[j] for its re-read: pass times from the
      // latency chain and the pass's DRAM bytes at the rows' share of the
      // bandwidth (combined as the duration's memory p-norm). Iterated: a
      // re-read's misses lengthen its pass. More rows in flight, more spread
      // phases: a softer curve (measured at 1056 and 6336 rows).
      const double bytes_per_cycle = core::per_cycle(g.dram.bytes_per_s, core::mhz(g.sm_clock_mhz)).value();
      const double out_row = static_cast<double>(k.output_bytes) / rows;
      const double in_row = in / rows;
      for (int iter = 0; iter < 4; ++iter) {
        const std::vector<double> cyc = pass_cycles(k, g, steady);
        std::vector<double> T;  // per global pass; other passes join the one before
        for (size_t i = 0; i < k.passes.size(); ++i) {
          if (is_global(k.passes[i].source) || T.empty()) T.push_back(0);
          T.back() += cyc[i];
        }
        for (size_t j = 0; j < T.size(); ++j) {
          double bytes = j == 0 ? in_row : row_bytes * (1 - r.l1_hit) * (1 - steady);
          if (j + 1 == T.size()) bytes += out_row;
          const double dram = in_flight * bytes / bytes_per_cycle, pe = memory_overlap_exponent(o, g);
          T[j] = std::pow(std::pow(T[j], pe) + std::pow(dram, pe), 1.0 / pe);
        }
        core::ReuseCurve curve = reuse.steady_curve(in_flight);
        curve.steepness = std::max(1.0, curve.steepness * pert.phase_scale);
        steady = core::out_of_phase_reread_hit(ins, distance_scale * r.x_in_flight_bytes, T, pool, curve);
      }
    }
    r.l2_hit = core::rounds_reread_hit(sweep, steady, rows, in_flight);
  } else {
    r.l2_hit = 1.0;
  }
}

// DRAM bytes read and written and L2 bytes, from the hit fractions.
void predict_bytes(const SubKernel& k, const GpuArch& g, const Perturbation& pert, LaunchPrediction& r) {
  const double in = static_cast<double>(k.input_bytes);
  const int gp = k.global_passes();

  // --- bytes --------------------------------------------------------------------
  const double miss_later = (1 - r.l1_hit) * (1 - r.l2_hit);
  // Besides x: gamma/beta and earlier launches' statistics once, and the
  // launch's own code and constants (cold caches, as ncu profiles).
  const double launch_bytes = static_cast<double>(k.code_bytes) + g.dram.launch_read_bytes.value();
  r.reread_dram_bytes = in * (gp > 1 ? (gp - 1) * miss_later : 0);
  r.dram_bytes_read = in * (gp > 0 ? 1 + (gp - 1) * miss_later : 0) + static_cast<double>(k.param_bytes) +
                      static_cast<double>(k.extra_read_bytes) + launch_bytes;
  const double written = static_cast<double>(k.output_bytes + k.stats_bytes);
  r.dram_bytes_written = std::max(0.0, written - std::max(0.0, g.l2.dirty_resident_bytes + pert.dirty_shift_bytes));
  // L2 traffic: requests from the SMs (first pass, re-reads that miss L1,
  // stores -- a scattered store a 32-byte sector per lane --, gamma/beta
  // once per SM) plus the fills from DRAM, a re-read's at the weight ncu's
  // count gives it (x read again by a later launch is a re-read too).
  const double store_sector_bytes =
      k.uncoalesced ? written * 32.0 / std::max<int64_t>(1, k.elem_bytes) : written;
  r.l2_bytes = in * (gp > 0 ? 1 + (gp - 1) * (1 - r.l1_hit) : 0) + store_sector_bytes +
               static_cast<double>(k.param_bytes) * std::min<double>(g.sms, static_cast<double>(k.grid)) +
               r.dram_bytes_read -
               (1 - g.l2.reread_fill_weight) * (r.reread_dram_bytes + (k.input_read_before && gp > 0 ? in : 0.0));

  // The epilogue's sectors go through the L2 too: a store's once, a reduction's read and written.
  const double threads = static_cast<double>(k.grid) * k.block;
  r.l2_bytes += threads * (epilogue_sectors_per_instr(k, g) / g.warp_size) *
                (k.epilogue_atomics_per_thread * g.l2.atomic_l2_bytes_per_sector + k.epilogue_stores_per_thread * 32.0);
}

// The duration's bounds (DRAM, latency, issue, shared memory, requests,
// dispatch), how they combine, and what is added once per launch.
void predict_duration(const SubKernel& k, const GpuArch& g, LaunchPrediction& r) {
  const Occupancy& o = r.occ;
  const double in = static_cast<double>(k.input_bytes);
  const double row_bytes = static_cast<double>(k.hidden * k.elem_bytes);
  const int gp = k.global_passes();

  // --- duration bounds ----------------------------------------------------------
  const double clk = g.cycles_per_us();  // cycles per microsecond
  r.dram_us = (r.dram_bytes_read + r.dram_bytes_written) / g.dram.bytes_per_s.value() * 1e6;
  const double elems_per_thread = std::ceil(static_cast<double>(k.hidden) / k.threads_per_row);
  // One row slot (warp, block or thread) walks its rows one after another.
  RowChain chain = row_chain(k, g, r.l2_hit);
  double row_cycles = chain.total();
  double slots_rounds;
  if (k.mapping == RowMapping::element) {
    slots_rounds = std::ceil(o.waves);
    row_cycles = g.dram.latency_cycles.value();  // each thread: one element, its loads in parallel
    chain = RowChain{};
    chain.global_load = row_cycles;
  } else {
    slots_rounds = std::ceil(static_cast<double>(k.rows) / std::max<int64_t>(1, o.rows_in_flight));
  }
  r.latency_us = slots_rounds * (row_cycles + g.round_overhead_cycles) / clk;
  r.row_cycles = row_cycles;
  r.chain = chain;
  r.rounds = slots_rounds;
  // Issue: the warp instructions of every row (element loops plus the
  // row's straight-line code) over the schedulers of the SMs the grid
  // occupies, at the issue rate ncu shows for issue-bound kernels.
  const double sms_used = std::min<double>(g.sms, static_cast<double>(k.grid));
  double instr_per_thread_row = 0;
  for (const Pass& p : k.passes) {
    if (p.remainder_instr_per_elem > 0) {
      const double body = std::floor(elems_per_thread / p.body_elems) * p.body_elems;
      instr_per_thread_row += body * p.instr_per_elem + (elems_per_thread - body) * p.remainder_instr_per_elem;
    } else {
      instr_per_thread_row += elems_per_thread * p.instr_per_elem;
    }
  }
  const double warps_per_row = static_cast<double>(k.threads_per_row) / g.warp_size;
  const double warp_instr = static_cast<double>(k.rows) * warps_per_row * (instr_per_thread_row + k.overhead_instr_per_warp);
  r.warp_instructions = warp_instr;
  r.issue_us = warp_instr / (sms_used * g.schedulers_per_sm * g.issue_per_scheduler) / clk;
  // With few warps per scheduler a warp cannot issue faster than its own
  // dependent instructions complete: rounds x instructions per warp-row x
  // the average dependent latency.
  if (k.mapping != RowMapping::element) {
    // Independent chains (independent_instr_share) issue back to back: a cycle each.
    const double chained = instr_per_thread_row * (1 - k.independent_instr_share) + k.overhead_instr_per_warp;
    const double independent = instr_per_thread_row * k.independent_instr_share;
    r.dependent_issue_us = slots_rounds * (chained * g.dependent_issue_cycles + independent) / clk;
    r.issue_us = std::max(r.issue_us, r.dependent_issue_us);
  }
  // Shared memory: one wavefront per cycle per SM.
  double wavefronts_per_row = 0;
  for (const Pass& p : k.passes) wavefronts_per_row += elems_per_thread * p.smem_wavefronts_per_elem;
  r.smem_us = static_cast<double>(k.rows) * warps_per_row * wavefronts_per_row / sms_used / clk;
  // Scattered loads: one sector request per element per pass, at the SM's L1-miss rate.
  if (k.uncoalesced) {
    const double requests = static_cast<double>(k.rows) * static_cast<double>(k.hidden) * gp / sms_used;
    r.request_us = requests / g.l1.miss_requests_per_cycle / clk;
  }
  // Block dispatch: the GPU starts blocks at a measured rate (empty kernel).
  r.dispatch_us = static_cast<double>(k.grid) * g.block_dispatch_ns * 1e-3;
  // Memory: a load's latency is the unloaded one plus its wait in the DRAM
  // queue, and the queue holds what is in flight; summed over the row
  // chain that approaches (chain at the unloaded latency) + (bytes /
  // bandwidth) when few loads are in flight and the larger of the two when
  // many are.
  // The two overlap partly: a p-norm between their sum (p = 1) and their
  // maximum (p -> infinity), p from the arch (fitted) and the rows an SM
  // holds.
  const double pe = memory_overlap_exponent(o, g);
  const double memory_us = std::pow(std::pow(r.latency_us, pe) + std::pow(r.dram_us, pe), 1.0 / pe);
  r.memory_us = memory_us;
  const double largest = std::max({memory_us, r.issue_us, r.smem_us, r.request_us, r.dispatch_us});
  // The SM's pipes overlap imperfectly: the bounds combine as a p-norm too
  // (p -> infinity: the largest alone).
  const double q = g.bound_overlap_exponent;
  const double worst = std::pow(std::pow(memory_us, q) + std::pow(r.issue_us, q) + std::pow(r.smem_us, q) +
                                    std::pow(r.request_us, q) + std::pow(r.dispatch_us, q),
                                1.0 / q);
  r.bound = largest == memory_us       ? (r.dram_us > r.latency_us ? "dram" : "latency")
            : largest == r.issue_us    ? "issue"
            : largest == r.smem_us     ? "shared memory"
            : largest == r.request_us  ? "l1-miss requests"
                                     : "block dispatch";
  // Once per launch and never overlapped: the first loads' cold start and the
  // last stores' drain to memory.
  // The threads' scalar epilogue (every block reaches it at about the same
  // time in a persistent grid). Atomics: every block adds into the same
  // addresses, so each address takes the grid's reductions one after the
  // other, a warp instruction's sectors at a time (the addresses' chains run
  // side by side); stores go to each block's own addresses, at the L2's
  // rate of sectors written (bf16's lanes, 32 B apart, a sector each;
  // fp32's, 16 B apart, two to a sector).
  const double threads = static_cast<double>(k.grid) * k.block;
  const double sectors_per_instr = epilogue_sectors_per_instr(k, g);
  r.epilogue_us = (k.epilogue_atomics_per_thread > 0
                       ? static_cast<double>(k.grid) * sectors_per_instr * g.l2.atomic_ns_per_sector
                       : 0.0) * 1e-3 +
                  threads * k.epilogue_stores_per_thread * (sectors_per_instr / g.warp_size) /
                      g.l2.scattered_store_sectors_per_ns * 1e-3;
  // Pipeline fill: the first round's loads all leave at the start and queue
  // at the DRAM; nothing downstream starts before they drain, so the bytes
  // in flight over the bandwidth (Little's law at the start) add once.
  const double tensors = in / std::max(1.0, static_cast<double>(k.rows) * row_bytes);  // x (and r, or dy)
  const double first_pass_bytes = gp > 0 ? std::min(in, static_cast<double>(o.rows_in_flight) * row_bytes * tensors) : 0.0;
  r.fill_us = g.dram.fill_weight * first_pass_bytes / g.dram.bytes_per_s.value() * 1e6;
  r.bounds_us = worst;
  r.duration_us = g.launch_overhead_us + g.kernel_tail_cycles / clk + r.fill_us + worst + r.epilogue_us;
}

LaunchPrediction predict_launch(const SubKernel& k, const GpuArch& g, const Perturbation& pert = {}) {
  LaunchPrediction r;
  r.name = k.name;
  r.occ = occupancy(k, g);
  predict_reuse(k, g, pert, r);
  predict_bytes(k, g, pert, r);
  predict_duration(k, g, r);
  r.warps = predict_warp_states(k, g, r);
  return r;
}

}  // namespace

double dram_read_elasticity(const SubKernel& k, const GpuArch& g) {
  if (k.global_passes() < 2) return 0.0;  // x is read once whatever the caches keep
  constexpr double kStep = 1.1;
  const double longer = predict_launch(k, g, {kStep}).dram_bytes_read;
  const double shorter = predict_launch(k, g, {1 / kStep}).dram_bytes_read;
  return std::log(longer / shorter) / (2 * std::log(kStep));
}

namespace {

// The envelope of one launch's counters over what the model cannot know.
struct Envelope {
  Range read, written, l2, duration;
  void add(const LaunchPrediction& l) {
    auto widen = [](Range& r, double v) {
      r.lo = std::min(r.lo, v);
      r.hi = std::max(r.hi, v);
    };
    widen(read, l.dram_bytes_read);
    widen(written, l.dram_bytes_written);
    widen(l2, l.l2_bytes);
    widen(duration, l.duration_us);
  }
};

Envelope launch_envelope(const SubKernel& k, const GpuArch& g, const LaunchPrediction& point) {
  Envelope e{{point.dram_bytes_read, point.dram_bytes_read},
             {point.dram_bytes_written, point.dram_bytes_written},
             {point.l2_bytes, point.l2_bytes},
             {point.duration_us, point.duration_us}};
  const double s = 1 + g.range.in_flight_spread;
  for (double d : {1 / s, 1.0, s})
    for (double ph : {1 / s, 1.0, s})
      if (d != 1.0 || ph != 1.0) e.add(predict_launch(k, g, {d, ph, 0.0}));
  for (double dirty : {-g.range.dirty_spread_bytes, g.range.dirty_spread_bytes})
    e.add(predict_launch(k, g, {1.0, 1.0, dirty}));
  // Scattered stores: their sectors may be filled from DRAM on top.
  if (k.uncoalesced) e.read.hi += g.range.scattered_store_fill * static_cast<double>(k.output_bytes);
  return e;
}

Range widened(Range r, double floor) { return {std::max(0.0, r.lo * (1 - floor)), r.hi * (1 + floor)}; }

}  // namespace

std::string outside_envelope(const LaunchPlan& plan, const GpuArch& gpu) {
  const EnvelopeConfig& e = gpu.envelope;
  std::string out;
  auto check = [&](const char* what, double v, double lo, double hi) {
    char b[160];
    if (lo > 0 && v < lo) std::snprintf(b, sizeof b, "%s %.15g < %.15g", what, v, lo);
    else if (hi > 0 && v > hi) std::snprintf(b, sizeof b, "%s %.15g > %.15g", what, v, hi);
    else return;
    out += (out.empty() ? "" : ", ") + std::string(b);
  };
  check("rows", static_cast<double>(plan.rows), static_cast<double>(e.rows_min), static_cast<double>(e.rows_max));
  check("hidden", static_cast<double>(plan.hidden), static_cast<double>(e.hidden_min), static_cast<double>(e.hidden_max));
  const double x_bytes = static_cast<double>(plan.rows) * plan.hidden * (plan.dtype == DType::fp32 ? 4 : 2);
  check("x bytes", x_bytes, e.x_bytes_min, e.x_bytes_max);
  return out;
}

Prediction predict(const LaunchPlan& plan, const GpuArch& gpu, bool with_sensitivity) {
  Prediction p;
  p.plan = plan;
  p.extrapolated = outside_envelope(plan, gpu);
  double weighted_elasticity = 0, dram_us = 0;
  Envelope sum{};
  for (const SubKernel& k : plan.launches) {
    p.launches.push_back(predict_launch(k, gpu));
    LaunchPrediction& l = p.launches.back();
    if (with_sensitivity) {
      l.dram_read_elasticity = dram_read_elasticity(k, gpu);
      const Envelope e = launch_envelope(k, gpu, l);
      for (auto [to, from] : {std::pair{&sum.read, &e.read}, std::pair{&sum.written, &e.written},
                              std::pair{&sum.l2, &e.l2}, std::pair{&sum.duration, &e.duration}}) {
        to->lo += from->lo;
        to->hi += from->hi;
      }
    }
    weighted_elasticity += l.dram_read_elasticity * l.dram_bytes_read;
    dram_us += l.dram_us;
    p.dram_bytes_read += l.dram_bytes_read;
    p.reread_dram_bytes += l.reread_dram_bytes;
    p.dram_bytes_written += l.dram_bytes_written;
    p.l2_bytes += l.l2_bytes;
    p.warp_instructions += l.warp_instructions;
    p.duration_us += l.duration_us;
  }
  // Duration-weighted over the launches, as ncu_profile.json averages a case's launches.
  for (const LaunchPrediction& l : p.launches) {
    const double w = p.duration_us > 0 ? l.duration_us / p.duration_us : 1.0 / p.launches.size();
    for (size_t i = 0; i < kWarpStates; ++i) p.warps.share[i] += w * l.warps.share[i];
    p.warps.warp_cycles_per_issue += w * l.warps.warp_cycles_per_issue;
    p.warps.achieved_occupancy += w * l.warps.achieved_occupancy;
    p.warps.issue_active += w * l.warps.issue_active;
    p.warps.dram_throughput += w * l.warps.dram_throughput;
  }
  p.warps.local_memory_bytes = 0;
  p.cycles = p.duration_us * gpu.cycles_per_us();
  p.dram_read_elasticity = p.dram_bytes_read > 0 ? weighted_elasticity / p.dram_bytes_read : 0.0;
  p.scattered_stores = std::any_of(plan.launches.begin(), plan.launches.end(), [](const SubKernel& k) { return k.uncoalesced; });
  if (with_sensitivity) {
    const RangeConfig& rc = gpu.range;
    p.ranges.dram_bytes_read = widened(sum.read, rc.dram_read_floor);
    // The re-reads' misses are less certain than the first reads' bytes.
    const double extra = rc.dram_read_floor_bytes + rc.reread_miss_floor * p.reread_dram_bytes;
    p.ranges.dram_bytes_read.lo = std::max(0.0, p.ranges.dram_bytes_read.lo - extra);
    p.ranges.dram_bytes_read.hi += extra;
    p.ranges.dram_bytes_written = widened(sum.written, rc.dram_write_floor);
    p.ranges.l2_bytes = widened(sum.l2, rc.l2_floor);
    // DRAM time is what the model knows best; the latency chain, issue and
    // the launch's fixed costs less.
    const double memory_share = p.duration_us > 0 ? std::clamp(dram_us / p.duration_us, 0.0, 1.0) : 0.0;
    p.ranges.duration_us = widened(sum.duration, rc.duration_floor_memory * memory_share +
                                                     rc.duration_floor_latency * (1 - memory_share));
  }
  return p;
}

}  // namespace normsim::simt
