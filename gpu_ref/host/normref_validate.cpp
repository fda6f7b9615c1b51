#include "host/normref_validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

#include "sim/core/element_format.hpp"
#include "sim/core/float_norm.hpp"

namespace normref {

namespace {
struct Partial {
  int64_t nonfinite = 0;
  double max_abs = 0, max_ratio = 0, mean_err = 0, rstd_err = 0;
  long double sq_err = 0, sq_ref = 0;
  int64_t worst_row = -1, worst_col = -1;
  bool stats_ok = true;
  std::string stats_reason;
};
}  // namespace

ValidationResult validate(const KernelInfo& k, DType dtype, int64_t rows, int64_t hidden, double eps,
                          const std::vector<float>& x, const std::vector<float>& gamma,
                          const std::vector<float>& beta, const std::vector<float>& y,
                          const std::vector<float>& mean, const std::vector<float>& rstd, int threads) {
  namespace core = normsim::core;
  const double u = std::ldexp(1.0, -24);
  const core::NormKind kind = k.layernorm ? core::NormKind::layernorm : core::NormKind::rmsnorm;
  threads = std::max(1, threads);
  // Row sums of C terms carry rounding errors growing like sqrt(C) (any order).
  const double sqrt_c = std::sqrt(static_cast<double>(hidden));
  std::vector<Partial> parts(static_cast<size_t>(threads));
  auto work = [&](int t) {
    Partial& p = parts[static_cast<size_t>(t)];
    std::vector<double> xd(static_cast<size_t>(hidden)), ref(static_cast<size_t>(hidden));
    const std::vector<float> no_beta;
    for (int64_t r = t; r < rows; r += threads) {
      const size_t off = static_cast<size_t>(r * hidden);
      double abs_sum = 0;
      for (int64_t c = 0; c < hidden; ++c) {
        xd[c] = x[off + c];
        abs_sum += std::fabs(xd[c]);
      }
      const core::RowStats s = core::reference_stats(xd, kind, eps);
      const double mean_abs = abs_sum / static_cast<double>(hidden);
      core::reference_output(xd, s, gamma, k.layernorm ? std::span<const float>(beta) : std::span<const float>(no_beta), ref);
      // Statistics.
      const double rs_err = std::fabs(rstd[r] - s.rstd) / s.rstd;
      const double rs_tol = kTolK * u * (1.0 + sqrt_c) + std::pow(kTolK * u * std::fabs(s.mean) * s.rstd, 2);
      if (!std::isfinite(rstd[r]) || rs_err > rs_tol) {
        if (p.stats_ok) p.stats_reason = "rstd of row " + std::to_string(r) + " off by " + std::to_string(rs_err) + " (relative)";
        p.stats_ok = false;
      }
      p.rstd_err = std::isfinite(rs_err) ? std::max(p.rstd_err, rs_err) : INFINITY;
      if (k.layernorm) {
        const double m_err = std::fabs(mean[r] - s.mean);
        if (!std::isfinite(mean[r]) || m_err > kTolK * u * (1.0 + sqrt_c) * abs_sum / static_cast<double>(hidden) + 1e-30) {
          if (p.stats_ok) p.stats_reason = "mean of row " + std::to_string(r) + " off by " + std::to_string(m_err);
          p.stats_ok = false;
        }
        p.mean_err = std::isfinite(m_err) ? std::max(p.mean_err, m_err) : INFINITY;
      }
      // Outputs.
      for (int64_t c = 0; c < hidden; ++c) {
        const double out = y[off + c];
        p.sq_ref += static_cast<long double>(ref[c]) * ref[c];
        if (!std::isfinite(out)) {
          ++p.nonfinite;
          continue;
        }
        const double err = std::fabs(out - ref[c]);
        const double mag = std::fabs(gamma[c]) * (std::fabs(xd[c]) + std::fabs(s.mean) + sqrt_c * mean_abs) * s.rstd +
                           (k.layernorm ? std::fabs(beta[c]) : 0.0);
        const double out_ulp = dtype == DType::bf16 ? core::ulp_of(core::ElemType::bf16, ref[c]) : 0.0;
        const double ratio = err / (kTolK * u * mag + out_ulp + 1e-30);
        p.sq_err += static_cast<long double>(err) * err;
        p.max_abs = std::max(p.max_abs, err);
        if (ratio > p.max_ratio) {
          p.max_ratio = ratio;
          p.worst_row = r;
          p.worst_col = c;
        }
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (auto& th : pool) th.join();

  ValidationResult v;
  long double sq_err = 0, sq_ref = 0;
  bool stats_ok = true;
  for (const auto& p : parts) {
    v.nonfinite += p.nonfinite;
    v.max_abs_error = std::max(v.max_abs_error, p.max_abs);
    v.mean_max_abs_error = std::max(v.mean_max_abs_error, p.mean_err);
    v.rstd_max_rel_error = std::max(v.rstd_max_rel_error, p.rstd_err);
    if (p.max_ratio > v.max_tolerance_ratio) {
      v.max_tolerance_ratio = p.max_ratio;
      v.worst_row = p.worst_row;
      v.worst_col = p.worst_col;
    }
    sq_err += p.sq_err;
    sq_ref += p.sq_ref;
    if (!p.stats_ok && stats_ok) {
      stats_ok = false;
      v.reason = p.stats_reason;
    }
  }
  v.rel_l2_error = sq_ref > 0 ? static_cast<double>(std::sqrt(sq_err / sq_ref)) : 0.0;
  if (v.nonfinite) {
    v.reason = std::to_string(v.nonfinite) + " outputs not finite (unwritten or NaN)";
    v.rel_l2_error = INFINITY;
  } else if (v.max_tolerance_ratio > 1.0 && v.reason.empty()) {
    char b[160];
    std::snprintf(b, sizeof b, "output [%lld, %lld] exceeds tolerance %.3gx", static_cast<long long>(v.worst_row),
                  static_cast<long long>(v.worst_col), v.max_tolerance_ratio);
    v.reason = b;
  }
  v.valid = v.nonfinite == 0 && v.max_tolerance_ratio <= 1.0 && stats_ok;
  return v;
}

void backward_statistics(const std::vector<float>& x, int64_t rows, int64_t hidden, double eps,
                         std::vector<float>& mean, std::vector<float>& rstd) {
  normsim::core::reference_stats_fp32(x, rows, hidden, eps, mean, rstd);
}

ValidationResult validate_backward(DType dtype, int64_t rows, int64_t hidden, const std::vector<float>& x,
                                   const std::vector<float>& dy, const std::vector<float>& gamma,
                                   const std::vector<float>& mean, const std::vector<float>& rstd,
                                   const std::vector<float>& dx, const std::vector<float>& dgamma,
                                   const std::vector<float>& dbeta, int threads) {
  namespace core = normsim::core;
  const double u = std::ldexp(1.0, -24), C = static_cast<double>(hidden);
  const double sqrt_c = std::sqrt(C);
  threads = std::max(1, threads);
  struct Part {
    Partial p;
    std::vector<double> dg, db, adg, adb;  // the parameter gradients' sums and absolute sums
  };
  std::vector<Part> parts(static_cast<size_t>(threads));
  auto work = [&](int t) {
    Part& w = parts[static_cast<size_t>(t)];
    Partial& p = w.p;
    w.dg.assign(static_cast<size_t>(hidden), 0.0), w.db = w.dg, w.adg = w.dg, w.adb = w.dg;
    std::vector<double> xh(static_cast<size_t>(hidden)), g(static_cast<size_t>(hidden));
    for (int64_t r = t; r < rows; r += threads) {
      const size_t off = static_cast<size_t>(r * hidden);
      const double mu = mean[static_cast<size_t>(r)], rs = rstd[static_cast<size_t>(r)];
      double s1 = 0, s2 = 0, a1 = 0, a2 = 0;
      for (int64_t c = 0; c < hidden; ++c) {
        xh[c] = (x[off + c] - mu) * rs;
        g[c] = static_cast<double>(dy[off + c]) * gamma[c];
        s1 += g[c], s2 += g[c] * xh[c];
        a1 += std::fabs(g[c]), a2 += std::fabs(g[c] * xh[c]);
        const double d = dy[off + c];
        w.dg[c] += d * xh[c], w.db[c] += d;
        w.adg[c] += std::fabs(d * xh[c]), w.adb[c] += std::fabs(d);
      }
      for (int64_t c = 0; c < hidden; ++c) {
        const double ref = rs / C * (C * g[c] - s1 - xh[c] * s2);
        const double out = dx[off + c];
        p.sq_ref += static_cast<long double>(ref) * ref;
        if (!std::isfinite(out)) {
          ++p.nonfinite;
          continue;
        }
        const double err = std::fabs(out - ref);
        const double mag = rs / C * (C * std::fabs(g[c]) + (1 + sqrt_c) * (a1 + std::fabs(xh[c]) * a2));
        const double out_ulp = dtype == DType::bf16 ? core::ulp_of(core::ElemType::bf16, ref) : 0.0;
        const double ratio = err / (kTolK * u * mag + out_ulp + 1e-30);
        p.sq_err += static_cast<long double>(err) * err;
        p.max_abs = std::max(p.max_abs, err);
        if (ratio > p.max_ratio) p.max_ratio = ratio, p.worst_row = r, p.worst_col = c;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (auto& th : pool) th.join();

  ValidationResult v;
  long double sq_err = 0, sq_ref = 0;
  std::vector<double> dg(static_cast<size_t>(hidden), 0.0), db = dg, adg = dg, adb = dg;
  for (const auto& w : parts) {
    v.nonfinite += w.p.nonfinite;
    v.max_abs_error = std::max(v.max_abs_error, w.p.max_abs);
    if (w.p.max_ratio > v.max_tolerance_ratio)
      v.max_tolerance_ratio = w.p.max_ratio, v.worst_row = w.p.worst_row, v.worst_col = w.p.worst_col;
    sq_err += w.p.sq_err, sq_ref += w.p.sq_ref;
    for (int64_t c = 0; c < hidden; ++c) dg[c] += w.dg[c], db[c] += w.db[c], adg[c] += w.adg[c], adb[c] += w.adb[c];
  }
  const double grad_k = kTolK * u * (1 + std::sqrt(static_cast<double>(rows)));
  int64_t worst_param = -1;
  for (int64_t c = 0; c < hidden; ++c) {
    if (!std::isfinite(dgamma[c]) || !std::isfinite(dbeta[c])) {
      ++v.nonfinite;
      continue;
    }
    const double ratio = std::max(std::fabs(dgamma[c] - dg[c]) / (grad_k * adg[c] + 1e-30),
                                  std::fabs(dbeta[c] - db[c]) / (grad_k * adb[c] + 1e-30));
    if (ratio > v.param_grad_max_tolerance_ratio) v.param_grad_max_tolerance_ratio = ratio, worst_param = c;
  }
  v.rel_l2_error = sq_ref > 0 ? static_cast<double>(std::sqrt(sq_err / sq_ref)) : 0.0;
  if (v.nonfinite) {
    v.reason = std::to_string(v.nonfinite) + " outputs not finite (unwritten or NaN)";
    v.rel_l2_error = INFINITY;
  } else if (v.max_tolerance_ratio > 1.0) {
    char b[160];
    std::snprintf(b, sizeof b, "dx [%lld, %lld] exceeds tolerance %.3gx", static_cast<long long>(v.worst_row),
                  static_cast<long long>(v.worst_col), v.max_tolerance_ratio);
    v.reason = b;
  } else if (v.param_grad_max_tolerance_ratio > 1.0) {
    char b[160];
    std::snprintf(b, sizeof b, "dgamma/dbeta [%lld] exceeds tolerance %.3gx", static_cast<long long>(worst_param),
                  v.param_grad_max_tolerance_ratio);
    v.reason = b;
  }
  v.valid = v.nonfinite == 0 && v.max_tolerance_ratio <= 1.0 && v.param_grad_max_tolerance_ratio <= 1.0;
  return v;
}

std::string json_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') { r += '\\'; r += c; }
    else if (c == '\n') r += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); r += b; }
    else r += c;
  }
  return r;
}

JsonObject& JsonObject::num(const std::string& k, double v) {
  char b[64];
  if (!std::isfinite(v)) return raw(k, "null");
  std::snprintf(b, sizeof b, "%.9g", v);
  return raw(k, b);
}
JsonObject& JsonObject::integer(const std::string& k, int64_t v) { return raw(k, std::to_string(v)); }
JsonObject& JsonObject::str(const std::string& k, const std::string& v) { return raw(k, "\"" + json_escape(v) + "\""); }
JsonObject& JsonObject::boolean(const std::string& k, bool v) { return raw(k, v ? "true" : "false"); }
JsonObject& JsonObject::raw(const std::string& k, const std::string& json) {
  items_.emplace_back(k, json);
  return *this;
}
std::string JsonObject::dump() const {
  std::string s = "{";
  for (size_t i = 0; i < items_.size(); ++i)
    s += (i ? ", " : "") + std::string("\"") + json_escape(items_[i].first) + "\": " + items_[i].second;
  return s + "}";
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace normref
