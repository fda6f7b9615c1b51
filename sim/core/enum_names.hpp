// An enum's names, declared once beside the enum: its text (to_string), its
// parse, and the list an error message or a help text shows. The enum's
// values are 0..N-1 in the order of the names.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace normsim::core {

template <class E, std::size_t N>
struct EnumNames {
  std::array<std::string_view, N> names;

  constexpr std::string_view name(E e) const {
    const auto i = static_cast<std::size_t>(e);
    return i < N ? names[i] : std::string_view("?");
  }
  constexpr std::optional<E> parse(std::string_view s) const {
    for (std::size_t i = 0; i < N; ++i)
      if (names[i] == s) return static_cast<E>(i);
    return std::nullopt;
  }
  /// "a, b, c": what an error's "allowed" and a help text list.
  std::string joined() const {
    std::string s;
    for (std::size_t i = 0; i < N; ++i) (s += i ? ", " : "") += names[i];
    return s;
  }
  std::vector<std::string> list() const { return {names.begin(), names.end()}; }
};

}  // namespace normsim::core
