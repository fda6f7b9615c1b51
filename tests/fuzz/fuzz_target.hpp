// A parser's fuzz target: every input either parses or is refused with the
// parser's own error (ConfigError, or the runtime_error of a file reader);
// anything else -- another exception, a crash, a sanitizer report -- is a
// bug. Built two ways: with clang's libFuzzer (-DNORMSIM_LIBFUZZER=ON, its
// own main), and with mutation_driver.cpp, which CTest runs on every build:
// the seeds, then deterministic mutations of them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/// The target's seeds (valid inputs to mutate): its own, and the shipped
/// files it parses (`make fuzz` gives libFuzzer the same files).
std::vector<std::string> fuzz_seeds();

/// The text of every file under NORMSIM_SOURCE_DIR/`dir` whose name ends in
/// `suffix`, in name order.
inline std::vector<std::string> shipped_files(const std::string& dir, const std::string& suffix) {
  std::vector<std::filesystem::path> paths;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(NORMSIM_SOURCE_DIR) / dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> texts;
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    texts.push_back(ss.str());
  }
  return texts;
}

/// `a` followed by `b`.
inline std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
