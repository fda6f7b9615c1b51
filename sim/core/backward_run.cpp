#include "sim/core/backward_run.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/core/branch_grad.hpp"
#include "sim/core/dropout_mask.hpp"
#include "sim/core/row_inputs.hpp"

namespace normsim::core {

namespace {

// fp64 statistics of a row (exact two-pass), as the reference takes them.
void reference_stats(const NormProblem& p, const std::vector<double>& x, double& mean, double& rstd) {
  const double C = static_cast<double>(x.size());
  mean = 0;
  if (p.norm == NormKind::layernorm) {
    for (double v : x) mean += v;
    mean /= C;
  }
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  rstd = 1 / std::sqrt(ss / C + p.eps);
}

// The inverse ulps of `ref` in type t, floored at `lsb` (0: none).
void inverse_ulps(std::span<const double> ref, ElemType t, double lsb, std::vector<double>& inv) {
  inv.resize(ref.size());
  for (size_t i = 0; i < ref.size(); ++i) inv[i] = 1.0 / std::max(lsb, ulp_of(t, ref[i]));
}

}  // namespace

BackwardNumerics run_backward_functional(const NormProblem& p, const DatapathConfig& fwd, const BackwardConfig& bwd,
                                         BackwardOutputs* keep, const BackwardUlpFloors* floors) {
  if (!p.is_backward()) throw std::invalid_argument("run_backward_functional: the workload's pass is forward");
  const size_t C = static_cast<size_t>(p.hidden);
  const bool rms = p.norm == NormKind::rmsnorm;
  std::vector<float> gamma, beta;
  generate_params(p, gamma, beta);
  NormDatapath forward(fwd, gamma, beta);
  NormBackward backward(bwd, gamma, p.rows);
  BackwardNumerics n;
  n.forward_counters.add(forward.parameter_counters());
  const bool fixed = bwd.arithmetic == Arithmetic::fixed;
  auto floor_of = [&](double given, BackwardStage s) {
    return given >= 0 ? given : fixed ? bwd.formats[static_cast<int>(s)].lsb() : 0.0;
  };
  const BackwardUlpFloors own;
  const BackwardUlpFloors& fl = floors ? *floors : own;
  const double dx_lsb = floor_of(fl.dx, BackwardStage::dx), dg_lsb = floor_of(fl.dgamma, BackwardStage::dgamma),
               db_lsb = floor_of(fl.dbeta, BackwardStage::dbeta);
  n.dx_ulp_unit = std::string(to_string(p.output.dtype)) + " ulp at |ref|" +
                  (dx_lsb > 0 ? " (at least the dx stage's lsb)" : "");
  n.param_ulp_unit = std::string("fp32 ulp at |ref|") + (dg_lsb > 0 ? " (at least the accumulator's lsb)" : "");
  std::vector<double> x(C), dy(C), y(C), dx(C), ref(C), in(C), inv, branch(C), branch_ref(C);
  // A fused Post-Norm backward: x is the forward's sum z; with dropout the
  // branch's gradient leaves beside dz.
  const bool branch_grad = p.writes_branch_grad();
  const double scale = branch_grad ? static_cast<double>(rng::dropout_scale(p.residual->dropout_p)) : 1.0;
  ResidualAddCounters forward_sum;  // the forward's adds that made z: not this unit's
  std::vector<double> gd(gamma.begin(), gamma.end()), dg_ref(C, 0.0), db_ref(C, 0.0);
  if (keep) keep->dx.assign(static_cast<size_t>(p.rows) * C, 0.0);
  if (keep && branch_grad) keep->dbranch.assign(static_cast<size_t>(p.rows) * C, 0.0);
  for (int64_t r = 0; r < p.rows; ++r) {
    if (p.residual) datapath_input_row(p, fwd.residual_add, r, x, nullptr, &forward_sum);
    else generate_input_row(p, r, x, nullptr);
    generate_grad_row(p, r, dy);
    // The forward saved its own statistics (as its datapath holds them).
    const RowStats st = forward.process_row(x, y, n.forward_counters);
    double mean_ref, rstd_ref;
    reference_stats(p, x, mean_ref, rstd_ref);
    if (bwd.xhat_stored) {  // the forward wrote x_hat from its statistics, rounded to the input's type
      for (size_t c = 0; c < C; ++c) in[c] = round_to_elem(rms ? x[c] * st.rstd : (x[c] - st.mean) * st.rstd, p.input.dtype);
      backward.process_row(r, in, dy, st.mean, st.rstd, dx, n.counters);
    } else {
      backward.process_row(r, x, dy, st.mean, st.rstd, dx, n.counters);
    }
    backward_reference_row(p.norm, x, dy, gd, mean_ref, rstd_ref, ref, dg_ref, db_ref);
    if (branch_grad) {
      const int64_t tr = p.residual->tensor_row(r);
      branch_grad_row(*p.residual, fwd.residual_add, p.seed, tr, dx, branch, n.branch_counters);
      for (size_t c = 0; c < C; ++c) {
        branch[c] = round_to_elem(branch[c], p.output.dtype);
        branch_ref[c] = branch_kept(*p.residual, p.seed, tr, p.hidden, static_cast<int64_t>(c)) ? ref[c] * scale : 0.0;
      }
      inverse_ulps(branch_ref, p.output.dtype, dx_lsb, inv);
      n.dbranch_error.add(branch, branch_ref, inv);
      if (keep) std::copy(branch.begin(), branch.end(), keep->dbranch.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(r) * C));
    }
    for (size_t c = 0; c < C; ++c) dx[c] = round_to_elem(dx[c], p.output.dtype);
    inverse_ulps(ref, p.output.dtype, dx_lsb, inv);
    n.dx_error.add(dx, ref, inv);
    if (keep) std::copy(dx.begin(), dx.end(), keep->dx.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(r) * C));
  }
  std::vector<double> dg(C), db(C);
  backward.finish(dg, db, n.counters);
  for (double& v : dg) v = round_to_elem(v, ElemType::fp32);  // stored in fp32
  for (double& v : db) v = round_to_elem(v, ElemType::fp32);
  inverse_ulps(dg_ref, ElemType::fp32, dg_lsb, inv);
  n.dgamma_error.add(dg, dg_ref, inv);
  if (!rms) {
    inverse_ulps(db_ref, ElemType::fp32, db_lsb, inv);
    n.dbeta_error.add(db, db_ref, inv);
  }
  if (keep) keep->dgamma = dg, keep->dbeta = rms ? std::vector<double>{} : db;
  return n;
}

}  // namespace normsim::core
