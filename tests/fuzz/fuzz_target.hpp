// A parser's fuzz target: every input either parses or is refused with the
// parser's own error (ConfigError, or the runtime_error of a file reader);
// anything else -- another exception, a crash, a sanitizer report -- is a
// bug. Built two ways: with clang's libFuzzer (-DNORMSIM_LIBFUZZER=ON, its
// own main), and with mutation_driver.cpp, which CTest runs on every build:
// the seeds, then deterministic mutations of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/// The target's seeds (valid inputs to mutate).
std::vector<std::string> fuzz_seeds();
