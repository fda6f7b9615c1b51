// Runs a fuzz target without libFuzzer: its committed corpus
// (tests/fuzz/corpus/TARGET), each seed, then ITERATIONS mutants
// (bit flips, byte insertions and deletions, repeated and truncated runs,
// splices of two seeds) from a fixed-seed generator, so a failure repeats.
//   <target> [ITERATIONS]      (default 20000)
//   <target> --write-seeds DIR  the seeds as files DIR/seed-N (libFuzzer's corpus)
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>

#include "fuzz_target.hpp"

namespace {
// Runs the target on one input; an exception that escapes it is a bug:
// print the input (C-escaped) and what escaped, and fail.
void run(const std::string& in) {
  try {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(in.data()), in.size());
  } catch (const std::exception& e) {
    std::string esc;
    for (unsigned char c : in) {
      char b[8];
      if (c >= 32 && c < 127 && c != '\\' && c != '"') esc += static_cast<char>(c);
      else std::snprintf(b, sizeof b, "\\x%02x", c), esc += b;
    }
    std::printf("FAIL: an unexpected exception escaped the parser: %s\ninput: \"%s\"\n", e.what(), esc.c_str());
    std::exit(1);
  }
}
}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> seeds = fuzz_seeds();
  if (argc == 3 && std::string(argv[1]) == "--write-seeds") {
    for (size_t i = 0; i < seeds.size(); ++i)
      std::ofstream(std::string(argv[2]) + "/seed-" + std::to_string(i), std::ios::binary) << seeds[i];
    std::printf("%zu seeds written to %s\n", seeds.size(), argv[2]);
    return 0;
  }
  // The committed corpus first: inputs libFuzzer found reaching new code
  // stay regression cases on every build.
  size_t replayed = 0;
  for (const auto& text : shipped_files("tests/fuzz/corpus/" NORMSIM_FUZZ_TARGET, "")) {
    run(text);
    ++replayed;
  }
  const long iterations = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 20000;
  for (const auto& s : seeds) run(s);
  std::mt19937_64 rng(20261202);
  auto pick = [&](size_t n) { return n ? static_cast<size_t>(rng() % n) : 0; };
  const char* tokens[] = {":", " ", "\n", "-", "[", "]", "{", "}", ",", "'", "\"", "0", "1e308", "-1", "nan", "inf",
                          "999999999999999999999", "!!binary", "&a", "*a", "~", "\t", "\x93NUMPY", "\x00"};
  for (long it = 0; it < iterations; ++it) {
    std::string m = seeds[pick(seeds.size())];
    for (int k = 0, n = 1 + static_cast<int>(pick(4)); k < n; ++k) {
      const size_t at = pick(m.size() + 1);
      switch (pick(6)) {
        case 0: if (!m.empty()) m[pick(m.size())] ^= static_cast<char>(1u << pick(8)); break;
        case 1: m.insert(at, tokens[pick(sizeof tokens / sizeof *tokens)]); break;
        case 2: if (!m.empty()) m.erase(pick(m.size()), 1 + pick(8)); break;
        case 3: m.insert(at, m.substr(pick(m.size() + 1), pick(16))); break;
        case 4: m.resize(pick(m.size() + 1)); break;
        case 5: {
          const std::string& o = seeds[pick(seeds.size())];
          m = m.substr(0, at) + o.substr(pick(o.size() + 1));
          break;
        }
      }
    }
    run(m);
  }
  std::printf("%zu corpus inputs, %zu seeds and %ld mutants: no unexpected error\n", replayed, seeds.size(), iterations);
  return 0;
}
