#!/usr/bin/env bash
# Every gpu_ref kernel validates on a small problem (fp32 and bf16), and the
# harness refuses what a kernel cannot do. Skipped (77) without a GPU.
set -uo pipefail
bin=${1:?normref}
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
fails=0
for k in v1 v2 v3 v4 v5 v6 welford_warp_reg welford_block_smem block_reread rms_warp rms_block; do
  "$bin" --kernel "$k" --rows 64 --hidden 1000 --reps 2 --warmup 1 --json /dev/null || { echo "FAIL $k fp32"; fails=$((fails+1)); }
done
for k in v5 v6 welford_block_smem rms_warp rms_block; do
  "$bin" --kernel "$k" --rows 64 --hidden 1024 --dtype bf16 --reps 2 --warmup 1 --json /dev/null || { echo "FAIL $k bf16"; fails=$((fails+1)); }
done
"$bin" --kernel welford_warp_reg --rows 1 --hidden 8192 2>/dev/null; [ $? = 2 ] || { echo "FAIL: oversize not refused"; fails=$((fails+1)); }
echo "$((16 - fails)) passed, $fails failed"
[ "$fails" = 0 ]
