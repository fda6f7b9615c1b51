#!/usr/bin/env bash
# Runs on the GPU machine: the bf16 rows that now stream as a cluster of one
# (host/fast_shape.hpp) -- their golden cases through normref (timing, .npy
# outputs, ncu: run_golden.sh's layout, for build_golden.py and `normsim
# regress`), fast_norm_bench's shipped kernel beside the register scheme it
# replaced (registers1024), and bench_torch's forward against the peers.
#   LIGER=DIR [DEADLINE_S=540] lab/gpu/scripts/run_stream1_check.sh OUTDIR
set -uo pipefail
out=${1:?OUTDIR}
root=$(cd "$(dirname "$0")/../../.." && pwd)
start=$(date +%s); deadline=${DEADLINE_S:-540}
mkdir -p "$out/g"
export GPU_REF_BUILD=$(mktemp -d)
ids='^fast_(ln|rms)_bf16_(4096x20480|2048x17408|4096x17408|2048x19456) '
bash "$root/gpu_ref/scripts/run_golden.sh" "$out/g" timing "$ids" >"$out/log.txt" 2>&1
bash "$root/gpu_ref/scripts/run_golden.sh" "$out/g" ncu "$ids" >>"$out/log.txt" 2>&1
echo "golden cases in $(( $(date +%s) - start )) s: $(grep -c 'rc=0' "$out/log.txt") rc=0 lines"
cs=17408,18432,19456,20480,21504,22528,23552,24576,25600,26624,27648
timeout 120 "$GPU_REF_BUILD/fast_norm_bench" --reps 20 --c "$cs" --variants registers1024 >"$out/fast_norm_shipped.jsonl" 2>>"$out/log.txt"
echo "bench rc=$?"
left=$(( deadline - ($(date +%s) - start) ))
liger=(); [ -n "${LIGER:-}" ] && liger=(--liger "$LIGER")
PYTHONUNBUFFERED=1 timeout $(( left + 60 )) python3 "$root/lab/gpu/scripts/bench_torch.py" --pass fwd --c "$cs" --dtypes bf16 \
  --reps 20 --ours "$GPU_REF_BUILD/libfast_norm_capi.so" "${liger[@]}" --out "$out/torch_fwd.jsonl" --deadline-s "$left" \
  >/dev/null 2>"$out/torch_fwd.err"
echo "fwd rc=$? in $(( $(date +%s) - start )) s"; tail -n 2 "$out/torch_fwd.err"
