#!/usr/bin/env bash
# Prints the golden cases, one per line: "ID ARGS...". Sourced by run_golden.sh.
shapes="8192x768 32768x4096 4096x8192 1024x65536 1024x4096 8192x1000"
fp32_kernels="v1 v2 v3 v4 v5 v6 welford_warp_reg welford_block_smem block_reread rms_warp rms_block"
bf16_kernels="v5 v6 welford_block_smem rms_warp rms_block"
for s in $shapes; do
  r=${s%x*}; h=${s#*x}
  for k in $fp32_kernels; do echo "${k}_fp32_${s}_b256 --kernel $k --rows $r --hidden $h --dtype fp32"; done
  for k in $bf16_kernels; do echo "${k}_bf16_${s}_b256 --kernel $k --rows $r --hidden $h --dtype bf16"; done
done
# Block size changes the picture for the ladder.
for k in v1 v2 v3 v4 v5 v6; do
  for b in 32 64 128 512 1024; do echo "${k}_fp32_32768x4096_b${b} --kernel $k --rows 32768 --hidden 4096 --block $b"; done
done
# The L2 transition: re-reading kernels whose rows in flight hold 26-69 MB
# of x (the L2 is 60 MiB), block-per-row over several rounds and
# warp-per-row in one wave or several, where the SIMT model's reuse curves
# are least pinned down (docs/SIMT.md, Fidelity).
for s in 8192x6144 8192x10240 8192x12288 16384x8192; do
  r=${s%x*}; h=${s#*x}
  for k in v5 block_reread rms_block; do echo "${k}_fp32_${s}_b256 --kernel $k --rows $r --hidden $h --dtype fp32"; done
done
for s in 2048x8192 6144x2048 8192x1280 32768x1024 32768x2048; do
  r=${s%x*}; h=${s#*x}
  for k in v3 v4 rms_warp; do echo "${k}_fp32_${s}_b256 --kernel $k --rows $r --hidden $h --dtype fp32"; done
done
# Small cases with outputs kept, for bit-exact emulation.
for k in $fp32_kernels; do echo "${k}_fp32_256x768_b256 --kernel $k --rows 256 --hidden 768 --dtype fp32 --npy"; done
for k in $bf16_kernels; do echo "${k}_bf16_256x768_b256 --kernel $k --rows 256 --hidden 768 --dtype bf16 --npy"; done
# Seed 001 section 5: mean 1e4, sigma 1; single pass fails, Welford holds.
for k in v3 v4 v5 welford_warp_reg welford_block_smem; do
  echo "${k}_fp32_256x768_b256_cancellation --kernel $k --rows 256 --hidden 768 --dist cancellation --npy"
  echo "${k}_fp32_8192x768_b256_cancellation --kernel $k --rows 8192 --hidden 768 --dist cancellation"
done
# The frontier kernels (issue: fast_ln/fast_rms at the roofline, Post-Norm
# fusion, the backward): block and shape picked from hidden (host/fast_shape.hpp).
for s in $shapes 131072x1024 8192x16384; do
  r=${s%x*}; h=${s#*x}
  # The first rows' outputs too, for the emulation: 4 rows at C = 65536 (the
  # streamed cluster), 65536 values' worth of rows at every other C (each
  # width takes its own threads and vectors a thread: host/fast_shape.hpp).
  npy=" --npy --npy-max-elements 65536"; [ "$h" = 65536 ] && npy=" --npy --npy-max-elements 262144"
  for k in fast_ln fast_rms; do for d in fp32 bf16; do echo "${k}_${d}_${s} --kernel $k --rows $r --hidden $h --dtype $d$npy"; done; done
done
# bf16 rows a 1024-thread register block would hold thinly: the streamed
# cluster of one (host/fast_shape.hpp), two row lengths each, with outputs.
for c in fast_ln:4096x20480 fast_ln:2048x17408 fast_rms:4096x17408 fast_rms:2048x19456; do
  k=${c%:*}; s=${c#*:}; r=${s%x*}; h=${s#*x}
  echo "${k}_bf16_${s} --kernel $k --rows $r --hidden $h --dtype bf16 --npy --npy-max-elements 131072"
done
for s in 8192x768 32768x4096 4096x8192 1024x4096; do
  r=${s%x*}; h=${s#*x}
  for k in fused_residual bwd_atomic bwd_twolevel; do for d in fp32 bf16; do
    # The backward at two more shapes with outputs (dx's first rows, dgamma and
    # dbeta whole): more rows a block and more warps a row than 256 x 768.
    npy=""; case "$k:$s" in bwd_*:1024x4096 | bwd_*:4096x8192) npy=" --npy --npy-max-elements 65536";; esac
    echo "${k}_${d}_${s} --kernel $k --rows $r --hidden $h --dtype $d$npy"
  done; done
done
for k in fast_ln fast_rms fused_residual bwd_atomic bwd_twolevel; do for d in fp32 bf16; do
  echo "${k}_${d}_256x768 --kernel $k --rows 256 --hidden 768 --dtype $d --npy"
done; done
# Post-Norm with dropout on the branch (p = 0.1, normref's default): the
# shapes of fused_residual, and small cases with outputs kept for the
# bit-exact check against the ASIC model with the same mask.
for s in 8192x768 32768x4096 4096x8192 1024x4096; do
  r=${s%x*}; h=${s#*x}
  for d in fp32 bf16; do echo "fused_residual_dropout_${d}_${s} --kernel fused_residual_dropout --rows $r --hidden $h --dtype $d"; done
done
for d in fp32 bf16; do
  echo "fused_residual_dropout_${d}_256x768 --kernel fused_residual_dropout --rows 256 --hidden 768 --dtype $d --npy"
done
