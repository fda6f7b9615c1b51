#include "sim/validate/asic_time.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sim/asic/asic_run.hpp"
#include "sim/asic/isolated_run.hpp"
#include "sim/config/workload.hpp"
#include "sim/simt/simt_model.hpp"
#include "sim/validate/kernel_as_asic.hpp"

namespace normsim::validate {

AsicTime asic_time_cases(const std::vector<GoldenCase>& cases, const simt::GpuArch& gpu) {
  AsicTime t;
  double sum = 0;
  for (const auto& g : cases) {
    const auto m = asic_datapath(g.kernel, g);
    if (!m || m->path != simt::AsicInputPath::sram_replay) continue;  // x read once
    const double streamed = (g.dram_bytes_read + g.dram_bytes_written) / (g.duration_us * 1e-6);
    if (streamed < (2.0 / 3.0) * gpu.dram.bytes_per_s.value()) continue;  // not bandwidth-bound
    const std::string dtype(normref::to_string(g.dtype));
    const std::string wl = "name: " + g.id + "\nnorm: " + (m->rms ? "rmsnorm\nbeta: none" : "layernorm") +
                           "\nrows: " + std::to_string(g.rows) + "\nhidden: " + std::to_string(g.hidden) +
                           "\ninput: {dtype: " + dtype + "}\noutput: {dtype: " + dtype + "}\n";
    const config::Workload w = config::parse_workload_text(wl, "<" + g.id + ">");
    config::Arch arch = mapped_arch(m->block_arch);
    // Rows in flight as the GPU kernel holds them: its occupancy in the SIMT
    // model (as the traffic cross-check takes them), within the arch's SRAM
    // (the registers and shared memory) beside gamma/beta.
    const simt::LaunchPlan plan = simt::plan_launch(g.kernel, g.rows, g.hidden, g.dtype, g.block, gpu);
    const int64_t row_bytes = g.hidden * normref::elem_bytes(g.dtype);
    const int64_t room = static_cast<int64_t>(arch.asic->sram.capacity_bytes) - 2 * g.hidden * 4;
    arch.asic->rows_in_flight = static_cast<int>(std::max<int64_t>(
        1, std::min<int64_t>(simt::occupancy(plan.launches.front(), gpu).rows_in_flight, room / row_bytes)));
    asic::AsicOptions o;
    o.numerics = false;
    std::string text;
    if (asic::run_isolated(
            [&] {
              const asic::AsicResult res = asic::run_asic(w, arch, o);
              return nlohmann::json{{"cycles", res.cycles}, {"clock_ghz", res.cfg.clock_ghz}}.dump();
            },
            "regress (asic_time " + g.id + ")", text) != 0)
      throw std::runtime_error("regress: the ASIC model failed on " + g.id);
    const nlohmann::json rep = nlohmann::json::parse(text);
    AsicTimeCase c;
    c.id = g.id;
    c.kernel = simt::kernel_name(g.kernel);
    c.arch = m->block_arch ? "gpu-block" : "gpu-warp";
    c.asic_cycles = rep["cycles"].get<double>();
    c.asic_us = c.asic_cycles / (rep["clock_ghz"].get<double>() * 1e3);
    c.measured_us = g.duration_us;
    c.rel_error = (c.asic_us - g.duration_us) / g.duration_us;
    sum += std::fabs(c.rel_error);
    t.cases.push_back(c);
  }
  t.mae = t.cases.empty() ? 0 : sum / static_cast<double>(t.cases.size());
  return t;
}

}  // namespace normsim::validate
