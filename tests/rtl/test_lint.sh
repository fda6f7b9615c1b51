#!/usr/bin/env bash
# Verilator's -Wall lint on rtl_models/ as it is built: the run --rtl
# pipeline at each variant's parameters and ROMs, and every co-simulation
# bench (each arch's formats). Every warning fails the test; a signal left
# unused on purpose says why beside its lint_off. Then the same lint on a copy
# of rtl_models/ with one planted unused signal must fail: the check can fail.
#   tests/rtl/test_lint.sh BUILD_DIR
set -uo pipefail
build=${1:?BUILD_DIR}
here=$(cd "$(dirname "$0")/../.." && pwd)

lint_all() {  # $1: the rtl_models folder to lint
  local models=$1 failed=0 n=0 d out
  for d in "$build"/rtl_pipeline_*/; do
    [ -f "$d/params.vc" ] || continue
    n=$((n + 1))
    out=$(verilator --lint-only -Wall -f "$d/params.vc" --top-module norm_row_pipeline "$d/roms.v" "$models"/*.v 2>&1) ||
      { echo "lint: $(basename "$d"):"; echo "$out" | grep -E '^%(Warning|Error)'; failed=1; }
  done
  for d in "$build"/tests/rtl_*/; do
    [ -f "$d/rtl_bench.v" ] || continue
    n=$((n + 1))
    out=$(verilator --lint-only -Wall --top-module rtl_bench "$d/rtl_bench.v" "$models"/*.v 2>&1) ||
      { echo "lint: $(basename "$d") bench:"; echo "$out" | grep -E '^%(Warning|Error)'; failed=1; }
  done
  # The whole unit's modules (rtl_models/unit/) and the testbench's
  # (rtl_models/tb/), each its own top over both folders.
  for d in "$models"/unit/*.v "$models"/tb/*.v; do
    [ -f "$d" ] || continue
    n=$((n + 1))
    out=$(verilator --lint-only -Wall --unroll-count 256 --top-module "$(basename "$d" .v)" "$models"/unit/*.v "$models"/tb/*.v 2>&1) ||
      { echo "lint: $(basename "$(dirname "$d")")/$(basename "$d"):"; echo "$out" | grep -E '^%(Warning|Error)'; failed=1; }
  done
  [ "$n" -gt 0 ] || { echo "lint: no verilated tops under $build (build first)"; return 2; }
  echo "lint: $n tops linted"
  return $failed
}

lint_all "$here/rtl_models" || exit 1
planted=$(mktemp -d)
trap 'rm -rf "$planted"' EXIT
cp "$here"/rtl_models/*.v "$planted/"
sed -i "s|^endmodule|  wire planted_leftover = 1'b0;\nendmodule|" "$planted/delay_line.v"
if lint_all "$planted" >/dev/null; then
  echo "lint: a planted unused signal in delay_line.v passed the lint"; exit 1
fi
echo "lint: rtl_models/ clean under -Wall; a planted unused signal is caught"
