#!/usr/bin/env bash
# Runs on the GPU machine: the SM probes (sm_latency_probe) and the kernel
# sweep against the peers -- ours, torch eager, torch.compile and Liger-Kernel
# interleaved with a copy of each case's x (bench_torch.py), backward first
# (16 cases), then the forward over every row length (--c all); then, as
# asked, fast_norm_bench's variants at VARIANTS_C and the golden cases'
# local-memory (spill) sectors under ncu until the deadline (PROFILE=1).
#   LIGER=DIR [FWD_RECORD=f.jsonl] [BWD_RECORD=b.jsonl] [DEADLINE_S=500] [SKIP_PROBE=1] \
#     [PASSES="bwd fwd"] [VARIANTS_C=C,C,... [VARIANTS=a,b]] [PROFILE=1] lab/gpu/scripts/run_peer_sweep.sh OUTDIR
# The records resume: FWD_RECORD/BWD_RECORD (a previous call's output) are
# copied into OUTDIR and bench_torch.py skips the cases they hold.
set -uo pipefail
out=${1:?OUTDIR}
here=$(cd "$(dirname "$0")/../../../gpu_ref" && pwd)
lab=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)
deadline=${DEADLINE_S:-500}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.current.sm,clocks.max.sm,clocks.current.memory,power.limit \
  --format=csv >"$out/nvidia_smi.csv" 2>&1
work=$(mktemp -d)
cmake -S "$here" -B "$work" -DCMAKE_BUILD_TYPE=Release -DNORMSIM_LAB=ON >"$out/build.log" 2>&1 &&
  cmake --build "$work" -j 16 --target fast_norm_capi sm_latency_probe ${VARIANTS_C:+fast_norm_bench} \
    >>"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
echo "built in $(( $(date +%s) - start )) s"
[ -n "${SKIP_PROBE:-}" ] || timeout 120 "$work/sm_latency_probe" >"$out/sm_latency_probe.jsonl" 2>&1
tail -n 3 "$out/sm_latency_probe.jsonl" 2>/dev/null
liger=()
[ -n "${LIGER:-}" ] && liger=(--liger "$LIGER")
if [ -n "${VARIANTS_C:-}" ]; then
  timeout 240 "$work/fast_norm_bench" --reps 20 --c "$VARIANTS_C" ${VARIANTS:+--variants "$VARIANTS"} \
    >"$out/fast_norm_variants.jsonl" 2>"$out/fast_norm_variants.err"
  echo "variants rc=$? ($(wc -l <"$out/fast_norm_variants.jsonl") records)"
fi
for pass in ${PASSES:-bwd fwd}; do
  rec=$( [ $pass = bwd ] && echo "${BWD_RECORD:-}" || echo "${FWD_RECORD:-}" )
  if [ -n "$rec" ] && [ -f "$rec" ]; then cp "$rec" "$out/torch_$pass.jsonl"; fi
  left=$(( deadline - ($(date +%s) - start) ))
  [ $pass = bwd ] && [ "${PASSES:-bwd fwd}" != bwd ] && left=$(( left < 200 ? left : 200 ))
  c=$( [ $pass = fwd ] && echo all || echo 768,2304,4096,8192 )
  echo "$pass: deadline $left s"
  PYTHONUNBUFFERED=1 timeout $(( left + 90 )) python3 "$lab/bench_torch.py" --pass $pass --c $c --reps 20 \
    --ours "$work/libfast_norm_capi.so" "${liger[@]}" --out "$out/torch_$pass.jsonl" --deadline-s "$left" \
    >/dev/null 2>"$out/torch_$pass.err"
  echo "$pass rc=$?"; tail -n 3 "$out/torch_$pass.err"
done
if [ -n "${PROFILE:-}" ]; then
  left=$(( deadline - ($(date +%s) - start) ))
  echo "profile: deadline $left s"
  METRICS=l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum \
    DEADLINE_S=$left bash "$here/scripts/run_profile.sh" "$out" >"$out/profile.log" 2>&1
  echo "profile: $(grep -c 'rc=0' "$out/profile.log") cases, $(grep -c skipped "$out/profile.log") skipped"
fi
echo "done in $(( $(date +%s) - start )) s"
