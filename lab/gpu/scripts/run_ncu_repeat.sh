#!/usr/bin/env bash
# Runs on the GPU machine: golden cases under ncu several times each (the
# caches flushed before every kernel, as run_golden.sh does), one JSON line
# per case and repetition -- DRAM bytes, the L2's read lookups, duration --
# so that the spread of the counters from run to run can be set against the
# SIMT model's errors (docs/SIMT.md, Fidelity).
#   [REPEATS=3] lab/gpu/scripts/run_ncu_repeat.sh OUTDIR ID-REGEX
set -uo pipefail
out=${1:?OUTDIR}; filter=${2:?ID-REGEX}; repeats=${REPEATS:-3}
here=$(cd "$(dirname "$0")/../../../gpu_ref" && pwd)  # gpu_ref/
lab=$(cd "$(dirname "$0")" && pwd)
export NORMSIM_LAB=ON
work=$(mktemp -d)
mkdir -p "$out"
. "$here/scripts/build_gpu_ref.sh"
build_gpu_ref "$work/cmake.log" normref
bin=$build/normref
metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,gpu__time_duration.sum
cat >"$work/to_json.py" <<'PY'
import csv, json, sys
case_id, rep = sys.argv[1], int(sys.argv[2])
rows = [l for l in sys.stdin.read().splitlines() if l.startswith('"')]
rec = {"id": case_id, "rep": rep}
for r in csv.DictReader(rows):  # summed over the case's launches
    rec[r["Metric Name"]] = rec.get(r["Metric Name"], 0.0) + float(r["Metric Value"].replace(",", ""))
print(json.dumps(rec))
PY
: >"$out/ncu_repeat.jsonl"
bash "$here/scripts/golden_cases.sh" | grep -E "$filter" | while read -r id args; do
  args=$(sed -E 's/ --npy-max-elements [0-9]+//; s/ --npy//' <<<"$args")  # counters only
  case "$id" in *cancellation*) args="$args --allow-invalid";; esac
  for rep in $(seq 1 "$repeats"); do
    timeout 300 ncu --clock-control none --print-units base --csv \
      --kernel-name regex:'ln_v|welford_warp|welford_block|block_reread|rms_|fast_norm|fused_residual|ln_backward|bwd_column_sum' \
      --metrics "$metrics" $bin $args --profile 2>"$work/err" | python3 "$work/to_json.py" "$id" "$rep" >>"$out/ncu_repeat.jsonl"
  done
  echo "$id done"
done
wc -l "$out/ncu_repeat.jsonl"
