// What the ASIC model's DRAM bytes carry, and how a residual workload's
// stream reaches the lanes: plain enums, shared by the SystemC units and
// the closed forms (traffic_identity.hpp) without SystemC.
#pragma once

#include <cstdint>

namespace normsim::asic {

/// What a DRAM transfer carries. A residual workload adds: the unit's read
/// of r and its write of the sum z (fused), or a separate adder's reads of
/// x and r and its write of z before the unit starts (fuse none; the unit's
/// `input` is then z).
enum class Traffic : uint8_t {
  input, input_reread, residual, params,  // reads
  output, stats, sum,                      // writes
  adder_read, adder_write,                 // the separate adder's pass
  count_
};
const char* to_string(Traffic t);
inline constexpr int kTrafficKinds = static_cast<int>(Traffic::count_);

/// How a workload's residual stream reaches the lanes.
enum class Fusion {
  none,            ///< no residual stream
  fused,           ///< the input path reads x and r; the adder feeds the lanes; z written as asked
  separate_adder,  ///< a separate pass writes z first (SeparateAdderPass); the unit reads z as its input
};

}  // namespace normsim::asic
