// Where the tests find the source tree, the golden H200 data and the H200's
// GPU arch (NORMSIM_SOURCE_DIR overrides the tree the build was configured in).
#pragma once

#include <cstdlib>
#include <string>

#include "sim/simt/gpu_arch.hpp"

namespace normsim::test_paths {

inline std::string src() {
  return std::getenv("NORMSIM_SOURCE_DIR") ? std::getenv("NORMSIM_SOURCE_DIR") : NORMSIM_TEST_SOURCE_DIR;
}
inline std::string golden() { return src() + "/gpu_ref/golden/h200"; }
inline const simt::GpuArch& h200() {
  static const simt::GpuArch g = simt::load_gpu_arch(src() + "/workloads/arch/h200.yaml");
  return g;
}

}  // namespace normsim::test_paths
