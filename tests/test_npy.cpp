#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/core/npy.hpp"

using namespace normsim::core;

TEST(Npy, RoundTrip) {
  const std::string p = std::filesystem::temp_directory_path() / "normsim_npy_rt.npy";
  std::vector<float> v = {1.0f, -2.5f, 3.25f, 0.0f, 1e-30f, 7.0f};
  write_npy(p, v, {2, 3});
  const NpyArray a = read_npy(p);
  EXPECT_EQ(a.dtype, "<f4");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.as<float>(), v);
  std::ifstream in(p, std::ios::binary);
  std::string head(10, '\0');
  in.read(head.data(), 10);
  const int len = static_cast<unsigned char>(head[8]) | (static_cast<unsigned char>(head[9]) << 8);
  EXPECT_EQ((10 + len) % 64, 0);  // data aligned as NumPy requires
  std::remove(p.c_str());
}

TEST(Npy, RejectsGarbage) {
  const std::string p = std::filesystem::temp_directory_path() / "normsim_npy_bad.npy";
  std::ofstream(p) << "not numpy";
  EXPECT_THROW(read_npy(p), std::runtime_error);
  EXPECT_THROW(read_npy("/nonexistent/x.npy"), std::runtime_error);
  std::remove(p.c_str());
}

TEST(Npy, NumpyLoadsWhatWeWrite) {
  if (std::system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0) GTEST_SKIP() << "python3-numpy not installed";
  const std::string p = std::filesystem::temp_directory_path() / "normsim_npy_np.npy";
  std::vector<double> v = {0.5, -1.25, 3.0};
  write_npy(p, v, {3});
  const std::string cmd = "/usr/bin/python3 -c \"import numpy as n; a=n.load('" + p +
                          "'); assert a.dtype==n.float64 and a.shape==(3,) and list(a)==[0.5,-1.25,3.0]\"";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  const std::string q = std::filesystem::temp_directory_path() / "normsim_npy_from_np.npy";
  const std::string mk = "/usr/bin/python3 -c \"import numpy as n; n.save('" + q +
                         "', n.arange(12, dtype=n.float32).reshape(3,4))\"";
  ASSERT_EQ(std::system(mk.c_str()), 0);
  const NpyArray a = read_npy(q);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(a.as<float>()[11], 11.0f);
  std::remove(p.c_str());
  std::remove(q.c_str());
}
