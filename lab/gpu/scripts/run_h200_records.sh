#!/usr/bin/env bash
# Runs on the GPU machine: one call's worth of the H200 records the open GPU
# work needs, in order, each step under the call's deadline, everything
# packed into OUTDIR/records.tar.gz at the end (a device call brings back
# at most 8 files):
#   golden   the golden cases of GOLDEN_IDS (timing, .npy outputs, ncu;
#            run_golden.sh's layout, for build_golden.py --merge)
#   probe    sm_latency_probe (SHFL, shared-memory bank conflicts, LSU rate,
#            atomics by contention, the remainder loop's chase)
#   bwd fwd  bench_torch.py against the peers (run_peer_sweep.sh's cases),
#            resuming from RECORDS_IN/torch_{bwd,fwd}.jsonl
#   profile  the golden cases' local-memory (spill) sectors under ncu,
#            resuming from PROFILE_RECORDED (ncu_profile.json)
#   [STEPS="golden probe bwd fwd profile"] [DEADLINE_S=540] [LIGER=DIR] [GOLDEN_IDS=REGEX]
#   [RECORDS_IN=DIR] [PROFILE_RECORDED=FILE] lab/gpu/scripts/run_h200_records.sh OUTDIR
# The build goes to GPU_REF_BUILD (default /tmp/normsim_gpu_build), so a
# second call on a machine still warm builds nothing.
set -uo pipefail
out=${1:?OUTDIR}
root=$(cd "$(dirname "$0")/../../.." && pwd)
here=$root/gpu_ref
start=$(date +%s); deadline=${DEADLINE_S:-540}
left() { echo $(( deadline - ($(date +%s) - start) )); }
res=$(mktemp -d); work=$(mktemp -d)
export GPU_REF_BUILD=${GPU_REF_BUILD:-/tmp/normsim_gpu_build} NORMSIM_LAB=ON
pack() { tar czf "$out/records.tar.gz" -C "$res" . ; ls -la "$out"; }
trap pack EXIT
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.current.sm,clocks.max.sm,clocks.current.memory,power.limit \
  --format=csv >"$res/nvidia_smi.csv" 2>&1
. "$here/scripts/build_gpu_ref.sh"
build_gpu_ref "$res/build.log"
echo "built in $(( $(date +%s) - start )) s"
steps=" ${STEPS:-golden probe bwd fwd profile} "
if [[ $steps == *" golden "* ]] && [ -n "${GOLDEN_IDS:-}" ]; then
  bash "$here/scripts/run_golden.sh" "$res/golden" timing "$GOLDEN_IDS" >"$res/golden.log" 2>&1
  bash "$here/scripts/run_golden.sh" "$res/golden" ncu "$GOLDEN_IDS" >>"$res/golden.log" 2>&1
  echo "golden: $(grep -c 'rc=0' "$res/golden.log") rc=0 lines in $(( $(date +%s) - start )) s"
fi
if [[ $steps == *" probe "* ]]; then
  timeout 150 "$GPU_REF_BUILD/sm_latency_probe" >"$res/sm_latency_probe.jsonl" 2>&1
  echo "probe rc=$? ($(wc -l <"$res/sm_latency_probe.jsonl") lines) at $(( $(date +%s) - start )) s"
fi
liger=(); [ -n "${LIGER:-}" ] && liger=(--liger "$LIGER")
for pass in bwd fwd; do
  [[ $steps == *" $pass "* ]] || continue
  rec=$res/torch_$pass.jsonl
  [ -n "${RECORDS_IN:-}" ] && [ -f "$RECORDS_IN/torch_$pass.jsonl" ] && cp "$RECORDS_IN/torch_$pass.jsonl" "$rec"
  l=$(left); [ $pass = bwd ] && [[ $steps == *" fwd "* ]] && l=$(( l < 200 ? l : 200 ))
  [ "$l" -gt 20 ] || { echo "$pass: no time left"; continue; }
  c=$( [ $pass = fwd ] && echo all || echo 768,2304,4096,8192 )
  PYTHONUNBUFFERED=1 timeout $(( l + 60 )) python3 "$root/lab/gpu/scripts/bench_torch.py" --pass $pass --c $c --reps 20 \
    --ours "$GPU_REF_BUILD/libfast_norm_capi.so" "${liger[@]}" --out "$rec" --deadline-s "$l" \
    >/dev/null 2>"$res/torch_$pass.err"
  echo "$pass rc=$? at $(( $(date +%s) - start )) s: $(grep -c '"mode": "copy"' "$rec") cases"; tail -n 2 "$res/torch_$pass.err"
done
if [[ $steps == *" profile "* ]] && [ "$(left)" -gt 30 ]; then
  METRICS=l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum \
    RECORDED=${PROFILE_RECORDED:-} DEADLINE_S=$(( $(left) - 20 )) bash "$here/scripts/run_profile.sh" "$res/profile" \
    >"$res/profile.log" 2>&1
  echo "profile: $(grep -c 'rc=0' "$res/profile.log") cases run, $(grep -c skipped "$res/profile.log") skipped"
fi
echo "done in $(( $(date +%s) - start )) s"
