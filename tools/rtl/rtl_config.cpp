// rtl_config ARCH.yaml MAX_COUNT OUT.v: writes the ROMs and the `rtl_bench`
// top for an arch's formats (the build runs it for each co-simulated arch).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "sim/config/config_error.hpp"
#include "sim/rtl/rtl_config.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: rtl_config ARCH.yaml MAX_COUNT OUT.v\n";
    return 2;
  }
  try {
    const auto arch = normsim::config::load_arch(argv[1]);
    const int64_t max_count = std::stoll(argv[2]);
    const std::string tmp = std::string(argv[3]) + ".tmp";
    {
      std::ofstream out(tmp);
      out << normsim::rtl::bench_top(arch, max_count);
      if (!out) throw std::runtime_error(std::string(argv[3]) + ": cannot write");
    }
    if (std::rename(tmp.c_str(), argv[3]) != 0) throw std::runtime_error(std::string(argv[3]) + ": cannot write");
  } catch (const std::exception& e) {
    std::cerr << "rtl_config: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
