// Arithmetic of each fixed-point datapath unit as a pure function over
// explicit formats. Every product and sum is exact until the unit's output
// register, where it is rounded once into that stage's format -- the
// behaviour of the RTL units in rtl_models/ and of sc_fix assignments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/enum_names.hpp"
#include "sim/core/fixed_stage.hpp"

namespace normsim::core {

// --- reciprocal tables -------------------------------------------------------

/// 1/n for n = 1..max_n, quantised into the `recip` stage format: the
/// count-indexed table a Welford lane reads instead of dividing
/// (the row length is fixed, so the reciprocals can be precomputed).
std::vector<Fx> make_recip_table(int64_t max_n, const FixedFormat& recip);

/// Multiplication by 1/n as the datapath performs it: an exact shift when n is
/// a power of two, otherwise the quantised table value `recip_n`.
Exact times_recip(const Exact& v, int64_t n, Fx recip_n);

// --- Welford lane and Chan merge -------------------------------------------

struct FxWelford {
  int64_t count = 0;
  Fx mean;  ///< in the `mean` stage format
  Fx m2;    ///< in the `m2` stage format
};

/// One Welford update with the table reciprocal r = 1/(n+1):
/// d = x - mu; mu' = q_mean(mu + d r); M2' = q_m2(M2 + d (x - mu')).
FxWelford welford_update(const FxWelford& s, Fx x, Fx recip_next, const StageFormats& f, StageCounters& c);

/// The merge coefficient n_b / (n_a + n_b) in the `recip` format (a
/// constant per tree position: counts are static for a row length).
Fx merge_coefficient(int64_t n_a, int64_t n_b, const FixedFormat& recip);

/// Chan merge of two lane states. Equal counts reduce to shifts:
/// mu = (mu_a + mu_b)/2, M2 = M2_a + M2_b + d^2 n_a/2 (exact, no table);
/// otherwise the coefficient n_b/n comes from the `recip` format.
FxWelford chan_merge(const FxWelford& a, const FxWelford& b, const StageFormats& f, StageCounters& c);

// --- RSQRT unit -------------------------------------------------------------

/// How the RSQRT unit seeds its Newton steps. `table`: one value an
/// interval (1/sqrt of its midpoint; relative error up to ~2^-table_bits,
/// so two steps for fp32-class results). `linear`: a line an interval,
/// c0 + c1 t with t the mantissa bits below the index (the piecewise-linear
/// seed of published LayerNorm units; ~2^-(2 table_bits + 2)), so one step
/// does what two do after a plain table, for twice the ROM and a multiplier.
enum class RsqrtSeed { table, linear };  ///< its value is rtl_models/rsqrt_newton.v's SEED
inline constexpr EnumNames<RsqrtSeed, 2> kRsqrtSeeds{{"table", "linear"}};

struct RsqrtKind;  // sim/core/rsqrt_kind.hpp: the units a design can build

/// What an RSQRT unit refuses of the arch's rsqrt section: the key (in the
/// section), its value, why, and what is allowed.
struct RsqrtRefusal {
  std::string key, value, why, allowed;
};

struct RsqrtConfig {
  int table_bits = 8;     ///< seed table index width (1 parity bit + table_bits-1 mantissa bits)
  int iterations = 2;     ///< Newton-Raphson steps y' = y (3 - m y^2) / 2
  int nr_frac_bits = 24;  ///< fraction bits of the Newton iterate registers
  RsqrtSeed seed = RsqrtSeed::table;  ///< the seed's form (a table value or a line an interval)
  int unit = 0;  ///< which unit computes it: an index into rsqrt_kinds() (0: newton)
  const RsqrtKind& kind() const;
  std::string validate() const;
  /// What the unit refuses of the section's other keys, if anything.
  std::optional<RsqrtRefusal> refusal() const;
  /// Words of the unit's ROM and bits of a word.
  int64_t rom_words() const;
  int rom_word_bits() const;
  /// The unit's pipeline stages (operand to result, less its input register).
  int stages() const;
};

/// An RSQRT operand leading-zero normalised: v = m 2^k, k even, m in [1, 4)
/// (the same bits with the binary point moved), and the seed table's index
/// (m >= 2, then the table_bits - 1 bits below the leading one). v > 0.
struct RsqrtOperand {
  Exact m;
  int k = 0;
  size_t index = 0;
  int below = 0;  ///< bit position in v's raw word of the index's lowest bit
};
RsqrtOperand rsqrt_operand(Fx v, int table_bits);

/// Seed ROM, rounded to nr_frac_bits. `table`: entry (p, j) = 1/sqrt of the
/// midpoint of [1 + j/2^(b-1), 1 + (j+1)/2^(b-1)) * 2^p. `linear`: entries
/// 2 (p, j) and 2 (p, j) + 1 are c0 and c1 of the interval's minimax line
/// c0 + c1 t, t in [0, 1) across the interval (the chord, lowered by half its
/// largest distance from the curve).
std::vector<Fx> make_rsqrt_table(const RsqrtConfig& cfg);

/// 1/sqrt(v): leading-zero normalise v = m 2^k (k even, m in [1,4)), seed
/// from the ROM (linear: c0 + c1 t, t the nr_frac_bits mantissa bits below
/// the index, rounded once), `iterations` Newton steps at nr_frac_bits,
/// then 2^(-k/2) and one rounding into `out`. v <= 0 saturates `out`
/// (flagged as overflow).
Fx rsqrt_nr(Fx v, const RsqrtConfig& cfg, const std::vector<Fx>& table, const FixedFormat& out,
            QuantFlags* flags = nullptr);

/// 1/sqrt(v) by the configured unit (its kind's eval) with `table` its ROM.
Fx rsqrt_unit(Fx v, const RsqrtConfig& cfg, const std::vector<Fx>& table, const FixedFormat& out,
              QuantFlags* flags = nullptr);
/// The configured unit's ROM (its kind's rom).
std::vector<Fx> make_rsqrt_rom(const RsqrtConfig& cfg);

// --- normalise / affine -----------------------------------------------------

/// x_hat = q_xhat((x - mean) rstd); y = q_out(x_hat gamma + beta). RMSNorm
/// passes mean = 0 and, with no beta, beta = 0.
Fx normalize_affine(Fx x, Fx mean, Fx rstd, Fx gamma, Fx beta, const StageFormats& f, StageCounters& c);

}  // namespace normsim::core
