#include "sim/simt/gpu_arch.hpp"

#include <cmath>
#include <cstdio>

#include "sim/config/embedded_configs.hpp"
#include "sim/config/l2_reuse_keys.hpp"

namespace normsim::simt {

namespace {

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

// A real value in [lo, hi] (hi may be infinite); exit 2 naming the range otherwise.
double within(config::YamlReader& m, const std::string& key, double def, double lo, double hi) {
  const double v = m.get_double(key).value_or(def);
  if (!(v >= lo && v <= hi)) {
    const std::string range = std::isinf(hi) ? ">= " + fmt(lo) : "[" + fmt(lo) + ", " + fmt(hi) + "]";
    m.fail(key, "must be " + (std::isinf(hi) ? range : "within " + range), range);
  }
  return v;
}
int count(config::YamlReader& m, const std::string& key, int def, int lo, int hi) {
  return static_cast<int>(m.get_int(key, lo, hi).value_or(def));
}

GpuArch parse(config::YamlReader m, const std::string& source) {
  GpuArch g;
  g.source = source;
  g.name = m.get_string("name").value_or(g.name);
  g.sms = count(m, "sms", g.sms, 1, 4096);
  g.sm_clock_mhz = m.get_positive("sm_clock_mhz", g.sm_clock_mhz);
  g.warp_size = count(m, "warp_size", g.warp_size, 1, 1024);
  g.max_threads_per_sm = count(m, "max_threads_per_sm", g.max_threads_per_sm, 1, 1 << 16);
  g.max_blocks_per_sm = count(m, "max_blocks_per_sm", g.max_blocks_per_sm, 1, 1024);
  g.registers_per_sm = count(m, "registers_per_sm", g.registers_per_sm, 1, 1 << 24);
  g.register_alloc_unit = count(m, "register_alloc_unit", g.register_alloc_unit, 1, 1 << 16);
  g.smem_per_sm_bytes = count(m, "smem_per_sm_bytes", g.smem_per_sm_bytes, 1, 1 << 30);
  g.smem_per_block_bytes = count(m, "smem_per_block_bytes", g.smem_per_block_bytes, 1, 1 << 30);
  g.smem_reserved_per_block_bytes = count(m, "smem_reserved_per_block_bytes", g.smem_reserved_per_block_bytes, 0, 1 << 20);
  g.schedulers_per_sm = count(m, "schedulers_per_sm", g.schedulers_per_sm, 1, 64);
  g.issue_per_scheduler = m.get_positive("issue_per_scheduler", g.issue_per_scheduler);
  if (g.issue_per_scheduler > 1) m.fail("issue_per_scheduler", "at most one instruction per cycle", "(0, 1]");
  g.dependent_issue_cycles = m.get_positive("dependent_issue_cycles", g.dependent_issue_cycles);
  g.shuffle_latency_cycles = m.get_positive("shuffle_latency_cycles", g.shuffle_latency_cycles);
  g.barrier_latency_cycles = m.get_positive("barrier_latency_cycles", g.barrier_latency_cycles);
  g.smem_latency_cycles = m.get_positive("smem_latency_cycles", g.smem_latency_cycles);
  g.fdiv_latency_cycles = m.get_positive("fdiv_latency_cycles", g.fdiv_latency_cycles);
  g.bound_overlap_exponent = within(m, "bound_overlap_exponent", g.bound_overlap_exponent, 1, 64);
  g.memory_overlap_exponent = within(m, "memory_overlap_exponent", g.memory_overlap_exponent, 1, 64);
  if (g.max_threads_per_sm % g.warp_size != 0)
    m.fail("max_threads_per_sm", "must be a multiple of warp_size (" + std::to_string(g.warp_size) + ")");
  if (auto l2 = m.get_map("l2")) {
    g.l2.bytes = l2->get_positive("bytes", g.l2.bytes);
    g.l2.line_bytes = count(*l2, "line_bytes", g.l2.line_bytes, 1, 4096);
    g.l2.near_hit_latency_cycles = l2->get_positive("near_hit_latency_cycles", g.l2.near_hit_latency_cycles);
    g.l2.far_hit_latency_cycles = l2->get_positive("far_hit_latency_cycles", g.l2.far_hit_latency_cycles);
    config::read_l2_reuse(*l2, g.l2.reuse, g.l2.bytes);
    g.l2.dirty_resident_bytes = within(*l2, "dirty_resident_bytes", g.l2.dirty_resident_bytes, 0, g.l2.bytes);
    g.l2.atomic_ns_per_sector = l2->get_positive("atomic_ns_per_sector", g.l2.atomic_ns_per_sector);
    g.l2.scattered_store_sectors_per_ns =
        l2->get_positive("scattered_store_sectors_per_ns", g.l2.scattered_store_sectors_per_ns);
    std::vector<std::string> keys = {"bytes", "line_bytes", "near_hit_latency_cycles", "far_hit_latency_cycles",
                                     "dirty_resident_bytes", "atomic_ns_per_sector", "scattered_store_sectors_per_ns"};
    keys.insert(keys.end(), config::l2_reuse_keys().begin(), config::l2_reuse_keys().end());
    l2->finish(keys);
  }
  if (auto l1 = m.get_map("l1")) {
    g.l1.bytes = l1->get_positive("bytes", g.l1.bytes);
    g.l1.hit_latency_cycles = l1->get_positive("hit_latency_cycles", g.l1.hit_latency_cycles);
    g.l1.miss_requests_per_cycle = l1->get_positive("miss_requests_per_cycle", g.l1.miss_requests_per_cycle);
    g.l1.reuse_steepness = l1->get_positive("reuse_steepness", g.l1.reuse_steepness);
    g.l1.smem_carveout_bytes = within(*l1, "smem_carveout_bytes", g.l1.smem_carveout_bytes, 0, g.l1.bytes);
    l1->finish({"bytes", "hit_latency_cycles", "miss_requests_per_cycle", "smem_carveout_bytes", "reuse_steepness"});
  }
  if (auto d = m.get_map("dram")) {
    g.dram.bytes_per_s = d->get_positive("bytes_per_s", g.dram.bytes_per_s);
    g.dram.latency_cycles = d->get_positive("latency_cycles", g.dram.latency_cycles);
    g.dram.launch_read_bytes = within(*d, "launch_read_bytes", g.dram.launch_read_bytes, 0, 1 << 30);
    g.dram.fill_weight = within(*d, "fill_weight", g.dram.fill_weight, 0, 1);
    d->finish({"bytes_per_s", "latency_cycles", "launch_read_bytes", "fill_weight"});
  }
  constexpr double kNoLimit = INFINITY;
  g.launch_overhead_us = within(m, "launch_overhead_us", g.launch_overhead_us, 0, kNoLimit);
  g.block_dispatch_ns = within(m, "block_dispatch_ns", g.block_dispatch_ns, 0, kNoLimit);
  g.round_overhead_cycles = within(m, "round_overhead_cycles", g.round_overhead_cycles, 0, kNoLimit);
  g.kernel_tail_cycles = within(m, "kernel_tail_cycles", g.kernel_tail_cycles, 0, kNoLimit);
  m.finish({"name", "sms", "sm_clock_mhz", "warp_size", "max_threads_per_sm", "max_blocks_per_sm", "registers_per_sm",
            "register_alloc_unit", "smem_per_sm_bytes", "smem_per_block_bytes", "smem_reserved_per_block_bytes",
            "schedulers_per_sm", "issue_per_scheduler", "dependent_issue_cycles", "shuffle_latency_cycles", "barrier_latency_cycles", "smem_latency_cycles",
            "fdiv_latency_cycles", "memory_overlap_exponent", "bound_overlap_exponent", "l2", "l1",
            "dram", "launch_overhead_us", "block_dispatch_ns", "kernel_tail_cycles", "round_overhead_cycles"});
  return g;
}

}  // namespace

GpuArch load_gpu_arch(const std::string& path, const std::vector<config::Override>& overrides) {
  auto r = config::YamlReader::from_file(path);
  for (const auto& o : overrides)
    if (o.target == "gpu") r.apply(o);
  return parse(r, path);
}

GpuArch default_gpu_arch(const std::vector<config::Override>& overrides) {
  auto r = config::YamlReader::from_text(config::embedded::kDefaultGpuYaml, config::embedded::kDefaultGpuPath);
  for (const auto& o : overrides)
    if (o.target == "gpu") r.apply(o);
  return parse(r, std::string("<embedded default: ") + config::embedded::kDefaultGpuPath + ">");
}

}  // namespace normsim::simt
