#!/usr/bin/env bash
# `normsim run --rtl-full`: the verilated forward unit's control against the
# clocked SystemC model, every act edge for edge (docs/RTL.md, "The whole
# unit"). Usage: test_run_rtl_full.sh quick|full.
#
# quick (make test): every shipped forward workload on the default arch,
# 64 rows, on each input path -- SRAM replay, DRAM re-read, partial replay
# -- and a residual workload's sum made by a separate adder's pass and
# fused (residual, and residual with dropout); one on SRAM banks of two
# ports; three on shared merge units; one with --rtl beside it; report.csv's
# units. Each must agree, its account must add up (the DRAM bytes compared
# by kind are the run's traffic by kind), and the model's cycles
# must be a plain clocked run's. Designs the RTL does not carry yet exit 2
# with one line naming the key.
#
# full (label slow): the same at 32 rows on asic-fp32 and on a third
# design (two row buffers, a 333-cycle DRAM, 8 lanes, an SRAM of two banks
# of two ports and 3 cycles), and two workloads over every row (thousands:
# the fast-forward finds their steady state within the first 32, and the
# RTL must match every row past it).
set -u
N=${NORMSIM:?}; S=${NORMSIM_SOURCE_DIR:?}; MODE=${1:?quick or full}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
runs=0

# One comparison: name, then the run's arguments (rows included). With
# STALL=<cause> set, the model must have stalled on it (the case shows it).
compare() {
  local name=$1; shift
  if ! "$N" run "$@" --rtl-full --no-numerics --json -q > "$T/a.json" 2> "$T/err"; then
    echo "FAIL $name: $(cat "$T/err")"; fail=1; return
  fi
  "$N" run "$@" --set arch.asic.timing=cycle --no-fast-forward --no-numerics --json -q > "$T/b.json" ||
    { echo "FAIL $name: the plain clocked run"; fail=1; return; }
  /usr/bin/python3 - "$T/a.json" "$T/b.json" "$name" "${STALL:-}" <<'PY' || { fail=1; return; }
import json, sys
a, b, name, stall = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
r = a["rtl_full"]
rows = a["workload"]["rows"]
try:
    assert r["edge_exact"] and r["rows"] == rows, r
    assert r["acts_compared"] == sum(x["acts"] for x in r["by_act"]) > 0, r
    acts = {x["stream"]: x for x in r["by_act"]}
    # Every row is taken, normalised and its buffer handed back, on both sides.
    for s in ("free_row_buffers.read", "stats_to_normalize.write", "stats_to_normalize.read", "free_row_buffers.write"):
        assert acts[s]["acts"] == rows, (s, acts[s])
    path = a["path"]
    assert ("dram.input_reread" in acts) == (path != "sram-replay"), (path, sorted(acts))
    assert ("sram.read" in acts) == (path != "dram-reread"), (path, sorted(acts))
    # Every DRAM byte of the run was asked for by the same act at the same
    # edge on both sides; the SRAM's, its replay reads and row-buffer writes.
    assert r["dram_bytes_compared"] == sum(a["traffic"]["dram_bytes_by_kind"].values()) > 0, r["dram_bytes_compared"]
    assert r["dram_bytes_compared"] + r["sram_bytes_compared"] == sum(x["bytes"] for x in r["by_act"]), r
    for kind, n in a["traffic"]["dram_bytes_by_kind"].items():
        assert acts.get("dram." + kind, {"bytes": 0})["bytes"] == n, (kind, n, acts.get("dram." + kind))
    assert (r["sram_bytes_compared"] > 0) == (path != "dram-reread"), (path, r["sram_bytes_compared"])
    # The RTL ran past the model's last act.
    assert r["rtl_cycles"] >= max(x["last_cycle"] for x in r["by_act"]) + 1, r
    assert a["arch"]["asic"]["timing"] == "cycle"
    assert a["timing"]["cycles"] == b["timing"]["cycles"], (a["timing"]["cycles"], b["timing"]["cycles"])
    assert a["traffic"] == b["traffic"]
    if stall:
        assert a["timing"]["stall_cycles"][stall] > 0, ("no stall on", stall, a["timing"]["stall_cycles"])
except AssertionError as e:
    print(f"FAIL {name}: {e}")
    sys.exit(1)
print(f"ok {name}: {r['acts_compared']} acts over {r['rtl_cycles']} cycles")
PY
  runs=$((runs + 1))
}

# Where a residual workload's sum is made: a separate adder's pass (none),
# or fused (with dropout, only residual_dropout applies it).
fuse_modes() {
  if grep -q 'dropout' "$1"; then echo "none residual_dropout"; else echo "none residual residual_dropout"; fi
}

# Every forward workload on one arch, ROWS rows each (its name, then --set
# overrides for it).
matrix() {
  local arch=$1; shift
  local rows=${ROWS:-64}
  for w in "$S"/workloads/*.yaml; do
    grep -q '^pass: backward' "$w" && continue
    name=$(basename "$w" .yaml)
    set_rows="--set workload.rows=$rows"
    grep -q '^seq:' "$w" && set_rows="--set workload.batch=1 --set workload.seq=$rows"
    extra=""
    # A row of 65536 in transactions of 4096 (a window of 4096 bursts): the
    # RTL's 16 a row; on the re-read path (the SRAM holds no more).
    case "$name" in long-row) extra="--set arch.asic.transaction_elems=4096 --set arch.asic.dram.max_outstanding=4096 --set arch.asic.sram.capacity_bytes=1048576" ;; esac
    for p in sram-replay dram-reread partial-replay; do
      [ "$name" = long-row ] && [ "$p" != dram-reread ] && continue
      if grep -q '^residual:' "$w"; then
        for f in $(fuse_modes "$w"); do
          # shellcheck disable=SC2086
          compare "$arch $name $p fuse $f" "$w" --arch "$arch" $set_rows $extra "$@" --path "$p" --set arch.fuse.mode="$f"
        done
      else
        # shellcheck disable=SC2086
        compare "$arch $name $p" "$w" --arch "$arch" $set_rows $extra "$@" --path "$p"
      fi
    done
  done
}

if [ "$MODE" = quick ]; then
  matrix asic-default
  compare "asic-default llama2-7b partial-replay, two ports a bank" llama2-7b --set workload.rows=64 --path partial-replay \
    --set arch.asic.sram.ports=2
  # Shared merge units: one and two; and rows short enough (8 cycles) that
  # each waits for the one unit (24 cycles a row), holding the lanes.
  for u in 1 2; do
    compare "asic-default gpt2-small dram-reread, $u merge units" gpt2-small --set workload.batch=1 --set workload.seq=64 \
      --path dram-reread --set arch.merge.units=$u
  done
  STALL=merge_unit compare "asic-default gpt2-small x 128, rows waiting for 1 merge unit" gpt2-small --set workload.batch=1 \
    --set workload.seq=64 --set workload.hidden=128 --set arch.merge.units=1
  # With the row pipeline's values beside it: both checks in one run.
  if "$N" run llama2-7b --set workload.rows=16 --rtl --rtl-full --json -q > "$T/both.json" 2> "$T/err"; then
    /usr/bin/python3 -c "
import json, sys; a = json.load(open('$T/both.json'))
assert a['rtl']['rows_checked'] == 16 and a['rtl_full']['rows'] == 16, (a['rtl'], a['rtl_full']['rows'])" &&
      echo "ok --rtl with --rtl-full" || { echo "FAIL --rtl with --rtl-full"; fail=1; }
  else
    echo "FAIL --rtl with --rtl-full: $(cat "$T/err")"; fail=1
  fi
  # The report's CSV names each of rtl_full's numbers with its unit.
  if "$N" run llama2-7b --set workload.rows=8 --rtl-full --no-numerics --out "$T/out" -q > /dev/null 2> "$T/err"; then
    head -1 "$T/out/report.csv" | tr ',' '\n' | grep '^rtl_full\.' > "$T/cols"
    for c in "rtl_full.rows [rows]" "rtl_full.rtl_cycles [cycles]" "rtl_full.acts_compared [acts]" "rtl_full.rtl_seconds [s]"; do
      grep -qxF "$c" "$T/cols" || { echo "FAIL report.csv: no column '$c' in: $(tr '\n' ' ' < "$T/cols")"; fail=1; }
    done
    echo "ok report.csv: $(tr '\n' ' ' < "$T/cols")"
  else
    echo "FAIL --rtl-full --out: $(cat "$T/err")"; fail=1
  fi
  expect2() {  # description, command...
    local what=$1; shift
    "$@" -q > /dev/null 2> "$T/err"; local rc=$?
    if [ "$rc" != 2 ] || [ "$(wc -l < "$T/err")" != 1 ]; then echo "FAIL $what: exit $rc: $(cat "$T/err")"; fail=1; else echo "ok $what: $(cat "$T/err")"; fi
  }
  W="$S/workloads/gpt2-small.yaml"
  expect2 "--rtl-full on a backward" "$N" run llama2-7b-bwd --rtl-full
  expect2 "--rtl-full on more row buffers than the RTL's" "$N" run "$W" --rtl-full --set arch.asic.rows_in_flight=9
  expect2 "--rtl-full on more transactions a row than the RTL's" "$N" run llama2-7b --rtl-full --set arch.asic.transaction_elems=128
  expect2 "--rtl-full on many datapaths" "$N" run "$W" --rtl-full --arch gpu-block
  expect2 "--rtl-full without a timing model" "$N" run "$W" --rtl-full --arch fixed16
  grep -q "key 'asic'" "$T/err" || { echo "FAIL --rtl-full without a timing model: $(cat "$T/err")"; fail=1; }
else
  # 32 rows a run here (CI runs this label too, within its 40 minutes).
  ROWS=32 matrix asic-fp32
  ROWS=32 matrix asic-default --set arch.asic.rows_in_flight=2 --set arch.asic.dram.latency_ns=333 \
    --set arch.asic.sram.latency_cycles=3 --set arch.lanes=8 --set arch.asic.sram.ports=2 --set arch.asic.sram.banks=2
  for w in gpt2-small bert-large; do
    compare "asic-default $w, every row" "$w" --path partial-replay
  done
fi
echo "$runs runs compared"
[ "$runs" -gt 0 ] || fail=1
exit $fail
