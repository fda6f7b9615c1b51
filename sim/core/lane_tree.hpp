// The merge tree over a row's lane values: one function, shared by the
// forward's Chan merge and adder trees and the backward's row sums. The
// result is in lane 0.
#pragma once

#include <cstddef>
#include <vector>

namespace normsim::core {

/// The order in which the merge tree combines lanes.
///  adjacent:  strides 1, 2, 4, ... (the RTL's tree);
///  butterfly: a GPU's xor-shuffle reduction as lane 0 sees it -- within each
///             group of `merge_group` lanes (a warp) strides group/2, ..., 1,
///             then across groups strides L/B/2, ..., group (a block's second
///             level over the warps' partials), then across the B lane blocks
///             strides L/2, ..., L/B (a cluster's blocks; B = 1: none).
enum class MergeOrder { adjacent, butterfly };

/// The strides of the merge tree's levels, first to last.
std::vector<int> merge_strides(MergeOrder order, int lanes, int group, int blocks = 1);

// The merge tree; the result is in lane 0. Adjacent order in place: (2k,
// 2k+1), then (4k, 4k+2), ... Any other order as the GPU runs it: every lane
// l combines (min(l, l^s), max(l, l^s)) at each level s (a butterfly, so the
// lower lane's operand comes first, as the kernels' Chan merges do).
template <typename T, typename Combine>
T reduce_lanes(std::vector<T>& lane, MergeOrder order, const std::vector<int>& strides, Combine&& combine) {
  const int L = static_cast<int>(lane.size());
  if (order == MergeOrder::adjacent) {
    for (int stride = 1; stride < L; stride *= 2)
      for (int k = 0; k + stride < L; k += 2 * stride) lane[k] = combine(lane[k], lane[k + stride]);
    return lane[0];
  }
  std::vector<T> next(lane.size());
  for (const int stride : strides) {
    for (int l = 0; l < L; ++l) {
      const int o = l ^ stride;
      next[static_cast<std::size_t>(l)] = l < o ? combine(lane[static_cast<std::size_t>(l)], lane[static_cast<std::size_t>(o)])
                                           : combine(lane[static_cast<std::size_t>(o)], lane[static_cast<std::size_t>(l)]);
    }
    lane.swap(next);
  }
  return lane[0];
}

}  // namespace normsim::core
