#!/usr/bin/env bash
# Runs on the GPU machine: reread_l1_probe under ncu for v3 and v4 at the
# golden one-wave and several-round shapes, the L1 cached, bypassed two ways
# (bypass: .L1::no_allocate; cg: ld.global.cg), the control for the last
# pass's hint (policy), or built as the golden kernels are with 1-16 loads
# in flight (plainU), one JSON line each (DRAM bytes read and written, L2
# read sector hits and misses, L1 global load sectors and hits, duration)
# into OUTDIR/reread_l1_probe.jsonl, and the probe's SASS loads into
# OUTDIR/reread_l1_probe.sass.txt.
#   [SHAPES="ROWS:HIDDEN ..."] [MODES="cached policy bypass cg plain1 ... plain16"] lab/gpu/scripts/run_reread_l1_probe.sh OUTDIR
set -uo pipefail
out=${1:?OUTDIR}
here=$(cd "$(dirname "$0")/../../../gpu_ref" && pwd)  # gpu_ref/
lab=$(cd "$(dirname "$0")" && pwd)
export NORMSIM_LAB=ON
work=$(mktemp -d)
mkdir -p "$out"
. "$here/scripts/build_gpu_ref.sh"
build_gpu_ref "$work/cmake.log" reread_l1_probe
bin=$build/reread_l1_probe
cuobjdump -sass "$bin" 2>/dev/null | grep -E "Function|LDG|STG" >"$out/reread_l1_probe.sass.txt"
metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,gpu__time_duration.sum
: >"$out/reread_l1_probe.jsonl"
shapes=${SHAPES:-"8192:768 8192:1000 8192:1280 6144:2048 2048:8192 4096:8192 32768:1024 32768:2048"}
modes=${MODES:-"cached policy bypass cg plain1 plain2 plain4 plain8 plain16"}
for shape in $shapes; do
  IFS=: read -r rows hidden <<<"$shape"
  for kernel in v3 v4; do
    for mode in $modes; do
      timeout 120 ncu --clock-control none --print-units base --csv --metrics "$metrics" "$bin" "$kernel" "$mode" "$rows" "$hidden" 2>&1 |
        python3 "$here/scripts/ncu_record.py" kernel="$kernel" l1="$mode" rows="$rows" hidden="$hidden" >>"$out/reread_l1_probe.jsonl"
    done
  done
done
wc -l "$out/reread_l1_probe.jsonl"
