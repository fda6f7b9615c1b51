#include "sim/core/output_checker.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>

#include "sim/core/element_format.hpp"
#include "sim/core/float_norm.hpp"

namespace normsim::core {

void init_numerics(NumericsResult& num, const NormProblem& w, const DatapathConfig& cfg) {
  const double output_lsb = datapath_output_lsb(cfg);
  num.algorithm = cfg.algorithm;
  num.algorithm_name =
      w.norm == NormKind::rmsnorm ? "sum-of-squares" : std::string(to_string(cfg.algorithm));
  num.warnings = cfg.warnings();
  const std::string dtype_name(to_string(w.output.dtype));
  if (output_lsb > 0 && w.output.dtype == ElemType::fp32) {
    num.ulp_unit = "lsb of the output stage (" + cfg.formats[static_cast<int>(Stage::output)].describe() + ")";
  } else if (output_lsb > 0) {
    num.ulp_unit = "max(output-stage lsb, " + dtype_name + " ulp at |ref|)";
  } else {
    num.ulp_unit = dtype_name + " ulp at |ref|";
  }
}

void merge_numerics(NumericsResult& into, const NumericsResult& part) {
  into.output_error.merge(part.output_error);
  into.mean_max_abs_error = std::max(into.mean_max_abs_error, part.mean_max_abs_error);
  // A non-finite relative error (a zero reference rstd) stays.
  if (std::isfinite(into.rstd_max_rel_error))
    into.rstd_max_rel_error = std::isfinite(part.rstd_max_rel_error)
                                  ? std::max(into.rstd_max_rel_error, part.rstd_max_rel_error)
                                  : part.rstd_max_rel_error;
  into.counters.add(part.counters);
  into.input_saturations += part.input_saturations;
  into.residual_add.add(part.residual_add);
}

void KeptOutputs::allocate(int64_t rows, int64_t hidden, bool inputs) {
  const size_t n = static_cast<size_t>(rows * hidden);
  y.assign(n, 0.0);
  mean.assign(static_cast<size_t>(rows), 0.0);
  rstd.assign(static_cast<size_t>(rows), 0.0);
  if (inputs) {
    x.assign(n, 0.0);
    y_ref.assign(n, 0.0);
  }
}

OutputChecker::OutputChecker(const NormProblem& w, double output_lsb, std::vector<float> gamma, std::vector<float> beta,
                             KeptOutputs* keep)
    : p_(w), out_lsb_(output_lsb), gamma_(std::move(gamma)), beta_(std::move(beta)), keep_(keep) {
  ref_.resize(static_cast<size_t>(w.hidden));
  inv_ulp_.resize(static_cast<size_t>(w.hidden));
}

namespace {
// Rounds the datapath's values into the output tensor's type and fills the
// inverse ULP of each reference value, in one pass; the type test is hoisted.
// A float type's ULP at |ref| and the output lsb are powers of two, so the
// inverse of the larger is 2^-k exactly, built from its exponent: no division.
template <ElemType T>
void round_and_ulp(std::span<double> y, std::span<const double> ref, std::span<double> inv_ulp, double out_lsb,
                   Int8Scale scale) {
  if constexpr (T == ElemType::int8) {
    const double inv = 1.0 / std::max(out_lsb, scale.scale);
    for (size_t i = 0; i < y.size(); ++i) {
      if (std::isfinite(y[i])) y[i] = dequantize_int8(quantize_int8(y[i], scale), scale);
      inv_ulp[i] = inv;
    }
    return;
  } else {
    int lsb_exp = std::numeric_limits<int>::min() / 2;  // no output stage: the type's ULP alone
    if (out_lsb > 0) {
      int e = 0;
      if (std::frexp(out_lsb, &e) != 0.5) {  // not a power of two: the plain quotient
        for (size_t i = 0; i < y.size(); ++i) {
          y[i] = round_to_elem(y[i], T);
          inv_ulp[i] = 1.0 / std::max(out_lsb, ulp_of(T, ref[i], scale));
        }
        return;
      }
      lsb_exp = e - 1;
    }
    const int mant = T == ElemType::fp32 ? 23 : T == ElemType::bf16 ? 7 : 10;
    const int min_exp = T == ElemType::fp16 ? -14 : -126;
    for (size_t i = 0; i < y.size(); ++i) {
      y[i] = round_to_elem(y[i], T);
      uint64_t bits;
      std::memcpy(&bits, &ref[i], sizeof bits);
      const int biased = static_cast<int>((bits >> 52) & 0x7ff);
      const int e = biased == 0x7ff ? min_exp : std::max(biased - 1023, min_exp);
      const int k = std::max(e - mant, lsb_exp);  // the ULP is 2^k
      const uint64_t inv = static_cast<uint64_t>(1023 - k) << 52;
      std::memcpy(&inv_ulp[i], &inv, sizeof inv);
    }
  }
}
}  // namespace

void OutputChecker::check_row(int64_t row, std::span<const double> x, std::span<double> yrow, const RowStats& s,
                              NumericsResult& num) {
  const RowStats rs = reference_stats(x, p_.norm, p_.eps);
  reference_output(x, rs, gamma_, beta_, ref_);
  switch (p_.output.dtype) {
    case ElemType::fp32: round_and_ulp<ElemType::fp32>(yrow, ref_, inv_ulp_, out_lsb_, p_.output.scale); break;
    case ElemType::bf16: round_and_ulp<ElemType::bf16>(yrow, ref_, inv_ulp_, out_lsb_, p_.output.scale); break;
    case ElemType::fp16: round_and_ulp<ElemType::fp16>(yrow, ref_, inv_ulp_, out_lsb_, p_.output.scale); break;
    case ElemType::int8: round_and_ulp<ElemType::int8>(yrow, ref_, inv_ulp_, out_lsb_, p_.output.scale); break;
  }
  num.output_error.add(yrow, ref_, inv_ulp_);
  num.mean_max_abs_error = std::max(num.mean_max_abs_error, std::fabs(s.mean - rs.mean));
  const double rstd_rel = std::fabs(s.rstd - rs.rstd) / rs.rstd;
  if (std::isfinite(num.rstd_max_rel_error))
    num.rstd_max_rel_error = std::isfinite(rstd_rel) ? std::max(num.rstd_max_rel_error, rstd_rel) : rstd_rel;
  if (keep_ && !keep_->empty()) {
    const size_t at = static_cast<size_t>(row * p_.hidden);
    std::copy(yrow.begin(), yrow.end(), keep_->y.begin() + static_cast<std::ptrdiff_t>(at));
    keep_->mean[static_cast<size_t>(row)] = s.mean;
    keep_->rstd[static_cast<size_t>(row)] = s.rstd;
    if (!keep_->x.empty()) {
      std::copy(x.begin(), x.end(), keep_->x.begin() + static_cast<std::ptrdiff_t>(at));
      std::copy(ref_.begin(), ref_.end(), keep_->y_ref.begin() + static_cast<std::ptrdiff_t>(at));
    }
  }
}

}  // namespace normsim::core
