#!/usr/bin/env bash
# Runs on the GPU machine: partial_store_probe under ncu (v1's store
# pattern alone: each thread its own row of 4-byte stores) for several
# thread counts and row lengths, one JSON line each (DRAM bytes read and
# written, L2 write sectors, duration) into OUTDIR/partial_store_probe.jsonl.
#   [SHAPES="THREADS:HIDDEN ..."] lab/gpu/scripts/run_partial_store_probe.sh OUTDIR
set -uo pipefail
out=${1:?OUTDIR}
here=$(cd "$(dirname "$0")/../../../gpu_ref" && pwd)  # gpu_ref/
lab=$(cd "$(dirname "$0")" && pwd)
export NORMSIM_LAB=ON
work=$(mktemp -d)
mkdir -p "$out"
. "$here/scripts/build_gpu_ref.sh"
build_gpu_ref "$work/cmake.log" partial_store_probe
bin=$build/partial_store_probe
metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,gpu__time_duration.sum
: >"$out/partial_store_probe.jsonl"
shapes=${SHAPES:-"8192:256 8192:768 8192:1000 8192:2048 8192:4096 8192:8192 8192:16384 32768:768 32768:2048 32768:4096 32768:8192 1024:4096 1024:65536 4096:8192"}
for shape in $shapes; do
  IFS=: read -r threads hidden <<<"$shape"
  timeout 120 ncu --clock-control none --print-units base --csv --metrics "$metrics" "$bin" "$threads" "$hidden" 2>&1 |
    python3 "$here/scripts/ncu_record.py" threads="$threads" hidden="$hidden" >>"$out/partial_store_probe.jsonl"
done
wc -l "$out/partial_store_probe.jsonl"
