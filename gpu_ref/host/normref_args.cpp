#include "host/normref_args.hpp"

#include <cstdlib>
#include <sstream>

namespace normref {

std::string usage() {
  return "usage: normref --kernel K --rows N --hidden C [--dtype fp32|bf16] [--block B]\n"
         "               [--dist normal|cancellation] [--mean M] [--sigma S] [--seed S]\n"
         "               [--reps R] [--warmup W] [--profile] [--json FILE] [--npy-dir DIR]\n"
         "               [--npy-max-elements N] [--allow-invalid] [--dropout P]\n";
}

double Args::dropout() const {
  const KernelInfo* k = find_kernel(kernel);
  if (!k || !k->dropout) return 0.0;
  return dropout_p >= 0 ? dropout_p : kDefaultDropoutP;
}

namespace {
bool to_i64(const std::string& s, int64_t& v) {
  char* end = nullptr;
  errno = 0;
  const long long r = std::strtoll(s.c_str(), &end, 10);
  if (errno || end == s.c_str() || *end) return false;
  v = r;
  return true;
}
bool to_f64(const std::string& s, double& v) {
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end != s.c_str() && !*end;
}
}  // namespace

std::optional<std::string> parse_args(int argc, const char* const* argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    auto value = [&](std::string& out) -> bool {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    std::string v;
    int64_t n = 0;
    if (f == "--profile") { a.mode = Mode::profile; continue; }
    if (f == "--allow-invalid") { a.allow_invalid = true; continue; }
    if (!value(v)) return "normref: " + f + ": " + (f.rfind("--", 0) == 0 ? "missing value" : "unexpected argument");
    if (f == "--kernel") a.kernel = v;
    else if (f == "--rows" || f == "--hidden" || f == "--block" || f == "--seed" || f == "--reps" || f == "--warmup" ||
             f == "--npy-max-elements") {
      if (!to_i64(v, n)) return "normref: " + f + ": expected an integer, got '" + v + "'";
      if (f == "--rows") a.rows = n;
      else if (f == "--hidden") a.hidden = n;
      else if (f == "--block") a.block = static_cast<int>(n);
      else if (f == "--seed") a.seed = static_cast<uint64_t>(n);
      else if (f == "--reps") a.reps = static_cast<int>(n);
      else if (f == "--warmup") a.warmup = static_cast<int>(n);
      else a.npy_max_elements = n;
    } else if (f == "--dtype") {
      if (v == "fp32") a.dtype = DType::fp32;
      else if (v == "bf16") a.dtype = DType::bf16;
      else return "normref: --dtype: unknown value '" + v + "' (allowed: fp32, bf16)";
    } else if (f == "--dist") {
      if (v != "normal" && v != "cancellation") return "normref: --dist: unknown value '" + v + "' (allowed: normal, cancellation)";
      a.dist = v;
      if (v == "cancellation") a.dist_mean = 1.0e4;
    } else if (f == "--mean") {
      if (!to_f64(v, a.dist_mean)) return "normref: --mean: expected a number, got '" + v + "'";
    } else if (f == "--sigma") {
      if (!to_f64(v, a.dist_sigma) || !(a.dist_sigma > 0)) return "normref: --sigma: expected a number > 0, got '" + v + "'";
    } else if (f == "--dropout") {
      if (!to_f64(v, a.dropout_p) || !(a.dropout_p >= 0 && a.dropout_p < 1))
        return "normref: --dropout: expected a drop probability in [0, 1), got '" + v + "'";
    } else if (f == "--json") a.json_path = v;
    else if (f == "--npy-dir") a.npy_dir = v;
    else return "normref: unknown option '" + f + "'";
  }
  if (a.kernel.empty()) return "normref: --kernel: missing (allowed: " + kernel_names() + ")";
  if (!find_kernel(a.kernel)) return "normref: --kernel: unknown kernel '" + a.kernel + "' (allowed: " + kernel_names() + ")";
  if (a.rows < 1 || a.rows > (int64_t(1) << 31)) return "normref: --rows: must be 1..2^31, got " + std::to_string(a.rows);
  if (a.hidden < 1 || a.hidden > (int64_t(1) << 24)) return "normref: --hidden: must be 1..2^24, got " + std::to_string(a.hidden);
  if (a.reps < 1 || a.reps > 10000) return "normref: --reps: must be 1..10000";
  if (a.warmup < 0 || a.warmup > 1000) return "normref: --warmup: must be 0..1000";
  if (a.dropout_p >= 0 && !find_kernel(a.kernel)->dropout)
    return "normref: --dropout: " + a.kernel + " has no dropout (allowed with: fused_residual_dropout)";
  return check_supported(a, *find_kernel(a.kernel));
}

}  // namespace normref
