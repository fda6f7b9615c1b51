#!/usr/bin/env bash
# Runs on the GPU machine: re-reading golden kernels under ncu at the same
# rows in flight and growing numbers of rounds (rows = slots x K), one JSON
# line each (DRAM bytes, the L2's read lookups, duration) into
# OUTDIR/rounds_probe.jsonl. The golden set has block_reread at 3.9 and 15.5
# rounds of the same 34.6 MB in flight (re-reading 44% and 65% of x from
# DRAM); this maps how the re-read's misses grow from the first round, which
# starts in lock step, to the out-of-phase steady state (docs/SIMT.md).
#   [ROUNDS="1 2 ..."] lab/gpu/scripts/run_rounds_probe.sh OUTDIR
set -uo pipefail
out=${1:?OUTDIR}
here=$(cd "$(dirname "$0")/../../../gpu_ref" && pwd)  # gpu_ref/
lab=$(cd "$(dirname "$0")" && pwd)
export NORMSIM_LAB=ON
work=$(mktemp -d)
mkdir -p "$out"
. "$here/scripts/build_gpu_ref.sh"
build_gpu_ref "$work/cmake.log" normref
bin=$build/normref
metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,gpu__time_duration.sum
: >"$out/rounds_probe.jsonl"
# KERNELS:HIDDEN:SLOTS -- block-per-row kernels hold 1056 rows (8 blocks of
# 256 threads an SM), warp-per-row ones 8448 (64 warps an SM).
groups="v5,block_reread,rms_block:8192:1056 v5,block_reread,rms_block:6144:1056 v3,v4,rms_warp:1024:8448 v3,v4,rms_warp:2048:8448"
default_rounds="1 2 3 4 6 8 12 16"
rounds=${ROUNDS:-$default_rounds}
for group in $groups; do
  IFS=: read -r kernels hidden slots <<<"$group"
  for k in ${kernels//,/ }; do
    for K in $rounds; do
      rows=$((slots * K))
      # at most 0.55 GB of x: the golden set's largest
      [ $((rows * hidden * 4)) -le 553648128 ] || continue
      timeout 300 ncu --clock-control none --print-units base --csv \
        --kernel-name regex:'ln_v|block_reread|rms_' --metrics "$metrics" \
        "$bin" --kernel "$k" --rows "$rows" --hidden "$hidden" --dtype fp32 --block 256 --profile 2>&1 |
        python3 "$here/scripts/ncu_record.py" kernel="$k" rows="$rows" hidden="$hidden" slots="$slots" rounds="$K" \
          >>"$out/rounds_probe.jsonl"
    done
  done
done
wc -l "$out/rounds_probe.jsonl"
