#include "host/normref_args.hpp"

#include "host/fast_shape.hpp"

#include <cstdlib>
#include <sstream>

namespace normref {

const std::vector<KernelInfo>& kernel_registry() {
  // Shared-memory limits: 227 KiB of opt-in dynamic shared memory per block on sm_90.
  static const std::vector<KernelInfo> k = {
      {"v1", "one thread per row, three serial passes over x", false, 256, 32, 1024, true, 1, 0, 0, true, false},
      {"v2", "three kernels: mean, rstd (shared-memory tree reductions), normalise", false, 256, 32, 1024, true, 1, 0,
       0, true, false},
      {"v3", "warp per row (cooperative groups), exact two-pass, streaming hints", false, 256, 32, 1024, true, 1, 0, 0,
       true, false},
      {"v4", "warp per row, single-pass sum / sum of squares, rsqrtf", false, 256, 32, 1024, true, 1, 0, 0, true, true},
      {"v5", "block per row, single pass, warp shuffle then shared-memory reduction", true, 256, 32, 1024, true, 1, 0,
       0, true, true},
      {"v6", "warp per row, 128-bit access, weight/bias/row in dynamic shared memory (falls back to v5)", true, 256, 32,
       1024, true, 8, 0, 0, true, false},
      {"welford_warp_reg", "warp per row, Welford per lane + shuffle Chan merge, row held in registers", false, 256, 32,
       1024, true, 1, 4096, 4096, true, false},
      {"welford_block_smem", "block per row, Welford, row cached in shared memory", true, 256, 32, 1024, true, 1,
       56 * 1024, 112 * 1024, true, false},
      {"block_reread", "block per row, Welford, x re-read from global memory to normalise", false, 256, 32, 1024, true,
       1, 0, 0, true, false},
      {"rms_warp", "RMSNorm, warp per row, x re-read to normalise", true, 256, 32, 1024, true, 1, 0, 0, false, false},
      {"rms_block", "RMSNorm, block per row, two-level reduction, x re-read", true, 256, 32, 1024, true, 1, 0, 0, false,
       false},
      // The frontier kernels: shapes from host/fast_shape.hpp, 128-bit access (hidden a multiple of 8).
      {"fast_ln", "row in registers (warp, block or 2-block cluster per row; two sweeps beyond), 128-bit access, "
                  "exact two-pass statistics; bf16 runs take bf16 gamma/beta",
       true, 0, 32, 1024, true, 8, 0, 0, true, false, KernelKind::forward, true},
      {"fast_rms", "RMSNorm as fast_ln", true, 0, 32, 1024, true, 8, 0, 0, false, false, KernelKind::forward, true},
      {"fused_residual", "Post-Norm: z = x + r and y = LN(z) in one pass, block per row, row in registers", true, 0, 32,
       1024, true, 8, 32768, 32768, true, false, KernelKind::fused_residual, true},
      {"bwd_atomic", "LayerNorm backward: dx by the two row reductions, dgamma/dbeta by global atomics", true, 0, 32,
       1024, true, 8, 8192, 8192, true, false, KernelKind::backward, true},
      {"bwd_twolevel", "LayerNorm backward: dgamma/dbeta by per-block partials and a column-sum kernel", true, 0, 32,
       1024, true, 8, 8192, 8192, true, false, KernelKind::backward, true},
  };
  return k;
}

const KernelInfo* find_kernel(const std::string& name) {
  for (const auto& k : kernel_registry())
    if (k.name == name) return &k;
  return nullptr;
}

std::string usage() {
  return "usage: normref --kernel K --rows N --hidden C [--dtype fp32|bf16] [--block B]\n"
         "               [--dist normal|cancellation] [--mean M] [--sigma S] [--seed S]\n"
         "               [--reps R] [--warmup W] [--profile] [--json FILE] [--npy-dir DIR]\n"
         "               [--npy-max-elements N] [--allow-invalid]\n";
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
std::string kernel_names() {
  std::string s;
  for (const auto& k : kernel_registry()) s += (s.empty() ? "" : ", ") + k.name;
  return s;
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
  return check_supported(a, *find_kernel(a.kernel));
}

int shape_block(const KernelInfo& k, int64_t hidden, DType dtype) {
  const int eb = dtype == DType::bf16 ? 2 : 4;
  switch (k.kind) {
    case KernelKind::forward: return fast_norm_shape(hidden, eb).block();
    case KernelKind::fused_residual: return fused_residual_threads(hidden, eb);
    case KernelKind::backward: return backward_threads(hidden, eb);
  }
  return 0;
}

int effective_block(const Args& a, const KernelInfo& k) {
  if (k.block_from_hidden) return shape_block(k, a.hidden, a.dtype);
  return a.block ? a.block : k.default_block;
}

std::optional<std::string> check_supported(const Args& a, const KernelInfo& k) {
  const int b = effective_block(a, k);
  if (k.block_from_hidden) {
    if (a.block && a.block != b)
      return "normref: --block: " + k.name + " picks its block from --hidden (allowed: 0 or " + std::to_string(b) +
             " at hidden " + std::to_string(a.hidden) + ")";
  } else if (b < k.min_block || b > k.max_block || (k.block_multiple_of_32 && b % 32 != 0)) {
    return "normref: --block: " + std::to_string(b) + " not supported by " + k.name + " (allowed: multiples of 32 in " +
           std::to_string(k.min_block) + ".." + std::to_string(k.max_block) + ")";
  }
  if (a.dtype == DType::bf16 && !k.bf16) return "normref: --dtype: " + k.name + " has no bf16 variant (allowed: fp32)";
  if (a.hidden % k.hidden_multiple != 0)
    return "normref: --hidden: " + k.name + " needs a multiple of " + std::to_string(k.hidden_multiple) +
           " (128-bit vector access), got " + std::to_string(a.hidden);
  const int64_t lim = a.dtype == DType::bf16 ? k.max_hidden_bf16 : k.max_hidden_fp32;
  if (lim && a.hidden > lim)
    return "normref: --hidden: " + std::to_string(a.hidden) + " exceeds " + k.name + "'s on-chip scheme (allowed: " +
           std::to_string(k.hidden_multiple) + ".." + std::to_string(lim) + " for " +
           (a.dtype == DType::bf16 ? "bf16" : "fp32") + ")";
  return std::nullopt;
}

}  // namespace normref
