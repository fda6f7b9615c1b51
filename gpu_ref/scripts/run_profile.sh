#!/usr/bin/env bash
# Runs on the GPU machine: every golden case once under ncu with the metrics
# that explain a kernel's duration -- executed instructions, warp latency per
# instruction, issue activity, achieved occupancy, L1 and L2 throughput, the
# stall reasons (Warp State Statistics) and local-memory (spill) sectors --
# one CSV per case, packed into OUTDIR/profile.tar.gz
# (build_profile.py PROFILE_DIR golden/h200/ncu_profile.json --merge adds them).
#   gpu_ref/scripts/run_profile.sh OUTDIR [ID-REGEX]
# METRICS=a,b,c replaces the metric list (e.g. the L2 hit counters).
# RECORDED=golden/h200/ncu_profile.json skips the cases that file holds with
# every metric of the list (a rerun after a deadline or a lost machine goes on
# where the last stopped); DEADLINE_S stops starting cases after that many seconds.
set -uo pipefail
out=${1:?OUTDIR}; filter=${2:-.}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
mkdir -p "$out" "$work/res"
. "$here/scripts/build_gpu_ref.sh"
build_gpu_ref "$work/cmake.log" normref
bin=$build/normref
stalls=""
for s in long_scoreboard short_scoreboard barrier mio_throttle lg_throttle wait math_pipe_throttle not_selected \
         selected drain membar no_instruction dispatch_stall branch_resolving imc_miss tex_throttle sleeping; do
  stalls="$stalls,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
metrics="gpu__time_duration.sum,smsp__inst_executed.sum,smsp__average_warp_latency_per_inst_issued.ratio"
metrics="$metrics,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active"
metrics="$metrics,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed"
metrics="$metrics,dram__throughput.avg.pct_of_peak_sustained_elapsed$stalls"
metrics="$metrics,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"
metrics=${METRICS:-$metrics}
# The ids RECORDED already holds with every metric (build_profile.py keys them
# by ncu's names, the duration and instruction sums renamed).
recorded=""
if [ -n "${RECORDED:-}" ] && [ -f "$RECORDED" ]; then
  recorded=$(python3 - "$RECORDED" "$metrics" <<'PY'
import json, sys
have = json.load(open(sys.argv[1]))
want = {{"gpu__time_duration.sum": "duration_ns", "smsp__inst_executed.sum": "inst_executed"}.get(m, m)
        for m in sys.argv[2].split(",")}
print(" ".join(sorted(k for k, v in have.items() if want <= set(v))))
PY
)
fi
start=$(date +%s)
bash "$here/scripts/golden_cases.sh" | grep -E "$filter" | while read -r id args; do
  case " $recorded " in *" $id "*) echo "$id recorded"; continue;; esac
  if [ -n "${DEADLINE_S:-}" ] && [ $(( $(date +%s) - start )) -gt "$DEADLINE_S" ]; then echo "$id skipped"; continue; fi
  args=${args/--npy/}
  allow=""
  case "$id" in *cancellation*) allow="--allow-invalid";; esac
  timeout 300 ncu --clock-control none --print-units base --csv \
    --kernel-name regex:'ln_v|welford_warp|welford_block|block_reread|rms_|fast_norm|fused_residual|ln_backward|bwd_column_sum' --metrics "$metrics" \
    "$bin" $args $allow --profile >"$work/res/p_$id.csv" 2>&1
  echo "$id rc=$?"
done
tar czf "$out/profile.tar.gz" -C "$work/res" .
