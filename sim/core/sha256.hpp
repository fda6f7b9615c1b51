// SHA-256 (FIPS 180-4, "Secure Hash Standard", NIST 2015): the digest a
// report puts on each config it ran, so that two reports of the same
// resolved config can be told apart from two of different ones.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace normsim::core {

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest sha256(std::string_view bytes);
/// The digest as 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);

}  // namespace normsim::core
