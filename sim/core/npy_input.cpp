#include "sim/core/npy_input.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <sstream>
#include <stdexcept>

#include "sim/core/npy.hpp"

namespace normsim::core {

std::optional<ElemType> NpyRowInput::elem_type_of(const std::string& d) {
  if (d == "<f4") return ElemType::fp32;
  if (d == "<f2") return ElemType::fp16;
  if (d == "<u2") return ElemType::bf16;
  if (d == "|i1" || d == "<i1") return ElemType::int8;
  return std::nullopt;
}

NpyRowInput::NpyRowInput(const std::string& path, Int8Scale scale) : path_(path), scale_(scale) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw std::runtime_error("cannot open: " + std::string(std::strerror(errno)));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error("not a regular file");
  }
  map_bytes_ = static_cast<size_t>(st.st_size);
  if (map_bytes_ < 10) {
    ::close(fd);
    throw std::runtime_error("not a .npy file (" + std::to_string(map_bytes_) + " bytes)");
  }
  void* m = mmap(nullptr, map_bytes_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) throw std::runtime_error("cannot map: " + std::string(std::strerror(errno)));
  map_ = static_cast<const uint8_t*>(m);
  try {
    // The header is at most 1 MiB: parse it from a copy of the mapped prefix.
    std::istringstream head(std::string(reinterpret_cast<const char*>(map_), std::min<size_t>(map_bytes_, (1u << 20) + 12)));
    const NpyHeader h = read_npy_header(head, path);
    descr_ = h.dtype;
    shape_ = h.shape;
    elements_ = h.elements();
    data_offset_ = h.data_offset;
    const auto t = elem_type_of(descr_);
    if (!t) throw std::runtime_error("dtype '" + descr_ + "' is none of the four it reads");
    dtype_ = *t;
    const uint64_t need = data_offset_ + static_cast<uint64_t>(elements_) * static_cast<uint64_t>(h.elem_size);
    if (need != map_bytes_)
      throw std::runtime_error("the header promises " + std::to_string(need) + " bytes, the file has " +
                               std::to_string(map_bytes_));
  } catch (...) {
    munmap(const_cast<uint8_t*>(map_), map_bytes_);
    map_ = nullptr;
    throw;
  }
  // Rows are read in order, mostly once: let the kernel read ahead.
  madvise(const_cast<uint8_t*>(map_), map_bytes_, MADV_SEQUENTIAL);
}

NpyRowInput::~NpyRowInput() {
  if (map_) munmap(const_cast<uint8_t*>(map_), map_bytes_);
}

void NpyRowInput::fill_row(int64_t row, int64_t hidden, double* x) const {
  const uint64_t first = static_cast<uint64_t>(row) * static_cast<uint64_t>(hidden);
  const uint8_t* p = map_ + data_offset_ + first * static_cast<uint64_t>(elem_bytes(dtype_));
  const size_t n = static_cast<size_t>(hidden);
  switch (dtype_) {
    case ElemType::fp32:
      for (size_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, p + 4 * i, 4);
        x[i] = f;
      }
      return;
    case ElemType::bf16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t b;
        std::memcpy(&b, p + 2 * i, 2);
        x[i] = bf16_bits_to_fp32(b);
      }
      return;
    case ElemType::fp16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t b;
        std::memcpy(&b, p + 2 * i, 2);
        x[i] = fp16_bits_to_fp32(b);
      }
      return;
    case ElemType::int8:
      for (size_t i = 0; i < n; ++i) x[i] = dequantize_int8(static_cast<int8_t>(p[i]), scale_);
      return;
  }
}

}  // namespace normsim::core
