#include "sim/validate/golden.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sim/config/config_error.hpp"
#include "sim/core/npy.hpp"

namespace normsim::validate {

std::vector<GoldenCase> load_golden(const std::string& dir) {
  const std::string file = (std::filesystem::path(dir) / "index.json").string();
  std::ifstream in(file);
  if (!in) throw config::ConfigError(file + ": cannot read the golden index (expected GOLDEN_DIR/index.json, e.g. gpu_ref/golden/h200)");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw config::ConfigError(file + ": not valid JSON: " + e.what());
  }
  if (!j.is_array()) throw config::ConfigError(file + ": expected a list of cases");
  std::vector<GoldenCase> cases;
  for (size_t i = 0; i < j.size(); ++i) {
    const auto& c = j[i];
    auto need = [&](const nlohmann::json& o, const char* key) -> const nlohmann::json& {
      if (!o.contains(key) || o[key].is_null())
        throw config::ConfigError(file + ": case " + std::to_string(i) + ": missing key '" + key + "'");
      return o[key];
    };
    GoldenCase g;
    try {
      g.id = need(c, "id").get<std::string>();
      auto kernel = [&](const std::string& key, const std::string& name) {
        const normref::KernelInfo* k = normref::find_kernel(name);
        if (!k)
          throw config::ConfigError(file + ": case " + std::to_string(i) + ": key '" + key + "': unknown kernel '" + name +
                                    "' (allowed: " + normref::kernel_names() + ")");
        return k->id;
      };
      const std::string name = need(c, "kernel").get<std::string>();
      g.kernel = kernel("kernel", name);
      g.ran = kernel("ran", c.value("ran", name));
      const std::string dtype = need(c, "dtype").get<std::string>();
      if (dtype != "fp32" && dtype != "bf16")
        throw config::ConfigError(file + ": case " + std::to_string(i) + ": key 'dtype': unknown value '" + dtype +
                                  "' (allowed: fp32, bf16)");
      g.dtype = dtype == "bf16" ? simt::DType::bf16 : simt::DType::fp32;
      g.rows = need(c, "rows").get<int64_t>();
      g.hidden = need(c, "hidden").get<int64_t>();
      g.block = need(c, "block").get<int>();
      g.time_us = need(c, "time_us").get<double>();
      g.copy_gbps = c.value("copy_gbps", 0.0);
      const auto& n = need(c, "ncu");
      g.dram_bytes_read = need(n, "dram_bytes_read").get<double>();
      g.dram_bytes_written = need(n, "dram_bytes_written").get<double>();
      g.l2_bytes = need(n, "lts_bytes").get<double>();
      g.duration_us = need(n, "duration_us").get<double>();
      g.sm_cycles = need(n, "sm_cycles").get<double>();
      g.registers_per_thread = c.value("registers_per_thread", 0);
      g.grid = c.value("grid", int64_t{0});
      g.dist = c.value("dist", std::string("normal"));
      g.seed = c.value("seed", uint64_t(1));
      g.dist_mean = c.value("dist_mean", 0.0);
      g.dist_sigma = c.value("dist_sigma", 1.0);
      g.eps = c.value("eps", 1e-5);
      if (c.contains("outputs") && c["outputs"].is_object())
        for (auto it = c["outputs"].begin(); it != c["outputs"].end(); ++it) g.outputs[it.key()] = it.value().get<std::string>();
      if (g.outputs.count("dx")) {
        g.output_rows = g.rows;  // the backward keeps every row (dgamma/dbeta need them)
      } else if (g.outputs.count("rstd")) {
        g.output_rows = core::read_npy((std::filesystem::path(dir) / g.outputs.at("rstd")).string()).elements();
        if (g.output_rows < 1 || g.output_rows > g.rows)
          throw config::ConfigError(file + ": case " + g.id + ": outputs keep " + std::to_string(g.output_rows) +
                                    " rows (allowed: 1.." + std::to_string(g.rows) + ")");
      }
    } catch (const config::ConfigError&) {
      throw;
    } catch (const std::exception& e) {
      throw config::ConfigError(file + ": case " + std::to_string(i) + ": " + e.what());
    }
    cases.push_back(std::move(g));
  }
  return cases;
}

}  // namespace normsim::validate
