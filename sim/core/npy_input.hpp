// Input rows read from a .npy tensor: fp32 ('<f4'), fp16 ('<f2'), bf16 stored
// as uint16 ('<u2', the bits of the bf16 values) or int8 codes ('|i1', value =
// code x scale); shape (rows, hidden) or flattened. The file is memory-mapped
// and read one row at a time, so a tensor larger than memory streams through.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/element_format.hpp"
#include "sim/core/input_source.hpp"

namespace normsim::core {

class NpyRowInput : public InputSource {
 public:
  /// Opens and maps `path`; runtime_error naming the path and the reason (not
  /// a regular file, not .npy, a dtype other than the four above, a file size
  /// that differs from what its header promises). Shape checks against a
  /// workload are the caller's (shape(), dtype()).
  NpyRowInput(const std::string& path, Int8Scale scale = {});
  ~NpyRowInput() override;
  NpyRowInput(const NpyRowInput&) = delete;
  NpyRowInput& operator=(const NpyRowInput&) = delete;

  void fill_row(int64_t row, int64_t hidden, double* x) const override;
  bool stored_values() const override { return true; }

  const std::string& path() const { return path_; }
  const std::string& descr() const { return descr_; }  ///< NumPy descr as in the file
  ElemType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t elements() const { return elements_; }

  /// The element type a descr holds ('<u2' is read as bf16), or nullopt.
  static std::optional<ElemType> elem_type_of(const std::string& descr);

 private:
  std::string path_, descr_;
  ElemType dtype_ = ElemType::fp32;
  Int8Scale scale_{};
  std::vector<int64_t> shape_;
  int64_t elements_ = 0;
  const uint8_t* map_ = nullptr;  ///< the whole file
  size_t map_bytes_ = 0;
  uint64_t data_offset_ = 0;
};

}  // namespace normsim::core
