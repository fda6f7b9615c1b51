#!/usr/bin/env bash
# `normsim run --rtl` on every shipped workload (8 rows each, at the embedded
# default arch the RTL is built for), and two on one shared merge unit:
# every row's statistics and outputs
# bit-exact against the verilated pipeline, its latencies the model's, and
# the model's cycles and outputs unchanged by the lock step. Bad uses exit 2.
set -u
N=${NORMSIM:?}; S=${NORMSIM_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
for w in "$S"/workloads/*.yaml "$S"/workloads/gpt2-small.yaml:shared "$S"/workloads/long-row.yaml:shared; do
  shared=""
  case "$w" in *:shared) w=${w%:shared}; shared="--set arch.merge.units=1" ;; esac
  name=$(basename "$w" .yaml)${shared:+-shared}
  set_rows="--set workload.rows=8"
  grep -q '^seq:' "$w" && set_rows="--set workload.batch=1 --set workload.seq=8"
  path=""
  case "$name" in long-row*) path="--path dram-reread" ;; esac
  # The backward has no RTL pipeline yet: --rtl is refused, exit 2 with one line.
  if grep -q '^pass: backward' "$w"; then
    # shellcheck disable=SC2086
    "$N" run "$w" $set_rows --rtl --json -q > /dev/null 2> "$T/err"; rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] || { echo "FAIL $name: run --rtl of a backward: rc $rc, $(cat "$T/err")"; fail=1; }
    continue
  fi
  # shellcheck disable=SC2086
  if ! "$N" run "$w" $set_rows $path $shared --rtl --json -q --out "$T/$name-rtl" --save-outputs > "$T/$name-rtl.json" 2> "$T/err"; then
    echo "FAIL $name: run --rtl: $(cat "$T/err")"; fail=1; continue
  fi
  # shellcheck disable=SC2086
  "$N" run "$w" $set_rows $path $shared --json -q --out "$T/$name" --save-outputs > "$T/$name.json" || { echo "FAIL $name: run"; fail=1; continue; }
  /usr/bin/python3 - "$T/$name-rtl.json" "$T/$name.json" "$T/$name-rtl" "$T/$name" <<'PY' || { echo "FAIL $name"; fail=1; }
import json, sys, filecmp
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
r = a["rtl"]
assert r["rows_checked"] == a["workload"]["rows"] == 8, r
assert r["bit_exact"] and r["stats_latency_cycles"] == r["model_stats_latency_cycles"], r
assert r["normalize_latency_cycles"] == r["model_normalize_latency_cycles"], r
assert r["rtl_cycles"] > 0
assert a["timing"]["cycles"] == b["timing"]["cycles"], (a["timing"]["cycles"], b["timing"]["cycles"])
import os
rms = a["workload"]["norm"] == "rmsnorm"
for f in ("y.npy", "rstd.npy") + (() if rms else ("mean.npy",)):
    assert filecmp.cmp(f"{sys.argv[3]}/{f}", f"{sys.argv[4]}/{f}", shallow=False), f
assert os.path.exists(f"{sys.argv[3]}/mean.npy") == (not rms), "mean.npy is LayerNorm's only"
PY
  echo "ok $name"
done
expect2() {  # description, command...
  local what=$1; shift
  "$@" -q > /dev/null 2> "$T/err"; local rc=$?
  if [ "$rc" != 2 ] || [ "$(wc -l < "$T/err")" != 1 ]; then echo "FAIL $what: exit $rc: $(cat "$T/err")"; fail=1; else echo "ok $what: $(cat "$T/err")"; fi
}
W="$S/workloads/gpt2-small.yaml"
expect2 "--rtl with --no-numerics" "$N" run "$W" --rtl --no-numerics
expect2 "--rtl on an fp32 arch" "$N" run "$W" --arch "$S/workloads/arch/asic-fp32.yaml" --rtl
expect2 "--rtl on other formats" "$N" run "$W" --rtl --set arch.formats.mean.bits=30
grep -q "(allowed: the built arch's value, or a normsim verilated at this arch: cmake -S .* -DNORMSIM_RTL_ARCH=.* && cmake --build .* --target normsim, then .*/normsim run --rtl)" "$T/err" ||
  { echo "FAIL --rtl on other formats: no rebuild command in: $(cat "$T/err")"; fail=1; }
expect2 "--rtl without a timing model" "$N" run "$W" --arch "$S/workloads/arch/fixed16.yaml" --rtl
expect2 "--rtl on merge units the RTL was not built with" "$N" run "$W" --rtl --set arch.merge.units=2
expect2 "--rtl with a latency below the pipeline's" "$N" run "$W" --rtl --set arch.asic.rsqrt.latency_cycles=3
exit $fail
