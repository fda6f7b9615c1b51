// The .npy header parser (read_npy_header) and the row reader behind
// `input.file` (NpyRowInput, through a file).
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "fuzz_target.hpp"
#include "sim/core/npy.hpp"
#include "sim/core/npy_input.hpp"

namespace {
std::string npy(const std::string& descr, const std::string& shape, size_t data_bytes) {
  std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
  h += '\n';
  std::string f = std::string("\x93NUMPY\x01\x00", 8);
  f += static_cast<char>(h.size() & 0xff);
  f += static_cast<char>(h.size() >> 8);
  return f + h + std::string(data_bytes, '\x3f');
}
}  // namespace

std::vector<std::string> fuzz_seeds() {
  return {npy("<f4", "(2, 3)", 24), npy("<u2", "(4,)", 8), npy("|i1", "(2, 2)", 4), npy("<f2", "(1, 8)", 16),
          npy("<f8", "(1,)", 8)};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    std::istringstream in(text);
    (void)normsim::core::read_npy_header(in, "fuzz.npy");
  } catch (const std::runtime_error&) {
    return 0;  // NpyRowInput reads the same header first and refuses it the same way: no file to write
  }
  // One scratch file a process, removed when it ends.
  static const struct Scratch {
    std::string path = "/tmp/normsim_fuzz_npy_" + std::to_string(::getpid()) + ".npy";
    ~Scratch() { std::remove(path.c_str()); }
  } scratch;
  const std::string& path = scratch.path;
  std::ofstream(path, std::ios::binary) << text;
  try {
    normsim::core::NpyRowInput r(path);
    std::vector<double> x(1);
    if (r.elements() > 0 && (r.shape().size() == 1 || r.shape().size() == 2)) {
      const int64_t hidden = r.shape().back() > 0 ? r.shape().back() : 1;
      x.resize(static_cast<size_t>(hidden));
      if (r.elements() % hidden == 0) r.fill_row(r.elements() / hidden - 1, hidden, x.data());
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
