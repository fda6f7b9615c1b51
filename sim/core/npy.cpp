#include "sim/core/npy.hpp"

#include <fstream>
#include <regex>
#include <sstream>

namespace normsim::core {

int64_t NpyArray::elements() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

namespace {
int elem_size(const std::string& descr) {
  // "<f4", "|i1", "<u2": byte order, kind, size in bytes.
  if (descr.size() < 3 || descr.size() > 5 || descr.find_first_not_of("0123456789", 2) != std::string::npos) return -1;
  const int n = std::stoi(descr.substr(2));
  return n >= 1 && n <= 16 ? n : -1;
}
}  // namespace

int64_t NpyHeader::elements() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

NpyHeader read_npy_header(std::istream& in, const std::string& path) {
  char magic[8];
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw std::runtime_error(path + ": not a .npy file");
  const int major = static_cast<unsigned char>(magic[6]);
  uint32_t header_len = 0;
  uint64_t prefix = 10;
  if (major == 1) {
    unsigned char l[2];
    in.read(reinterpret_cast<char*>(l), 2);
    header_len = l[0] | (l[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char l[4];
    in.read(reinterpret_cast<char*>(l), 4);
    header_len = l[0] | (l[1] << 8) | (l[2] << 16) | (static_cast<uint32_t>(l[3]) << 24);
    prefix = 12;
  } else {
    throw std::runtime_error(path + ": unsupported .npy version " + std::to_string(major));
  }
  if (!in) throw std::runtime_error(path + ": truncated header");
  if (header_len > (1u << 20)) throw std::runtime_error(path + ": header of " + std::to_string(header_len) + " bytes (at most 1 MiB)");
  std::string header(header_len, '\0');
  in.read(header.data(), header_len);
  if (!in) throw std::runtime_error(path + ": truncated header");

  NpyHeader h;
  h.data_offset = prefix + header_len;
  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr'\\s*:\\s*'([^']+)'")))
    throw std::runtime_error(path + ": header has no descr");
  h.dtype = m[1];
  if (h.dtype[0] == '>') throw std::runtime_error(path + ": big-endian data not supported");
  if (std::regex_search(header, m, std::regex("'fortran_order'\\s*:\\s*True")))
    throw std::runtime_error(path + ": Fortran order not supported");
  if (!std::regex_search(header, m, std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)")))
    throw std::runtime_error(path + ": header has no shape");
  std::stringstream ss(m[1].str());
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    const size_t b = tok.find_first_not_of(' '), e = tok.find_last_not_of(' ');
    if (b == std::string::npos) continue;
    tok = tok.substr(b, e - b + 1);
    if (tok.empty() || tok.size() > 15 || tok.find_first_not_of("0123456789") != std::string::npos)
      throw std::runtime_error(path + ": shape entry '" + tok + "' is not a non-negative integer");
    h.shape.push_back(std::stoll(tok));
  }
  h.elem_size = elem_size(h.dtype);
  if (h.elem_size <= 0) throw std::runtime_error(path + ": unsupported dtype " + h.dtype);
  int64_t n = 1;
  for (int64_t d : h.shape) {
    if (d != 0 && n > (int64_t(1) << 50) / d) throw std::runtime_error(path + ": shape too large");
    n *= d;
  }
  return h;
}

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  return read_npy(in, path);
}

NpyArray read_npy(std::istream& in, const std::string& path) {
  const NpyHeader h = read_npy_header(in, path);
  NpyArray a;
  a.dtype = h.dtype;
  a.shape = h.shape;
  a.bytes.resize(static_cast<size_t>(h.elements() * h.elem_size));
  in.read(reinterpret_cast<char*>(a.bytes.data()), static_cast<std::streamsize>(a.bytes.size()));
  if (!in) throw std::runtime_error(path + ": truncated data");
  return a;
}

void write_npy(const std::string& path, const std::string& dtype, const std::vector<int64_t>& shape,
               const void* data, size_t bytes) {
  std::string shp = "(";
  for (size_t i = 0; i < shape.size(); ++i) shp += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
  shp += ")";
  std::string header = "{'descr': '" + dtype + "', 'fortran_order': False, 'shape': " + shp + ", }";
  // Pad so that magic(6)+version(2)+len(2)+header ends on a 64-byte boundary, newline-terminated.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(path + ": cannot write");
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  const unsigned char l[2] = {static_cast<unsigned char>(len & 0xff), static_cast<unsigned char>(len >> 8)};
  out.write(reinterpret_cast<const char*>(l), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out) throw std::runtime_error(path + ": write failed");
}

void write_npy(const std::string& path, const std::vector<float>& v, const std::vector<int64_t>& shape) {
  write_npy(path, "<f4", shape, v.data(), v.size() * sizeof(float));
}
void write_npy(const std::string& path, const std::vector<double>& v, const std::vector<int64_t>& shape) {
  write_npy(path, "<f8", shape, v.data(), v.size() * sizeof(double));
}

}  // namespace normsim::core
