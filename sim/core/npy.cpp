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
  if (descr.size() < 3) return -1;
  return std::stoi(descr.substr(2));
}
}  // namespace

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  return read_npy(in, path);
}

NpyArray read_npy(std::istream& in, const std::string& path) {
  char magic[8];
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw std::runtime_error(path + ": not a .npy file");
  const int major = static_cast<unsigned char>(magic[6]);
  uint32_t header_len = 0;
  if (major == 1) {
    unsigned char l[2];
    in.read(reinterpret_cast<char*>(l), 2);
    header_len = l[0] | (l[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char l[4];
    in.read(reinterpret_cast<char*>(l), 4);
    header_len = l[0] | (l[1] << 8) | (l[2] << 16) | (static_cast<uint32_t>(l[3]) << 24);
  } else {
    throw std::runtime_error(path + ": unsupported .npy version " + std::to_string(major));
  }
  std::string header(header_len, '\0');
  in.read(header.data(), header_len);
  if (!in) throw std::runtime_error(path + ": truncated header");

  NpyArray a;
  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr'\\s*:\\s*'([^']+)'")))
    throw std::runtime_error(path + ": header has no descr");
  a.dtype = m[1];
  if (a.dtype[0] == '>') throw std::runtime_error(path + ": big-endian data not supported");
  if (std::regex_search(header, m, std::regex("'fortran_order'\\s*:\\s*True")))
    throw std::runtime_error(path + ": Fortran order not supported");
  if (!std::regex_search(header, m, std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)")))
    throw std::runtime_error(path + ": header has no shape");
  std::stringstream ss(m[1].str());
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    if (tok.find_first_not_of(" ") == std::string::npos) continue;
    a.shape.push_back(std::stoll(tok));
  }
  const int es = elem_size(a.dtype);
  if (es <= 0) throw std::runtime_error(path + ": unsupported dtype " + a.dtype);
  a.bytes.resize(static_cast<size_t>(a.elements() * es));
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
