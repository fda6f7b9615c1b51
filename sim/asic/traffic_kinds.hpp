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
/// The backward (docs/ASIC.md, "Backward") reads dy beside x (grad,
/// grad_reread) and the forward's saved statistics, writes dx as `output`,
/// and moves its parameter gradients by its param_grad path: the final
/// dgamma/dbeta, partials written and read back by the second pass, or a
/// read-modify-write of DRAM every row. A fused Post-Norm backward reads
/// the forward's z as its input (or re-makes it from x and r as the forward
/// did: residual, sum) and, with dropout, writes the branch's gradient
/// beside dz -- or, unfused, a separate pass after the unit reads dz back
/// and writes it.
enum class Traffic : uint8_t {
  input, input_reread, residual, params,  // reads
  output, stats, sum,                      // writes
  adder_read, adder_write,                 // the separate adder's pass
  grad, grad_reread, saved_stats,          // the backward's reads
  param_grads, partials, partials_read,    // its parameter gradients: writes, the partials' read
  grad_acc_read, grad_acc_write,           // ... read-modify-write in DRAM
  branch_grad,                             // a Post-Norm backward with dropout: dz mask / (1 - p)
  branch_pass_read,                        // ... unfused: a separate pass reads dz back to make it
  count_
};
/// Whether a kind is read from DRAM (else written).
constexpr bool is_read(Traffic t) {
  switch (t) {
    case Traffic::input: case Traffic::input_reread: case Traffic::residual: case Traffic::params:
    case Traffic::adder_read: case Traffic::grad: case Traffic::grad_reread: case Traffic::saved_stats:
    case Traffic::partials_read: case Traffic::grad_acc_read: case Traffic::branch_pass_read:
      return true;
    default:
      return false;
  }
}
const char* to_string(Traffic t);
inline constexpr int kTrafficKinds = static_cast<int>(Traffic::count_);

/// How a workload's residual stream reaches the lanes.
enum class Fusion {
  none,            ///< no residual stream
  fused,           ///< the input path reads x and r; the adder feeds the lanes; z written as asked
  separate_adder,  ///< a separate pass writes z first (SeparateAdderPass); the unit reads z as its input
};

}  // namespace normsim::asic
