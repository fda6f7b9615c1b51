// The records `normsim calibrate` reads (gpu_ref/scripts/calibrate_gpu.sh's
// OUT): the first byte picks the record, the rest is its text; the others
// are a real H200 call's. The L2 probes are left out, so every input ends
// at the first missing record, before any fit runs.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "fuzz_target.hpp"
#include "sim/config/config_error.hpp"
#include "sim/validate/calibrate.hpp"

namespace {
const char* const kRecords[] = {"device.json", "latency.jsonl", "mlp_probe.jsonl", "empty_kernel.csv", "copy.jsonl"};
const std::string kSource = std::string(NORMSIM_SOURCE_DIR) + "/lab/records/h200/calibrate_2026-12-02/";

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
}  // namespace

std::vector<std::string> fuzz_seeds() {
  std::vector<std::string> seeds;
  for (size_t i = 0; i < std::size(kRecords); ++i) seeds.push_back(std::string(1, static_cast<char>(i)) + read(kSource + kRecords[i]));
  return seeds;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = [] {
    const auto d = std::filesystem::temp_directory_path() / ("fuzz_calibrate_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    static const std::string keep = d.string();
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(keep, ec);
    });
    return keep;
  }();
  if (size == 0) return 0;
  const size_t pick = data[0] % std::size(kRecords);
  for (size_t i = 0; i < std::size(kRecords); ++i) {
    std::ofstream out(dir + "/" + kRecords[i], std::ios::binary | std::ios::trunc);
    if (i == pick) out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
    else out << read(kSource + kRecords[i]);
  }
  try {
    (void)normsim::validate::calibrate(dir, normsim::simt::default_gpu_arch(), "fuzz");
  } catch (const normsim::config::ConfigError&) {
  }
  return 0;
}
