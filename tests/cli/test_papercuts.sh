#!/usr/bin/env bash
# What a new user hits first (issue-style papercuts): each check fails on the
# behaviour it replaced.
set -uo pipefail
source "$(dirname "$0")/cli_lib.sh"

# --set errors name the --set, not the file it overrides.
expect_exit 2 "^normsim: --set workload.hidden=abc: key 'hidden': expected an integer" -- run --set workload.hidden=abc -q
expect_exit 2 "^normsim: --set workload.foo=1: key 'foo': unknown key" -- run --set workload.foo=1 -q
expect_exit 2 "^normsim: --set arch.formats.output.frac=99: key 'formats.output.frac'" -- run --set arch.formats.output.frac=99 -q
# rows replaces batch x seq, and batch replaces rows (the other of batch/seq must then be given).
expect_exit 0 "" -- run --set workload.rows=16 --no-numerics -q
printf 'norm: layernorm\nrows: 4\nhidden: 8\n' >"$T/rows.yaml"
expect_exit 0 "" -- run "$T/rows.yaml" --set workload.batch=2 --set workload.seq=3 --no-numerics -q
expect_exit 2 "^normsim: --set workload.batch=2: key 'batch': given without seq" -- run "$T/rows.yaml" --set workload.batch=2 -q
"$N" run "$T/rows.yaml" --set workload.batch=2 --set workload.seq=3 --no-numerics --json -q >"$T/o.json" 2>/dev/null
grep -q '"rows":6' "$T/o.json" && ok || bad "batch 2 x seq 3 over rows: 4 is not 6 rows"

# Shipped configs by name, from any directory; the lists come from the registries.
(cd "$T" && "$N" run --arch asic-fp32 llama3-70b --set workload.rows=64 --no-numerics -q >/dev/null) && ok || bad "run --arch asic-fp32 llama3-70b from another directory"
(cd "$T" && "$N" sweep --study llama3-70b-buffers --set workload.rows=8 -q --json >"$T/sw.json") && ok || bad "sweep --study llama3-70b-buffers from another directory"
expect_exit 2 "^normsim: --gpu: 'h100' is neither a shipped gpu nor a file (allowed: h200" -- simt --gpu h100 --kernel v1 --rows 4 --hidden 64
expect_exit 2 "^normsim: --arch: 'h100' is neither a shipped arch nor a file (allowed: asic-default, " -- run --arch h100
expect_exit 2 "nope.yaml: no such file" -- run --arch "$T/nope.yaml"
expect_exit 2 "^normsim: list: unknown list 'foo' (allowed: workloads, archs, gpus, studies, kernels, rsqrt-units)" -- list foo
"$N" list --json >"$T/list.json" || bad "list --json"
for kind in workloads archs gpus studies kernels; do
  names=$(python3 -c "import json,sys; print(' '.join(r['name'] for r in json.load(open(sys.argv[1]))[sys.argv[2]]))" "$T/list.json" $kind)
  [ -n "$names" ] || bad "list: no $kind"
  case $kind in
    workloads) for n in $names; do "$N" run "$n" --set workload.rows=2 --path dram-reread -q >/dev/null 2>"$T/err" && ok || bad "run $n: $(cat "$T/err")"; done
               help=$("$N" run --help); for n in $names; do grep -q -- "$n" <<<"$help" && ok || bad "run --help lacks workload $n"; done ;;
    archs)     for n in $names; do "$N" run --arch "$n" --set workload.rows=2 -q >/dev/null 2>"$T/err" && ok || bad "run --arch $n: $(cat "$T/err")"; done ;;
    gpus)      for n in $names; do "$N" simt --gpu "$n" --kernel v1 --rows 4 --hidden 64 >/dev/null 2>"$T/err" && ok || bad "simt --gpu $n: $(cat "$T/err")"; done ;;
    kernels)   help=$("$N" simt --help); [ "$(wc -w <<<"$names")" = "$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['kernels']))" "$T/list.json")" ] || bad "kernels"
               for n in $names; do grep -q -- "$n" <<<"$help" && ok || bad "simt --help lacks kernel $n"; done ;;
  esac
done
# Every shipped file is listed (the registry is the tree).
[ "$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sum(len(j[k]) for k in ('workloads','archs','gpus','studies')))" "$T/list.json")" = \
  "$(ls "$S"/workloads/*.yaml "$S"/workloads/arch/*.yaml "$S"/workloads/studies/*.yaml | wc -l)" ] && ok || bad "list misses a shipped file"

# report.csv: each column's unit is the figure's (bytes per cycle, not cycles).
"$N" run --set workload.rows=8 --out "$T/csv" -q >/dev/null || bad "run --out"
head -1 "$T/csv/report.csv" | tr ',' '\n' >"$T/cols"
grep -qx "arch.asic.dram.peak_bytes_per_s \[bytes/s\]" "$T/cols" && grep -qx "arch.asic.dram.peak_bytes_per_cycle \[bytes/cycle\]" "$T/cols" && grep -qx "arch.asic.dram.sustained_bytes_per_cycle \[bytes/cycle\]" "$T/cols" &&
  ! grep -q "bytes_per_cycle \[cycles\]" "$T/cols" && ok || bad "report.csv: bytes_per_cycle columns not labelled [bytes/cycle]: $(grep bytes_per_cycle "$T/cols")"

# --save-outputs: RMSNorm has no mean, so no mean.npy (not a file of zeros); LayerNorm's is its means.
"$N" run llama2-7b --set workload.rows=4 --out "$T/rms" --save-outputs -q >/dev/null || bad "rms --save-outputs"
[ ! -e "$T/rms/mean.npy" ] && [ -s "$T/rms/rstd.npy" ] && [ -s "$T/rms/y.npy" ] && ok || bad "rmsnorm --save-outputs: mean.npy written, or rstd/y missing"
"$N" run gpt2-small --set workload.rows=4 --out "$T/rms" --save-outputs -q >/dev/null || bad "ln --save-outputs"
/usr/bin/python3 -c "import numpy as n, sys; m = n.load(sys.argv[1]); assert m.shape == (4,) and (m != 0).all()" "$T/rms/mean.npy" && ok || bad "layernorm mean.npy"
"$N" run llama2-7b --set workload.rows=4 --out "$T/rms" --save-outputs -q >/dev/null
[ ! -e "$T/rms/mean.npy" ] && ok || bad "an earlier LayerNorm run's mean.npy left beside an RMSNorm report"

# Saturation: one warning line per stage with its counts; --fail-on-overflow exits 1 (the report still written).
"$N" run --set arch.formats.output.frac=13 --set arch.formats.xhat.frac=14 --set workload.rows=64 --out "$T/ovf" >/dev/null 2>"$T/err"; rc=$?
[ "$rc" = 0 ] && ok || bad "overflow without --fail-on-overflow: exit $rc"
[ "$(grep -c "warning.*overflow: stage '" "$T/err")" = "$(/usr/bin/python3 -c "import json,sys; print(sum(1 for v in json.load(open(sys.argv[1]))['numerics']['overflow'].values() if v))" "$T/ovf/report.json")" ] &&
  grep -q "overflow: stage 'output': [0-9]* of 262144 results saturated" "$T/err" && ok || bad "overflow warnings: $(cat "$T/err")"
"$N" run --set arch.formats.output.frac=13 --set workload.rows=64 --fail-on-overflow --out "$T/ovf2" >/dev/null 2>"$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "^normsim: run: --fail-on-overflow: results overflowed in stage output" "$T/err" && [ -s "$T/ovf2/report.json" ] &&
  ok || bad "--fail-on-overflow: exit $rc: $(cat "$T/err")"
expect_exit 0 "" -- run --set workload.rows=64 --fail-on-overflow -q
expect_exit 1 "" -- compare --set arch.formats.output.frac=13 --set workload.rows=64 --fail-on-overflow -q
expect_exit 2 "^normsim: --trace-rows: there is no trace without --trace" -- run --trace-rows 4 -q

# Progress: a line on stderr past 2 s -- on a terminal by default, never with -q or --json unless --progress asks.
LONG=(run llama3-70b --rtl --set workload.rows=640)
if "$N" "${LONG[@]}" --progress -q >/dev/null 2>"$T/err"; then
  grep -q "normsim run: simulating with the RTL in lock step: [0-9]*/640 rows" "$T/err" && ok || bad "--progress: no progress line"
  "$N" "${LONG[@]}" >/dev/null 2>"$T/err"
  ! grep -q "rows (" "$T/err" && ok || bad "progress on a stderr that is not a terminal"
  if command -v script >/dev/null; then
    script -qec "'$N' ${LONG[*]} >/dev/null" /dev/null >"$T/tty" 2>&1
    grep -q "/640 rows" "$T/tty" && ok || bad "no progress on a terminal"
    script -qec "'$N' ${LONG[*]} --json -q >/dev/null" /dev/null >"$T/tty" 2>&1
    ! grep -q "/640 rows" "$T/tty" && ok || bad "progress on a terminal with --json -q"
  else
    echo "skipped: no script(1) for a pseudo-terminal: the terminal default is not checked"
  fi
else
  echo "skipped: run --rtl unavailable (no Verilator): the progress line is not checked: $(cat "$T/err")"
fi

# A sweep with --out past 20 points prints a summary (its counts, its files,
# the Pareto front's rows), not the whole table; resuming it once finished
# is instant and says so.
"$N" sweep --set workload.rows=8 --grid arch.asic.rows_in_flight=1,2,3,4,5,6,7,8 --grid arch.lanes=4,8,16 \
  --objectives cycles,area --out "$T/sw" -q >"$T/sw.txt" 2>"$T/sw.err"; rc=$?
{ [ $rc = 0 ] && grep -q "^normsim sweep: 24 points, 24 ran, 0 infeasible; every point in $T/sw/sweep.csv" "$T/sw.txt" &&
  grep -q "^the Pareto front over cycles, area: [0-9]* points" "$T/sw.txt" && [ "$(wc -l <"$T/sw.txt")" -lt 24 ] &&
  [ "$(wc -l <"$T/sw/sweep.csv")" = 25 ]; } && ok || bad "sweep --out summary: exit $rc: $(head -5 "$T/sw.txt") $(cat "$T/sw.err")"
front=$(/usr/bin/python3 -c "import csv,sys; print(sum(r['pareto'] == 'true' for r in csv.DictReader(open(sys.argv[1]))))" "$T/sw/sweep.csv")
grep -q "front over cycles, area: $front points" "$T/sw.txt" && ok || bad "the summary's front is not sweep.csv's ($front)"
start=$(date +%s%N)
"$N" sweep --resume "$T/sw" >"$T/out" 2>"$T/err"; rc=$?
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
{ [ $rc = 0 ] && grep -q "sweep: $T/sw/sweep.jsonl is finished: all 24 points are in it" "$T/err" && [ ! -s "$T/out" ] &&
  [ "$took_ms" -lt 2000 ]; } && ok || bad "resuming a finished sweep: exit $rc in $took_ms ms: $(cat "$T/err")"

# Interrupted, a sweep says what it kept and how to go on; going on finishes it.
"$N" sweep --set workload.rows=1024 --grid arch.asic.rows_in_flight=$(seq -s, 1 64) --numerics --out "$T/int" -j 1 -q \
  >/dev/null 2>"$T/int.err" &
pid=$!
for _ in $(seq 50); do [ -s "$T/int/sweep.jsonl" ] && break; sleep 0.1; done
sleep 1; kill -TERM $pid; wait $pid; rc=$?
{ [ $rc = 143 ] && grep -q "^normsim: sweep: interrupted; every finished point is kept in $T/int (go on with: normsim sweep --resume $T/int)$" "$T/int.err" &&
  [ "$(wc -l <"$T/int.err")" = 1 ]; } && ok || bad "an interrupted sweep: exit $rc: $(cat "$T/int.err")"
"$N" sweep --resume "$T/int" -q >/dev/null 2>"$T/err" && [ "$(wc -l <"$T/int/sweep.csv")" = 65 ] && ok ||
  bad "sweep --resume after the interrupt: $(cat "$T/err")"
"$N" sweep --set workload.rows=1024 --grid arch.asic.rows_in_flight=$(seq -s, 1 64) --numerics -j 1 -q >/dev/null 2>"$T/int.err" &
pid=$!
sleep 1.5; kill -TERM $pid; wait $pid
grep -q "^normsim: sweep: interrupted; nothing is kept without --out$" "$T/int.err" && ok || bad "an interrupted sweep without --out: $(cat "$T/int.err")"
ls -d "${TMPDIR:-/tmp}"/normsim-sweep.* >/dev/null 2>&1 && bad "an interrupted sweep left its temporary journal: $(ls -d "${TMPDIR:-/tmp}"/normsim-sweep.*)" || ok

# The progress line and the log share stderr: a log line clears the progress line first.
"$N" sweep --set workload.rows=2048 --grid arch.asic.rows_in_flight=$(seq -s, 1 16) --numerics -j 1 --progress >/dev/null 2>"$T/prog.err"
/usr/bin/python3 - "$T/prog.err" <<'PY' && ok || bad "a log line landed on the progress line: $(head -c 400 "$T/prog.err" | od -c | head -5)"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
assert "points/s" in text, "no progress line in a sweep past 2 s"
for m in re.finditer(r"\[\d\d:\d\d:\d\d\.\d{3}\] \[", text):
    before = text[:m.start()]
    assert before == "" or before.endswith("\n") or before.endswith("\r\x1b[K"), repr(before[-80:])
PY

# regress and simt --explain from any folder: the shipped golden data is found, and a missing ncu column is explained.
(cd "$T" && "$N" simt --kernel fast_ln --rows 1024 --hidden 4096 --dtype bf16 --block 128 --explain) >"$T/out" 2>&1 &&
  grep -q "ncu's golden case" "$T/out" && ok || bad "simt --explain from another folder: no ncu column: $(grep -i ncu "$T/out" | head -3)"
"$N" simt --kernel fast_ln --rows 1000 --hidden 4096 --explain >"$T/out" 2>&1 &&
  grep -q "(no ncu column: none of the [0-9]* golden cases in .* with an ncu profile ran this launch" "$T/out" && ok ||
  bad "simt --explain without a golden case: $(grep -i ncu "$T/out" | head -3)"

# A backward compare: every gradient's error, and the log names each design.
"$N" compare bert-large-bwd --set workload.rows=16 >"$T/out" 2>"$T/err" &&
  head -3 "$T/out" | grep -q "rel_l2_error dgamma.rel_l2_error dbeta.rel_l2_error" &&
  grep -q "compare: param_grad partials, sram-replay done" "$T/err" && ok ||
  bad "backward compare: $(head -3 "$T/out") $(head -3 "$T/err")"

cli_summary
