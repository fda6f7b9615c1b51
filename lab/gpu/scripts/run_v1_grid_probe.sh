#!/usr/bin/env bash
# Runs on the GPU machine: golden v1 (a thread a row, 4-byte loads and
# stores, rows HIDDEN x 4 bytes apart) and partial_store_probe (its stores
# alone) under ncu on one grid of thread counts and row lengths, one JSON
# line each into OUTDIR/v1_grid_probe.jsonl (DRAM bytes read and written,
# the L2's write sectors, duration). Golden v1 reads and writes 12-15% of
# its output more than whole sectors would at some shapes and not at others
# (docs/SIMT.md, Where it misses); the grid separates thread count from row
# distance, with and without v1's loads between the stores.
#   [THREADS="512 ..."] [HIDDENS="768 ..."] lab/gpu/scripts/run_v1_grid_probe.sh OUTDIR
set -uo pipefail
out=${1:?OUTDIR}
here=$(cd "$(dirname "$0")/../../../gpu_ref" && pwd)  # gpu_ref/
lab=$(cd "$(dirname "$0")" && pwd)
export NORMSIM_LAB=ON
work=$(mktemp -d)
mkdir -p "$out"
. "$here/scripts/build_gpu_ref.sh"
build_gpu_ref "$work/cmake.log" normref partial_store_probe
metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,gpu__time_duration.sum
: >"$out/v1_grid_probe.jsonl"
default_threads="512 1024 2048 4096 8192 16384 32768"
default_hiddens="768 2048 4096 8192"
threads_list=${THREADS:-$default_threads}
hiddens=${HIDDENS:-$default_hiddens}
for hidden in $hiddens; do
  for threads in $threads_list; do
    [ $((threads * hidden)) -le 134217728 ] || continue  # at most 2^27 values
    timeout 300 ncu --clock-control none --print-units base --csv --kernel-name regex:'ln_v1' --metrics "$metrics" \
      "$build/normref" --kernel v1 --rows "$threads" --hidden "$hidden" --dtype fp32 --block 256 --profile 2>&1 |
      python3 "$here/scripts/ncu_record.py" probe=v1 threads="$threads" hidden="$hidden" >>"$out/v1_grid_probe.jsonl"
    timeout 120 ncu --clock-control none --print-units base --csv --metrics "$metrics" \
      "$build/partial_store_probe" "$threads" "$hidden" 2>&1 |
      python3 "$here/scripts/ncu_record.py" probe=stores threads="$threads" hidden="$hidden" >>"$out/v1_grid_probe.jsonl"
  done
done
wc -l "$out/v1_grid_probe.jsonl"
