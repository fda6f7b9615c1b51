// The three ways of getting the row back for the normalise pass
// (docs/ASIC.md, "Comparing the input paths"). Each keeps the first `stored_elems(C)`
// elements of a row in SRAM while the statistics accumulate and re-reads the
// rest from DRAM:
//   SramReplayPath     all of it        DRAM reads of x: 1x
//   DramRereadPath     none of it       2x
//   PartialReplayPath  a fraction f     (2 - f)x
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>

#include "sim/asic/asic_config.hpp"

namespace normsim::asic {

class ReplayPath {
 public:
  virtual ~ReplayPath() = default;
  virtual InputPath kind() const = 0;
  /// Elements of a row of `hidden` kept in SRAM.
  virtual int64_t stored_elems(int64_t hidden) const = 0;
  /// Row buffer bytes in SRAM for `rows` rows in flight.
  uint64_t sram_row_bytes(int64_t hidden, int elem_bytes, int rows) const {
    return static_cast<uint64_t>(stored_elems(hidden)) * static_cast<uint64_t>(elem_bytes) * static_cast<uint64_t>(rows);
  }
};

class SramReplayPath final : public ReplayPath {
 public:
  InputPath kind() const override { return InputPath::sram_replay; }
  int64_t stored_elems(int64_t hidden) const override { return hidden; }
};

class DramRereadPath final : public ReplayPath {
 public:
  InputPath kind() const override { return InputPath::dram_reread; }
  int64_t stored_elems(int64_t) const override { return 0; }
};

class PartialReplayPath final : public ReplayPath {
 public:
  explicit PartialReplayPath(double fraction) : f_(fraction) {}
  InputPath kind() const override { return InputPath::partial_replay; }
  /// round(f C): the closed form of the DRAM bytes uses exactly this count.
  int64_t stored_elems(int64_t hidden) const override {
    return static_cast<int64_t>(std::llround(f_ * static_cast<double>(hidden)));
  }
  double fraction() const { return f_; }

 private:
  double f_;
};

inline std::unique_ptr<ReplayPath> make_replay_path(const AsicConfig& cfg) {
  switch (cfg.path) {
    case InputPath::sram_replay: return std::make_unique<SramReplayPath>();
    case InputPath::dram_reread: return std::make_unique<DramRereadPath>();
    case InputPath::partial_replay: return std::make_unique<PartialReplayPath>(cfg.replay_fraction);
  }
  return nullptr;
}

}  // namespace normsim::asic
