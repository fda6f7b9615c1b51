#!/usr/bin/env bash
# normref refuses bad arguments with exit 2 and one line, before touching the GPU.
set -uo pipefail
bin=${1:?normref}
fails=0; passes=0
check() {  # PATTERN ARGS...
  local pat=$1; shift
  "$bin" "$@" >/dev/null 2>"${TMPDIR:-/tmp}/normref_err.$$"; local rc=$?
  if [ $rc = 2 ] && [ "$(wc -l <"${TMPDIR:-/tmp}/normref_err.$$")" = 1 ] && grep -q -- "$pat" "${TMPDIR:-/tmp}/normref_err.$$"; then
    passes=$((passes+1))
  else
    echo "FAIL: normref $* -> rc=$rc: $(cat "${TMPDIR:-/tmp}/normref_err.$$")"; fails=$((fails+1))
  fi
}
check "unknown kernel 'v9'" --kernel v9 --rows 8 --hidden 8
check "--rows: must be" --kernel v1 --rows 0 --hidden 8
check "on-chip scheme" --kernel welford_warp_reg --rows 8 --hidden 8192
check "on-chip scheme" --kernel welford_block_smem --rows 8 --hidden 65536
check "no bf16 variant" --kernel v3 --rows 8 --hidden 8 --dtype bf16
check "multiple of 8" --kernel v6 --rows 8 --hidden 1001
check "unknown option" --kernel v1 --rows 8 --hidden 8 --frobnicate 1
check "--dropout: expected a drop probability in \[0, 1)" --kernel fused_residual_dropout --rows 8 --hidden 8 --dropout 1
check "fast_ln has no dropout" --kernel fast_ln --rows 8 --hidden 8 --dropout 0.1
# latency_probe checks its arguments before touching the GPU too.
probe=$(dirname "$bin")/latency_probe
if [ -x "$probe" ]; then
  bin=$probe
  check "unknown option" --frobnicate 1
  check "sizes-kib: 0 out of range" --sizes-kib 16,0
  check "steps: must be >= 1" --steps 0
fi
rm -f "${TMPDIR:-/tmp}/normref_err.$$"
echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
