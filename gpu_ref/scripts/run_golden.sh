#!/usr/bin/env bash
# Runs on the GPU machine (nvcc, CMake, ncu; nothing else needed):
#   gpu_ref/scripts/run_golden.sh OUTDIR timing|ncu [ID-REGEX]
# timing: build, SASS facts (and ptxas -v's registers), every case through normref (JSON + .npy), packed
#         into OUTDIR/timing.tar.gz (+ OUTDIR/npy.tar.gz)
# ncu:    every case once under `ncu --clock-control none`, packed into OUTDIR/ncu.tar.gz
set -uo pipefail
out=${1:?OUTDIR}; what=${2:?timing|ncu}; filter=${3:-.}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
mkdir -p "$out" "$work/res" "$work/npy"

. "$here/scripts/build_gpu_ref.sh"
build_gpu_ref "$work/res/cmake.log"
bin=$build/normref

if [ "$what" = timing ]; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv \
    >"$work/res/nvidia_smi.csv" 2>&1
  nvcc --version >"$work/res/nvcc_version.txt" 2>&1
  cuobjdump -sass "$bin" >"$work/res/normref.sass" 2>&1
  python3 "$here/scripts/sass_facts.py" "$work/res/normref.sass" >"$work/res/sass_facts.json"
  # Registers per thread of every function, for tools/simt/sass_table.py.
  nvcc -O3 -lineinfo -arch=sm_90 -std=c++17 -I "$here" -I "$here/.." -Xptxas -v -c "$here/normref.cu" \
    -o "$work/ptxas.o" >"$work/res/ptxas.log" 2>&1
fi

# DEADLINE_S: stop starting cases after that many seconds (the rest are listed
# as 'skipped' and can be run by a later call with their IDs as the filter).
start=$(date +%s)
bash "$here/scripts/golden_cases.sh" | grep -E "$filter" | while read -r id args; do
  if [ -n "${DEADLINE_S:-}" ] && [ $(( $(date +%s) - start )) -gt "$DEADLINE_S" ]; then echo "$id skipped"; continue; fi
  npy=""
  case "$args" in *--npy*) args=${args/--npy/}; npy="--npy-dir $work/npy";; esac
  allow=""
  case "$id" in *cancellation*) allow="--allow-invalid";; esac
  if [ "$what" = timing ]; then
    timeout 120 $bin $args $npy $allow --json "$work/res/t_$id.json" 2>"$work/res/t_$id.err"
    echo "$id rc=$? $(head -c 300 "$work/res/t_$id.err" | tr '\n' ' ')"
  else
    timeout 300 ncu --clock-control none --print-units base --csv \
      --kernel-name regex:'ln_v|welford_warp|welford_block|block_reread|rms_|fast_norm|fused_residual|ln_backward|bwd_column_sum' \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg,launch__registers_per_thread \
      $bin $args --profile >"$work/res/n_$id.csv" 2>"$work/res/n_$id.err"
    echo "$id rc=$?"
  fi
done | tee "$work/res/${what}_log.txt"

tar -C "$work/res" -czf "$out/$what.tar.gz" .
[ "$what" = timing ] && tar -C "$work/npy" -czf "$out/npy.tar.gz" .
ls -la "$out"
