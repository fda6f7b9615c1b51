// Physical quantities with their unit in the type, for the memory
// configurations of both models: a capacity is `Bytes`, a bandwidth
// `BytesPerCycle` (a port of the ASIC's clock) or `BytesPerSecond` (a GPU's
// measured DRAM), a latency `Cycles`. Mixing two units does not compile;
// the one conversion between a bandwidth per cycle and per second is below.
// A quantity holds the plain number the config file gave (no scaling), so
// `value()` is exactly what was read and what the report echoes.
#pragma once

#include <cstdint>
#include <type_traits>

namespace normsim::core {

template <class Unit, class Rep = double>
class Quantity {
 public:
  using rep = Rep;
  using unit_type = Unit;
  constexpr Quantity() = default;
  constexpr explicit Quantity(Rep v) : v_(v) {}
  constexpr Rep value() const { return v_; }
  /// The unit's name as reports, CSV headers and the key tables print it.
  static constexpr const char* unit() { return Unit::name; }

  constexpr Quantity operator+(Quantity o) const { return Quantity(v_ + o.v_); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(v_ - o.v_); }
  constexpr Quantity& operator+=(Quantity o) { v_ += o.v_; return *this; }
  constexpr Quantity& operator-=(Quantity o) { v_ -= o.v_; return *this; }
  constexpr Quantity operator*(Rep k) const { return Quantity(v_ * k); }
  constexpr Quantity operator/(Rep k) const { return Quantity(v_ / k); }
  constexpr Quantity& operator*=(Rep k) { v_ *= k; return *this; }
  /// The ratio of two quantities of one unit is a plain number.
  constexpr double operator/(Quantity o) const { return static_cast<double>(v_) / static_cast<double>(o.v_); }
  constexpr auto operator<=>(const Quantity&) const = default;

 private:
  Rep v_{};
};

struct BytesUnit { static constexpr const char* name = "bytes"; };
struct BytesPerCycleUnit { static constexpr const char* name = "bytes/cycle"; };
struct BytesPerSecondUnit { static constexpr const char* name = "bytes/s"; };
struct CyclesUnit { static constexpr const char* name = "cycles"; };
struct HertzUnit { static constexpr const char* name = "Hz"; };
struct NanosecondsUnit { static constexpr const char* name = "ns"; };

using Bytes = Quantity<BytesUnit>;
using BytesPerCycle = Quantity<BytesPerCycleUnit>;
using BytesPerSecond = Quantity<BytesPerSecondUnit>;
using Cycles = Quantity<CyclesUnit>;            ///< a latency that may be fractional (a GPU's measured one)
using CycleCount = Quantity<CyclesUnit, int>;  ///< a whole number of cycles (an ASIC unit's pipeline)
using Hertz = Quantity<HertzUnit>;
using Nanoseconds = Quantity<NanosecondsUnit>;

constexpr Hertz ghz(double v) { return Hertz(v * 1e9); }
constexpr Hertz mhz(double v) { return Hertz(v * 1e6); }

// --- the conversions ---------------------------------------------------------
/// A bandwidth at a clock: bytes a second over cycles a second.
constexpr BytesPerCycle per_cycle(BytesPerSecond b, Hertz clock) { return BytesPerCycle(b.value() / clock.value()); }
constexpr BytesPerSecond per_second(BytesPerCycle b, Hertz clock) { return BytesPerSecond(b.value() * clock.value()); }
/// A time at a clock, in whole cycles (rounded to the nearest, at least one).
inline CycleCount cycles_at(Nanoseconds t, Hertz clock) {
  const double c = t.value() * 1e-9 * clock.value();
  return CycleCount(c < 1.5 ? 1 : static_cast<int>(c + 0.5));
}
/// Bytes a port moves in a number of cycles, and the cycles it takes to move them.
constexpr Bytes operator*(BytesPerCycle b, Cycles c) { return Bytes(b.value() * c.value()); }
constexpr Cycles operator/(Bytes n, BytesPerCycle b) { return Cycles(n.value() / b.value()); }

template <class T>
struct is_quantity : std::false_type {};
template <class U, class R>
struct is_quantity<Quantity<U, R>> : std::true_type {};
template <class T>
inline constexpr bool is_quantity_v = is_quantity<std::remove_cv_t<T>>::value;

/// The plain number of a quantity, or the number itself (for code generic over both: the config tables).
template <class T>
constexpr auto raw(const T& x) {
  if constexpr (is_quantity_v<T>) return x.value();
  else return x;
}

}  // namespace normsim::core
