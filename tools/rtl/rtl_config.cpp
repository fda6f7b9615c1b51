// rtl_config bench ARCH.yaml MAX_COUNT OUT.v
//   the ROMs and the `rtl_bench` top (every unit) at an arch's formats
// rtl_config pipeline ARCH.yaml ln|rms MAX_HIDDEN OUT.v OUT.vc [MERGE_UNITS]
//   the ROMs, and norm_row_pipeline's -G parameters for Verilator (-f OUT.vc);
//   MERGE_UNITS overrides the arch's merge.units
// The build runs it for each verilated configuration.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "sim/config/config_error.hpp"
#include "sim/rtl/rtl_config.hpp"

namespace {
void write_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << text;
    if (!out) throw std::runtime_error(path + ": cannot write");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error(path + ": cannot write");
}
}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "bench" && argc == 5) {
      const auto arch = normsim::config::load_arch(argv[2]);
      write_atomic(argv[4], normsim::rtl::bench_top(arch, std::stoll(argv[3])));
      return 0;
    }
    if (mode == "pipeline" && (argc == 7 || argc == 8)) {
      std::vector<normsim::config::Override> set;
      if (argc == 8) set.push_back(normsim::config::parse_override(std::string("arch.merge.units=") + argv[7]));
      const auto arch = normsim::config::load_arch(argv[2], set);
      const std::string kind = argv[3];
      if (kind != "ln" && kind != "rms") throw normsim::config::ConfigError("kind '" + kind + "' (allowed: ln, rms)");
      const int64_t max_hidden = std::stoll(argv[4]);
      write_atomic(argv[5], normsim::rtl::rom_modules(arch, (max_hidden + arch.lanes - 1) / arch.lanes));
      write_atomic(argv[6], normsim::rtl::pipeline_parameters(arch, kind == "rms", max_hidden));
      return 0;
    }
  } catch (const std::exception& e) {
    std::cerr << "rtl_config: " << e.what() << "\n";
    return 2;
  }
  std::cerr << "usage: rtl_config bench ARCH.yaml MAX_COUNT OUT.v\n"
               "       rtl_config pipeline ARCH.yaml ln|rms MAX_HIDDEN OUT.v OUT.vc [MERGE_UNITS]\n";
  return 2;
}
