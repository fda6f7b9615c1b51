#include "sim/core/output_checker.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/element_format.hpp"
#include "sim/core/float_norm.hpp"

namespace normsim::core {

void init_numerics(NumericsResult& num, const NormProblem& w, const DatapathConfig& cfg) {
  num.algorithm = cfg.algorithm;
  num.algorithm_name =
      w.norm == NormKind::rmsnorm ? "sum-of-squares" : std::string(to_string(cfg.algorithm));
  num.warnings = cfg.warnings();
}

OutputChecker::OutputChecker(const NormProblem& w, const FixedFormat& output, double output_lsb,
                             std::vector<float> gamma, std::vector<float> beta, bool keep_outputs, NumericsResult& num)
    : p_(w), out_lsb_(output_lsb), gamma_(std::move(gamma)), beta_(std::move(beta)), keep_(keep_outputs), num_(num) {
  const std::string dtype_name(to_string(w.output.dtype));
  if (out_lsb_ > 0 && w.output.dtype == ElemType::fp32) {
    num_.ulp_unit = "lsb of the output stage (" + output.describe() + ")";
  } else if (out_lsb_ > 0) {
    num_.ulp_unit = "max(output-stage lsb, " + dtype_name + " ulp at |ref|)";
  } else {
    num_.ulp_unit = dtype_name + " ulp at |ref|";
  }
  ref_.resize(static_cast<size_t>(w.hidden));
  inv_ulp_.resize(static_cast<size_t>(w.hidden));
  if (keep_) {
    kept.y.reserve(static_cast<size_t>(w.elements()));
    kept.mean.reserve(static_cast<size_t>(w.rows));
    kept.rstd.reserve(static_cast<size_t>(w.rows));
  }
}

namespace {
// Rounds the datapath's values into the output tensor's type and fills the
// inverse ULP of each reference value, in one pass; the type test is hoisted.
template <ElemType T>
void round_and_ulp(std::span<double> y, std::span<const double> ref, std::span<double> inv_ulp, double out_lsb,
                   Int8Scale scale) {
  for (size_t i = 0; i < y.size(); ++i) {
    if constexpr (T == ElemType::int8) {
      if (std::isfinite(y[i])) y[i] = dequantize_int8(quantize_int8(y[i], scale), scale);
    } else {
      y[i] = round_to_elem(y[i], T);
    }
    inv_ulp[i] = 1.0 / std::max(out_lsb, ulp_of(T, ref[i], scale));  // exact: powers of two (int8: 1/scale)
  }
}
}  // namespace

void OutputChecker::check_row(std::span<const double> x, std::span<double> yrow, const RowStats& s) {
  const RowStats rs = reference_stats(x, p_.norm, p_.eps);
  reference_output(x, rs, gamma_, beta_, ref_);
  switch (p_.output.dtype) {
    case ElemType::fp32: round_and_ulp<ElemType::fp32>(yrow, ref_, inv_ulp_, out_lsb_, p_.output.scale); break;
    case ElemType::bf16: round_and_ulp<ElemType::bf16>(yrow, ref_, inv_ulp_, out_lsb_, p_.output.scale); break;
    case ElemType::fp16: round_and_ulp<ElemType::fp16>(yrow, ref_, inv_ulp_, out_lsb_, p_.output.scale); break;
    case ElemType::int8: round_and_ulp<ElemType::int8>(yrow, ref_, inv_ulp_, out_lsb_, p_.output.scale); break;
  }
  num_.output_error.add(yrow, ref_, inv_ulp_);
  num_.mean_max_abs_error = std::max(num_.mean_max_abs_error, std::fabs(s.mean - rs.mean));
  const double rstd_rel = std::fabs(s.rstd - rs.rstd) / rs.rstd;
  num_.rstd_max_rel_error = std::isfinite(rstd_rel) ? std::max(num_.rstd_max_rel_error, rstd_rel) : rstd_rel;
  if (keep_) {
    kept.y.insert(kept.y.end(), yrow.begin(), yrow.end());
    kept.mean.push_back(s.mean);
    kept.rstd.push_back(s.rstd);
  }
}

}  // namespace normsim::core
