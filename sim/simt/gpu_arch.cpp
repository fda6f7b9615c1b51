#include "sim/simt/gpu_arch.hpp"

#include <cmath>
#include <cstdio>

#include "sim/config/embedded_configs.hpp"
#include "sim/config/shipped_configs.hpp"
#include "sim/core/sha256.hpp"
#include "sim/config/l2_reuse_keys.hpp"

#include <filesystem>
#include <memory>

#include "sim/config/config_error.hpp"
#include "sim/config/printable.hpp"

namespace normsim::simt {

namespace {

using config::integer_param;
using config::ParamTable;
using config::in_range;
using config::positive;
using config::real_param;
using config::within;

std::shared_ptr<const ParamTable<GpuL2Config>> l2_params() {
  auto t = std::make_shared<ParamTable<GpuL2Config>>();
  t->add(quantity_param<GpuL2Config>("bytes", NORMSIM_MEMBER(bytes), positive(), "L2 size"));
  t->add(integer_param<GpuL2Config>("line_bytes", NORMSIM_MEMBER(line_bytes), 1, 4096, "bytes", "L2 line"));
  t->add(real_param<GpuL2Config>("near_hit_latency_cycles", NORMSIM_MEMBER(near_hit_latency_cycles), positive(), "cycles",
                              "hit latency in the near partition"));
  t->add(real_param<GpuL2Config>("far_hit_latency_cycles", NORMSIM_MEMBER(far_hit_latency_cycles), positive(), "cycles",
                              "hit latency in the far partition"));
  config::add_l2_reuse_params(*t, [](auto& l2) -> auto& { return l2.reuse; }, [](const GpuL2Config& l2) { return l2.bytes.value(); });
  t->add(real_param<GpuL2Config>("reread_fill_weight", NORMSIM_MEMBER(reread_fill_weight), within(0, 1), "",
                              "share of a re-read pass's DRAM fill the L2's byte count sees, against a first read's"));
  t->add(real_param<GpuL2Config>("atomic_l2_bytes_per_sector", NORMSIM_MEMBER(atomic_l2_bytes_per_sector), within(0, 1024), "bytes",
                              "L2 bytes counted per 32-byte sector an atomic reduction touches"));
  t->add(quantity_param<GpuL2Config>("reuse_measured_bytes", NORMSIM_MEMBER(reuse_measured_bytes), within(0, 1e12),
                              "the L2 size the reuse curves were measured on: another `bytes` scales their halves and pool (0: absolute)"));
  config::Param<GpuL2Config> dirty = real_param<GpuL2Config>(
      "dirty_resident_bytes", NORMSIM_MEMBER(dirty_resident_bytes), config::RealRange{}, "bytes",
      "written bytes still dirty in the L2 when a kernel ends (not counted as DRAM writes)");
  dirty.doc[0].type = "[0, bytes]";
  dirty.check = [](const GpuL2Config& l2) -> std::optional<config::ParamError> {
    if (auto e = within(0, l2.bytes.value()).check(l2.dirty_resident_bytes)) return config::ParamError{"", *e};
    return std::nullopt;
  };
  t->add(std::move(dirty));
  t->add(real_param<GpuL2Config>("atomic_ns_per_sector", NORMSIM_MEMBER(atomic_ns_per_sector), positive(), "ns",
                              "a reduction into one address, a warp instruction's 32-byte sectors at a time"));
  t->add(real_param<GpuL2Config>("scattered_store_sectors_per_ns", NORMSIM_MEMBER(scattered_store_sectors_per_ns), positive(),
                              "sectors/ns", "sectors the L2 writes per ns for scalar stores, each block to its own addresses"));
  return t;
}

std::shared_ptr<const ParamTable<EnvelopeConfig>> envelope_params() {
  auto t = std::make_shared<ParamTable<EnvelopeConfig>>();
  constexpr int64_t kMax = int64_t(1) << 40;
  t->add(integer_param<EnvelopeConfig>("rows_min", NORMSIM_MEMBER(rows_min), 0, kMax, "rows", "fewest rows of a calibration case (0: no bound)"));
  t->add(integer_param<EnvelopeConfig>("rows_max", NORMSIM_MEMBER(rows_max), 0, kMax, "rows", "most rows of a calibration case (0: no bound)"));
  t->add(integer_param<EnvelopeConfig>("hidden_min", NORMSIM_MEMBER(hidden_min), 0, kMax, "elements", "shortest row of a calibration case (0: no bound)"));
  t->add(integer_param<EnvelopeConfig>("hidden_max", NORMSIM_MEMBER(hidden_max), 0, kMax, "elements", "longest row of a calibration case (0: no bound)"));
  t->add(real_param<EnvelopeConfig>("x_bytes_min", NORMSIM_MEMBER(x_bytes_min), within(0, 1e18), "bytes", "smallest input tensor of a calibration case (0: no bound)"));
  t->add(real_param<EnvelopeConfig>("x_bytes_max", NORMSIM_MEMBER(x_bytes_max), within(0, 1e18), "bytes", "largest input tensor of a calibration case (0: no bound)"));
  return t;
}

std::shared_ptr<const ParamTable<RangeConfig>> range_params() {
  auto t = std::make_shared<ParamTable<RangeConfig>>();
  t->add(real_param<RangeConfig>("in_flight_spread", NORMSIM_MEMBER(in_flight_spread), within(0, 1), "",
                                 "relative uncertainty of the x in flight and of the rows' phase spread"));
  t->add(real_param<RangeConfig>("dirty_spread_bytes", NORMSIM_MEMBER(dirty_spread_bytes), within(0, 1e12), "bytes",
                                 "uncertainty of the written bytes still dirty in the L2 at a launch's end"));
  t->add(real_param<RangeConfig>("dram_read_floor", NORMSIM_MEMBER(dram_read_floor), within(0, 1), "",
                                 "least relative half-width of a DRAM-read range"));
  t->add(real_param<RangeConfig>("dram_read_floor_bytes", NORMSIM_MEMBER(dram_read_floor_bytes), within(0, 1e12), "bytes",
                                 "bytes a DRAM-read range extends each way besides its relative floor"));
  t->add(real_param<RangeConfig>("reread_miss_floor", NORMSIM_MEMBER(reread_miss_floor), within(0, 1), "",
                                 "share of the re-read passes' DRAM bytes a DRAM-read range extends each way"));
  t->add(real_param<RangeConfig>("scattered_store_fill", NORMSIM_MEMBER(scattered_store_fill), within(0, 1), "",
                                 "DRAM bytes read per byte of scattered stores that may come on top (partial sectors filled)"));
  t->add(real_param<RangeConfig>("dram_write_floor", NORMSIM_MEMBER(dram_write_floor), within(0, 10), "",
                                 "least relative half-width of a DRAM-write range"));
  t->add(real_param<RangeConfig>("l2_floor", NORMSIM_MEMBER(l2_floor), within(0, 10), "",
                                 "least relative half-width of an L2-bytes range"));
  t->add(real_param<RangeConfig>("duration_floor_memory", NORMSIM_MEMBER(duration_floor_memory), within(0, 1), "",
                                 "relative half-width of a duration decided by DRAM time"));
  t->add(real_param<RangeConfig>("duration_floor_latency", NORMSIM_MEMBER(duration_floor_latency), within(0, 1), "",
                                 "relative half-width of a duration decided by latency, issue or the launch"));
  return t;
}

std::shared_ptr<const ParamTable<GpuL1Config>> l1_params() {
  auto t = std::make_shared<ParamTable<GpuL1Config>>();
  t->add(quantity_param<GpuL1Config>("bytes", NORMSIM_MEMBER(bytes), positive(), "L1 and shared memory per SM"));
  t->add(real_param<GpuL1Config>("hit_latency_cycles", NORMSIM_MEMBER(hit_latency_cycles), positive(), "cycles", "L1 hit latency"));
  t->add(real_param<GpuL1Config>("miss_requests_per_cycle", NORMSIM_MEMBER(miss_requests_per_cycle), positive(), "requests/cycle",
                              "sector requests an SM sends to the L2 per cycle"));
  config::Param<GpuL1Config> carve = config::quantity_param<GpuL1Config>(
      "smem_carveout_bytes", NORMSIM_MEMBER(smem_carveout_bytes), config::RealRange{},
      "shared memory the driver reserves out of the L1 at least");
  carve.doc[0].type = "[0, bytes]";
  carve.check = [](const GpuL1Config& l1) -> std::optional<config::ParamError> {
    if (auto e = within(0, l1.bytes.value()).check(l1.smem_carveout_bytes.value())) return config::ParamError{"", *e};
    return std::nullopt;
  };
  t->add(std::move(carve));
  t->add(real_param<GpuL1Config>("reuse_steepness", NORMSIM_MEMBER(reuse_steepness), positive(), "",
                              "how sharply re-read L1 hits fall off past the free L1"));
  return t;
}

std::shared_ptr<const ParamTable<GpuDramConfig>> dram_params() {
  auto t = std::make_shared<ParamTable<GpuDramConfig>>();
  // 1 GB/s .. 100 TB/s: every GPU memory made spans a small part of it.
  t->add(quantity_param<GpuDramConfig>("bytes_per_s", NORMSIM_MEMBER(bytes_per_s), in_range(1e9, 1e14),
                                "sustained bandwidth, reads and writes together (a copy kernel's)"));
  t->add(quantity_param<GpuDramConfig>("peak_bytes_per_s", NORMSIM_MEMBER(peak_bytes_per_s), in_range(1e9, 1e14),
                                "the datasheet's peak bandwidth (DRAM throughput is reported as a share of it)"));
  t->add(quantity_param<GpuDramConfig>("latency_cycles", NORMSIM_MEMBER(latency_cycles), positive(), "unloaded latency"));
  t->add(quantity_param<GpuDramConfig>("launch_read_bytes", NORMSIM_MEMBER(launch_read_bytes), within(0, 1 << 30),
                                "bytes every launch reads besides its code and data (constant bank, parameters)"));
  t->add(real_param<GpuDramConfig>("fill_weight", NORMSIM_MEMBER(fill_weight), within(0, 1), "",
                                "share of the first round's bytes in flight whose queueing delays the launch once"));
  return t;
}

std::shared_ptr<const ParamTable<GpuArch>> make_gpu_params() {
  auto t = std::make_shared<ParamTable<GpuArch>>();
  config::Param<GpuArch> name;
  name.key = "name";
  name.keys = {"name"};
  name.doc = {{"name", "string", "h200", "", "label in reports"}};
  name.read = [](config::YamlReader& m, GpuArch& g) { g.name = m.get_string("name").value_or(g.name); };
  name.echo = [](const GpuArch& g) { return nlohmann::json(g.name); };
  t->add(std::move(name));
  t->add(integer_param<GpuArch>("sms", NORMSIM_MEMBER(sms), 1, 4096, "SMs", "SM count"));
  t->add(real_param<GpuArch>("sm_clock_mhz", NORMSIM_MEMBER(sm_clock_mhz), positive(), "MHz", "SM clock"));
  t->add(integer_param<GpuArch>("warp_size", NORMSIM_MEMBER(warp_size), 1, 1024, "threads", "threads per warp"));
  config::Param<GpuArch> threads = integer_param<GpuArch>("max_threads_per_sm", NORMSIM_MEMBER(max_threads_per_sm), 1, 1 << 16,
                                                          "threads", "occupancy limit: threads per SM (a multiple of warp_size)");
  threads.check = [](const GpuArch& g) -> std::optional<config::ParamError> {
    if (g.max_threads_per_sm < 1 || g.max_threads_per_sm > (1 << 16))
      return config::ParamError{"", {"value " + std::to_string(g.max_threads_per_sm) + " out of range", "1..65536"}};
    if (g.max_threads_per_sm % g.warp_size != 0)
      return config::ParamError{"", {"must be a multiple of warp_size (" + std::to_string(g.warp_size) + ")", ""}};
    return std::nullopt;
  };
  t->add(std::move(threads));
  t->add(integer_param<GpuArch>("max_blocks_per_sm", NORMSIM_MEMBER(max_blocks_per_sm), 1, 1024, "blocks", "occupancy limit: blocks per SM"));
  t->add(integer_param<GpuArch>("registers_per_sm", NORMSIM_MEMBER(registers_per_sm), 1, 1 << 24, "registers", "occupancy limit: registers per SM"));
  t->add(integer_param<GpuArch>("register_alloc_unit", NORMSIM_MEMBER(register_alloc_unit), 1, 1 << 16, "registers",
                                "registers are allocated per warp in units of this many"));
  t->add(integer_param<GpuArch>("smem_per_sm_bytes", NORMSIM_MEMBER(smem_per_sm_bytes), 1, 1 << 30, "bytes", "shared memory per SM"));
  t->add(integer_param<GpuArch>("smem_per_block_bytes", NORMSIM_MEMBER(smem_per_block_bytes), 1, 1 << 30, "bytes",
                                "the opt-in per-block maximum (v6 falls back to v5 above it)"));
  t->add(integer_param<GpuArch>("smem_reserved_per_block_bytes", NORMSIM_MEMBER(smem_reserved_per_block_bytes), 0, 1 << 20, "bytes",
                                "the system's shared-memory reserve per block"));
  t->add(integer_param<GpuArch>("schedulers_per_sm", NORMSIM_MEMBER(schedulers_per_sm), 1, 64, "schedulers", "warp schedulers per SM"));
  config::Param<GpuArch> issue = real_param<GpuArch>("issue_per_scheduler", NORMSIM_MEMBER(issue_per_scheduler), positive(),
                                                     "instructions/cycle", "a scheduler's sustained issue rate");
  issue.doc[0].type = "(0, 1]";
  issue.check = [](const GpuArch& g) -> std::optional<config::ParamError> {
    if (auto e = positive().check(g.issue_per_scheduler)) return config::ParamError{"", *e};
    if (g.issue_per_scheduler > 1) return config::ParamError{"", {"at most one instruction per cycle", "(0, 1]"}};
    return std::nullopt;
  };
  t->add(std::move(issue));
  t->add(real_param<GpuArch>("dependent_issue_cycles", NORMSIM_MEMBER(dependent_issue_cycles), positive(), "cycles",
                             "one warp's average cycles between consecutive instructions"));
  t->add(real_param<GpuArch>("shuffle_latency_cycles", NORMSIM_MEMBER(shuffle_latency_cycles), positive(), "cycles",
                             "one __shfl_xor_sync round trip"));
  t->add(real_param<GpuArch>("barrier_latency_cycles", NORMSIM_MEMBER(barrier_latency_cycles), positive(), "cycles",
                             "one __syncthreads"));
  t->add(real_param<GpuArch>("smem_latency_cycles", NORMSIM_MEMBER(smem_latency_cycles), positive(), "cycles", "a shared-memory load"));
  t->add(real_param<GpuArch>("fdiv_latency_cycles", NORMSIM_MEMBER(fdiv_latency_cycles), positive(), "cycles",
                             "an IEEE fp32 division on the dependency chain"));
  t->add(real_param<GpuArch>("bound_overlap_exponent", NORMSIM_MEMBER(bound_overlap_exponent), within(1, 64), "",
                             "p of the p-norm that combines the duration bounds"));
  t->add(real_param<GpuArch>("memory_overlap_exponent", NORMSIM_MEMBER(memory_overlap_exponent), within(1, 64), "",
                             "p of the p-norm that combines the latency chain with DRAM time (many rows an SM)"));
  t->add(config::section_param<GpuArch>("l2", NORMSIM_MEMBER(l2), l2_params()));
  t->add(config::section_param<GpuArch>("l1", NORMSIM_MEMBER(l1), l1_params()));
  t->add(config::section_param<GpuArch>("dram", NORMSIM_MEMBER(dram), dram_params()));
  t->add(config::section_param<GpuArch>("range", NORMSIM_MEMBER(range), range_params()));
  t->add(config::section_param<GpuArch>("envelope", NORMSIM_MEMBER(envelope), envelope_params()));
  t->add(real_param<GpuArch>("launch_overhead_us", NORMSIM_MEMBER(launch_overhead_us), within(0), "us", "an empty launch"));
  t->add(real_param<GpuArch>("block_dispatch_ns", NORMSIM_MEMBER(block_dispatch_ns), within(0), "ns", "the extra cost per block"));
  t->add(real_param<GpuArch>("kernel_tail_cycles", NORMSIM_MEMBER(kernel_tail_cycles), within(0), "cycles",
                             "a launch's cold first loads and last stores' drain, once"));
  t->add(real_param<GpuArch>("round_overhead_cycles", NORMSIM_MEMBER(round_overhead_cycles), within(0), "cycles",
                             "a block's start and end per round of rows"));
  return t;
}

GpuArch parse(config::YamlReader m, const std::string& source, const std::vector<config::Override>& overrides) {
  GpuArch g;
  g.source = source;
  g.sha256 = core::sha256_hex(m.emit());
  gpu_arch_params().read(m, g);
  for (const auto& o : overrides)
    if (o.target == "gpu") g.overrides.push_back(o.text);
  return g;
}

}  // namespace

const config::ParamTable<GpuArch>& gpu_arch_params() {
  static const std::shared_ptr<const config::ParamTable<GpuArch>> t = make_gpu_params();
  return *t;
}

namespace {
// The arch in `text` (read as `file`) with the gpu.* overrides applied; its messages name `source`.
GpuArch parse_overridden(const std::string& text, const std::string& file, const std::string& source,
                         const std::vector<config::Override>& overrides) {
  auto r = config::YamlReader::from_text(text, file);
  for (const auto& o : overrides)
    if (o.target == "gpu") r.apply(o);
  return parse(r, source, overrides);
}
}  // namespace

GpuArch parse_gpu_arch_text(const std::string& text, const std::string& file, const std::vector<config::Override>& overrides) {
  return parse_overridden(text, file, file, overrides);
}

GpuArch load_gpu_arch(const std::string& path, const std::vector<config::Override>& overrides) {
  return parse_gpu_arch_text(config::read_config_file(path), path, overrides);
}

GpuArch default_gpu_arch(const std::vector<config::Override>& overrides) {
  return parse_overridden(config::embedded::kDefaultGpuYaml, config::embedded::kDefaultGpuPath,
                          std::string("<embedded default: ") + config::embedded::kDefaultGpuPath + ">", overrides);
}

GpuArch gpu_arch_by_name_or_path(const std::string& name_or_path, const std::vector<config::Override>& overrides) {
  if (name_or_path.empty()) return default_gpu_arch(overrides);
  const config::ResolvedConfig c = config::resolve_config(config::ShippedKind::gpu, name_or_path, "--gpu");
  return parse_overridden(c.text, c.file, c.source, overrides);
}

}  // namespace normsim::simt
