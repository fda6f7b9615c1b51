// NumPy .npy files (format version 1.0, little-endian, C order): enough to
// exchange tensors with NumPy and with the golden data of gpu_ref.
#pragma once

#include <cstdint>
#include <cstring>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace normsim::core {

struct NpyArray {
  std::string dtype;             ///< NumPy descr: "<f4", "<f8", "<u2", "<i1", ...
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;    ///< raw little-endian data, C order

  int64_t elements() const;
  template <typename T>
  std::vector<T> as() const;     ///< copies the data out; throws if sizeof(T) differs
};

/// A .npy header: what the data is and where it starts.
struct NpyHeader {
  std::string dtype;           ///< NumPy descr
  std::vector<int64_t> shape;
  uint64_t data_offset = 0;    ///< bytes from the start of the file to the data
  int elem_size = 0;           ///< bytes per element (from the descr)
  int64_t elements() const;
};
/// Reads the magic, version and header dict; runtime_error with the path and
/// the reason (not .npy, big-endian, Fortran order, a shape that is not a
/// tuple of non-negative integers, an element size it cannot read).
NpyHeader read_npy_header(std::istream& in, const std::string& path);

/// Throws std::runtime_error with the path and the reason.
NpyArray read_npy(const std::string& path);
/// The same from a stream (e.g. a decompressed buffer); `path` names it in errors.
NpyArray read_npy(std::istream& in, const std::string& path);
void write_npy(const std::string& path, const std::string& dtype, const std::vector<int64_t>& shape,
               const void* data, size_t bytes);

void write_npy(const std::string& path, const std::vector<float>& v, const std::vector<int64_t>& shape);
void write_npy(const std::string& path, const std::vector<double>& v, const std::vector<int64_t>& shape);

template <typename T>
std::vector<T> NpyArray::as() const {
  if (bytes.size() % sizeof(T) != 0) throw std::runtime_error("npy: element size mismatch");
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

}  // namespace normsim::core

