#!/usr/bin/env bash
# Runs on the GPU machine: the frontier kernels' golden cases (timing, ncu
# counters, the ncu profile) and, in the same call, the benchmarks behind
# FAST_NORM.md and FUSED_BWD.md (fast_norm_bench, torch eager and
# torch.compile, fused_bwd_bench).
#   [FILTER=ID-REGEX] [BENCHES="fast_norm torch fused_bwd"] [TORCH_ARGS="--c all --deadline-s 400"] \
#   [TORCH_RECORD=lab/records/h200/torch_norm_all.jsonl] lab/gpu/scripts/run_frontier.sh OUTDIR [golden|profile|bench]...
# (all three parts by default; FILTER picks golden cases, BENCHES the benchmarks;
# TORCH_ARGS goes to bench_torch.py, whose records OUTDIR/torch_norm.jsonl
# takes up from TORCH_RECORD's: a later call goes on where a deadline stopped)
set -uo pipefail
out=${1:?OUTDIR}; shift; what=" ${*:-golden profile bench} "
here=$(cd "$(dirname "$0")/../../../gpu_ref" && pwd)  # gpu_ref/
lab=$(cd "$(dirname "$0")" && pwd)
export NORMSIM_LAB=ON
filter=${FILTER:-'^(fast_|fused_|bwd_)'}
mkdir -p "$out"
if [[ $what == *" golden "* ]]; then
  bash "$here/scripts/run_golden.sh" "$out/golden" timing "$filter" | grep -v "rc=0" | tail -20
  bash "$here/scripts/run_golden.sh" "$out/golden" ncu "$filter" | grep -v "rc=0" | tail -20
fi
if [[ $what == *" profile "* ]]; then
  bash "$here/scripts/run_profile.sh" "$out/golden" "$filter" | grep -v "rc=0" | tail -20
fi
if [[ $what == *" bench "* ]]; then
  work=$(mktemp -d)
  cmake -S "$here" -B "$work" -DCMAKE_BUILD_TYPE=Release -DNORMSIM_LAB=ON >"$out/bench_build.log" 2>&1 &&
    cmake --build "$work" -j 16 --target fast_norm_bench fused_bwd_bench fast_norm_capi >>"$out/bench_build.log" 2>&1 ||
    { tail -20 "$out/bench_build.log"; exit 1; }
  benches=" ${BENCHES:-fast_norm torch fused_bwd} "
  [[ $benches == *" fast_norm "* ]] && "$work/fast_norm_bench" --reps 20 >"$out/fast_norm.jsonl" 2>"$out/fast_norm.err"
  if [[ $benches == *" torch "* ]]; then
    if [ -n "${TORCH_RECORD:-}" ] && [ -f "$TORCH_RECORD" ]; then cp "$TORCH_RECORD" "$out/torch_norm.jsonl"; else rm -f "$out/torch_norm.jsonl"; fi
    # shellcheck disable=SC2086  # TORCH_ARGS is a list of flags
    python3 "$lab/bench_torch.py" --reps 20 --ours "$work/libfast_norm_capi.so" --out "$out/torch_norm.jsonl" ${TORCH_ARGS:-} \
      >/dev/null 2>"$out/torch_norm.err"
  fi
  [[ $benches == *" fused_bwd "* ]] && "$work/fused_bwd_bench" --reps 20 >"$out/fused_bwd.jsonl" 2>"$out/fused_bwd.err"
  for e in "$out"/*.err; do tail -n 2 "$e"; done
fi
ls -la "$out" "$out/golden" 2>/dev/null
