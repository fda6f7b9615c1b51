// The keys of a GPU L2's measured reuse (core::L2Reuse), read the same way
// for the SIMT model's GPU arch (`l2`) and the ASIC arch's GPU-like L2
// (`asic.l2`): one set of names, ranges and messages.
#pragma once

#include <string>
#include <vector>

#include "sim/config/yaml_reader.hpp"
#include "sim/core/reuse_curve.hpp"

namespace normsim::config {

/// Reads the keys `l2` has (those it lacks keep r's values); exit 2 naming
/// the file, the key and the allowed range on a bad one. The evict-first
/// pool must lie within `capacity_bytes` (checked only when given: the
/// default, a 60 MiB L2's, may not fit a small capacity that never uses it).
void read_l2_reuse(YamlReader& l2, core::L2Reuse& r, double capacity_bytes);

/// The key names read_l2_reuse reads (for YamlReader::finish).
const std::vector<std::string>& l2_reuse_keys();

}  // namespace normsim::config
