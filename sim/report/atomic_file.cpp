#include "sim/report/atomic_file.hpp"

#include <fstream>

namespace normsim::report {

void write_file_atomic(const std::string& path, const std::string& content) {
  write_atomic_with(path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw std::runtime_error(path + ": cannot write");
    out << content;
    out.close();
    if (!out) throw std::runtime_error(path + ": write failed");
  });
}

}  // namespace normsim::report
