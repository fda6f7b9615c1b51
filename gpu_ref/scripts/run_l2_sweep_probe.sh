#!/usr/bin/env bash
# Runs on the GPU machine: l2_sweep_probe under ncu for every hint variant
# and buffer size, one JSON line each (DRAM bytes read and written, L2 read
# sector hits and misses, duration): the two sweeps into
# OUTDIR/l2_sweep_probe.jsonl, rows out of phase (steady) into
# OUTDIR/l2_steady_probe.jsonl.
#   [PARTS="sweeps steady"] [VARIANTS=...] [SIZES=...] [ORDERS=...] [BLOCKS="0 4 32"] gpu_ref/scripts/run_l2_sweep_probe.sh OUTDIR
# (BLOCKS: the sweeps' grid caps, 0 = every resident block; the record's
# "grid" says how many ran)
set -uo pipefail
out=${1:?OUTDIR}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
mkdir -p "$out"
. "$here/scripts/build_gpu_ref.sh"
build_gpu_ref "$work/cmake.log" l2_sweep_probe
bin=$build/l2_sweep_probe
metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,gpu__time_duration.sum
variants=${VARIANTS:-"plain:none:none plain:plain:none plain:plain:cs nc:nc:none nc:nc:cs plain:cs:none plain:cs:cs plain:cs:plain plain:plain:plain"}
sizes=${SIZES:-"24 28 32 36 40 44 48 56 64 80 96 128 160"}
parts=" ${PARTS:-sweeps steady} "
if [[ $parts == *" sweeps "* ]]; then
: >"$out/l2_sweep_probe.jsonl"
for order in ${ORDERS:-linear rows}; do
  for v in $variants; do
    IFS=: read -r p1 p2 st <<<"$v"
    for mb in $sizes; do for blocks in ${BLOCKS:-0}; do
      timeout 120 ncu --clock-control none --print-units base --csv --metrics "$metrics" "$bin" "$p1" "$p2" "$st" "$mb" "$order" "$blocks" 2>&1 |
        python3 "$here/scripts/ncu_record.py" p1="$p1" p2="$p2" store="$st" order="$order" mb="$mb" >>"$out/l2_sweep_probe.jsonl"
    done; done
  done
done
fi
# Rows out of phase: 512 MB of rows, 1056 warps (one block of 8 an SM) or
# 6336 (six: all that fit at once) a row each, or 792 blocks of 256 a row
# each, rows sized for 6-138 MB of x in flight.
if [[ $parts == *" steady "* ]]; then
: >"$out/l2_steady_probe.jsonl"
steady_variants=${STEADY_VARIANTS:-"plain:plain:cs plain:cs:cs plain:cs:plain plain:plain:plain"}
# WARPS:ROW_KB[:block] -- a row a warp, or (block) a row a 256-thread block
steady_shapes=${STEADY_SHAPES:-"1056:8 1056:16 1056:24 1056:32 1056:40 1056:48 1056:64 1056:96 1056:128
  6336:1 6336:2 6336:3 6336:4 6336:5 6336:6 6336:8 6336:12 6336:16
  6336:8:block 6336:16:block 6336:24:block 6336:32:block 6336:40:block 6336:48:block 6336:64:block 6336:96:block 6336:128:block"}
for v in $steady_variants; do
  IFS=: read -r p1 p2 st <<<"$v"
  for shape in $steady_shapes; do
    IFS=: read -r warps kb rowt <<<"$shape"
    timeout 120 ncu --clock-control none --print-units base --csv --metrics "$metrics" "$bin" "$p1" "$p2" "$st" 512 steady "$kb" "$warps" "${rowt:-warp}" 2>&1 |
      python3 "$here/scripts/ncu_record.py" p1="$p1" p2="$p2" store="$st" order=steady mb=512 >>"$out/l2_steady_probe.jsonl"
  done
done
fi
wc -l "$out"/*.jsonl
