#include "sim/core/lane_tree.hpp"

#include <algorithm>

namespace normsim::core {

std::vector<int> merge_strides(MergeOrder order, int lanes, int group, int blocks) {
  std::vector<int> s;
  if (order == MergeOrder::adjacent) {
    for (int stride = 1; stride < lanes; stride *= 2) s.push_back(stride);
    return s;
  }
  const int block_lanes = std::max(1, lanes / std::max(1, blocks));
  const int g = std::min(group, block_lanes);
  for (int stride = g / 2; stride >= 1; stride /= 2) s.push_back(stride);            // within a warp
  for (int stride = block_lanes / 2; stride >= g; stride /= 2) s.push_back(stride);  // across the warps' partials
  for (int stride = lanes / 2; stride >= block_lanes; stride /= 2) s.push_back(stride);  // across the blocks
  return s;
}

}  // namespace normsim::core
