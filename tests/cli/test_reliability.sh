#!/usr/bin/env bash
# What a user must never see: a crash, a hang, a file accepted with a key
# silently dropped, an error over several lines or with raw control bytes,
# a non-finite or negative number in a report, a report beside an earlier
# run's outputs, a golden index trusted as given, and output that changes
# between two runs of the same command (docs/RELIABILITY.md).
set -uo pipefail
N=${NORMSIM:?}
S=${NORMSIM_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0; passes=0
ok()   { passes=$((passes+1)); }
bad()  { echo "FAIL: $*"; fails=$((fails+1)); }

# expect CODE PATTERN -- ARGS...: the exit code, one stderr line (for a
# failure) matching PATTERN, and no control byte on stderr.
expect() {
  local code=$1 pat=$2; shift 3
  timeout 60 "$N" "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ "$rc" != "$code" ]; then bad "normsim $* -> exit $rc, want $code: $(head -c 600 "$T/err")"; return; fi
  if [ "$code" != 0 ]; then
    [ "$(wc -l <"$T/err")" = 1 ] || { bad "normsim $*: stderr is not one line: $(head -c 600 "$T/err")"; return; }
    grep -q -- "$pat" "$T/err" || { bad "normsim $*: '$pat' not in: $(cat "$T/err")"; return; }
  fi
  if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$T/err"; then bad "normsim $*: raw control bytes on stderr"; return; fi
  ok
}

W=$S/workloads; A=$S/workloads/arch; AD=$A/asic-default.yaml

# --- strict YAML: duplicate keys, a second document, tags, anchors ---------
printf 'norm: layernorm\nrows: 2\nhidden: 64\nhidden: 128\n' >"$T/dup.yaml"
expect 2 "dup.yaml:4: key 'hidden': duplicate key (first given at line 3)" -- run "$T/dup.yaml" -q
{ cat "$AD"; printf 'lanes: 4096\n'; } >"$T/dup-arch.yaml"
expect 2 "dup-arch.yaml:[0-9]*: key 'lanes': duplicate key" -- run --arch "$T/dup-arch.yaml" -q
printf 'norm: layernorm\nrows: 2\ninput:\n  dtype: fp32\n  dtype: bf16\nhidden: 8\n' >"$T/dup-nested.yaml"
expect 2 "dup-nested.yaml:5: key 'input.dtype': duplicate key" -- run "$T/dup-nested.yaml" -q
printf 'norm: layernorm\nrows: 2\nhidden: 64\n---\nrows: 3\n' >"$T/two-docs.yaml"
expect 2 "two-docs.yaml:4: a second YAML document" -- run "$T/two-docs.yaml" -q
printf 'norm: layernorm\nrows: 2\nhidden: 64\n...\nrows: 3\n' >"$T/after-end.yaml"
expect 2 "after-end.yaml:5: a second YAML document" -- run "$T/after-end.yaml" -q
printf 'norm: layernorm\nrows: 2\nname: !!binary aGVsbG8=\nhidden: 8\n' >"$T/tag.yaml"
expect 2 "tag.yaml:3: a YAML tag ('tag:yaml.org,2002:binary')" -- run "$T/tag.yaml" -q
printf 'norm: layernorm\nrows: &r 2\nhidden: 8\nseq: *r\n' >"$T/alias.yaml"
expect 2 "alias.yaml:2: an anchor" -- run "$T/alias.yaml" -q
expect 2 "duplicate key" -- run --set 'workload.input={dtype: fp32, dtype: bf16}' -q
printf 'axes:\n  - grid: {arch.lanes: [4], arch.lanes: [8]}\n' >"$T/study.yaml"
expect 2 "study.yaml:2: key 'axes.grid.arch.lanes': duplicate key\|study.yaml:2: key 'arch.lanes': duplicate key" -- sweep --study "$T/study.yaml" -q

# --- config files: regular files under a size limit; no hang ---------------
expect 2 "/dev/zero: is not a regular file" -- run /dev/zero -q
expect 2 "/dev/urandom: is not a regular file" -- run --arch /dev/urandom -q
mkfifo "$T/fifo.yaml"
expect 2 "fifo.yaml: is not a regular file" -- run "$T/fifo.yaml" -q
expect 2 "fifo.yaml: is not a regular file" -- simt --gpu "$T/fifo.yaml" --kernel v1 --rows 8 --hidden 64 -q
truncate -s 17M "$T/big.yaml"
expect 2 "big.yaml: is 17825792 bytes (allowed: a YAML file of at most 16777216 bytes)" -- run "$T/big.yaml" -q
# The same reader serves a sweep's shards, the golden index and calibrate's records.
mkdir -p "$T/shards_bad" "$T/golden_dir/index.json" "$T/records"
mkfifo "$T/shards_bad/sweep-shard-0-of-1.jsonl"
expect 2 "sweep-shard-0-of-1.jsonl: is not a regular file (allowed: a journal normsim sweep writes)" -- merge "$T/shards_bad" --out "$T/merged" -q
expect 2 "index.json: is a directory, expected a JSON file" -- regress "$T/golden_dir" -q
expect 2 "records/env.json: missing (gpu_ref/scripts/calibrate_gpu.sh writes it)" -- calibrate "$T/records" -o "$T/gpu.yaml" -q

# --- one printable line for every error -------------------------------------
expect 2 "key 'input.distribution.value': value 1e+39 is not finite in bf16" -- run --set 'workload.input.distribution={kind: constant, value: 1e39}' -q
expect 2 "key 'input.distribution.value': value 1e+39 is not finite in bf16" -- run --arch "$A/fixed16.yaml" --set 'workload.input.distribution={kind: constant, value: 1e39}' -q
expect 2 "key 'gamma.value': value 1e+39 is not finite in fp32" -- run --set 'workload.gamma={kind: constant, value: 1e39}' -q
expect 2 "--trace: '/nonexistent-dir/x.vcd': no such directory '/nonexistent-dir'" -- run --trace /nonexistent-dir/x.vcd -q
expect 2 "key 'a\\\\nb': unknown key" -- run --set $'arch.a\nb=1' -q
expect 2 "key '\\\\x1b\[31mred': unknown key" -- run --set $'arch.\x1b[31mred=1' -q
expect 2 "unknown key" -- run --set $'arch.caf\xc3\xa9=1' -q
grep -q "café" "$T/err" && ok || bad "valid UTF-8 in a key is echoed as it is: $(cat "$T/err")"
expect 2 "key 'name\\\\x07'" -- run --set $'workload.name\x07=x' -q
expect 2 "key 'name': control characters in '\\\\x1b\[2Jx'" -- run --set $'workload.name="\e[2Jx"' -q
# Logs echo paths from the command line: printable too.
"$N" run --set workload.rows=4 --out "$T/"$'\e[31mred' >/dev/null 2>"$T/err"
LC_ALL=C grep -q $'\x1b\[31m' "$T/err" && bad "a log line echoed an escape sequence raw" || ok
# Memory exhaustion: one line naming what ran out, not a bare std::bad_alloc.
# (Under ASan a virtual-memory limit cannot hold the shadow memory.)
if [ "${NORMSIM_SANITIZED:-0}" = 1 ]; then
  echo "skipped: out-of-memory line (ulimit -v and ASan's shadow memory do not mix)"
else
  ( ulimit -v 1500000; "$N" run --arch "$A/fp32.yaml" --set workload.rows=64 --set workload.hidden=16777216 -q >"$T/out" 2>"$T/err" ); rc=$?
  { [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "out of memory" "$T/err"; } && ok || bad "bad_alloc -> exit $rc: $(cat "$T/err")"
fi

# --- the fixed-point quantiser at the ends of its range (UBSan found the
# negation of -2^127 here; Inf saturates like any other overflow) ------------
expect 0 "" -- run --arch "$A/fixed16.yaml" --set 'workload.input.distribution={kind: constant, value: -1.0384593717069655e+34}' --set workload.rows=4 --json -q
/usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['numerics']['overflow']['input'] == 4*4096, j['numerics']['overflow']" "$T/out" && ok || bad "a huge constant input saturates, counted"

# --- no silent nonsense: ranges, and the report check -----------------------
expect 2 "key 'dram.bytes_per_s'.*allowed: \[1e+09, 1e+14\]" -- simt --kernel v1 --rows 64 --hidden 768 --set gpu.dram.bytes_per_s=1e-300 -q
expect 2 "key 'asic.dram.energy_pj_per_bit'.*allowed: \[0, 1000\]" -- run --arch "$AD" --set arch.asic.dram.energy_pj_per_bit=1e308 -q
# Inputs that overflow bf16 now and then: outputs not finite -> a warning with
# the count, then exit 1 naming the report field.
"$N" run --arch "$A/fp32.yaml" --set 'workload.input.distribution={kind: normal, mean: 0, sigma: 1e38}' --set workload.rows=8 >"$T/out" 2>"$T/err"; rc=$?
{ [ $rc = 1 ] && grep -q "warning.*outputs are not finite" "$T/err" && grep -q "^normsim: run: report field 'numerics\.[a-z_0-9]*' is \(inf\|nan\)" "$T/err"; } && ok ||
  bad "non-finite outputs -> exit $rc: $(cat "$T/err")"
[ "$(grep -c '^normsim:' "$T/err")" = 1 ] && ok || bad "one error line: $(cat "$T/err")"
expect 0 "" -- run "$W/long-row.yaml" --arch "$A/gpu-warp.yaml" --set workload.rows=1 --json -q
/usr/bin/python3 -c "
import json, sys
t = json.load(open(sys.argv[1]))['timing']
p = t['phase_cycles']
assert min(p.values()) >= 0, p
assert p['fill'] + p['stream'] + p['drain'] == t['cycles'], (p, t['cycles'])" "$T/out" && ok || bad "phase cycles of one row"

# --- --out owns its folder; --trace is a .vcd file --------------------------
"$N" run --set workload.rows=8 --out "$T/o" --save-outputs -q >/dev/null 2>&1 && [ -f "$T/o/y.npy" ] && ok || bad "run --save-outputs"
"$N" run --set workload.rows=8 --out "$T/o" >/dev/null 2>"$T/err" && [ ! -f "$T/o/y.npy" ] && [ ! -f "$T/o/mean.npy" ] && grep -q "removed .*y.npy" "$T/err" && ok ||
  bad "a run without --save-outputs leaves an earlier y.npy: $(ls "$T/o") $(cat "$T/err")"
mkdir -p "$T/tracedir"
expect 2 "--trace: '.*tracedir' is a directory" -- run --set workload.rows=4 --trace "$T/tracedir" -q
[ ! -e "$T/tracedir.vcd" ] && ok || bad "--trace DIR wrote DIR.vcd"
expect 2 "does not end in .vcd" -- run --set workload.rows=4 --trace "$T/trace" -q

# --- the memory guard counts what a run holds --------------------------------
expect 2 "elements need [0-9]* MiB held to save with --save-outputs, more than the [0-9]* MiB this machine has available" -- run --save-outputs --out "$T/huge" --set workload.rows=1000000 --set workload.hidden=65536 -q
[ ! -e "$T/huge" ] && ok || bad "a refused run created its --out"
# Peak RSS against the bytes the guard counts (docs/RELIABILITY.md, Memory).
if [ "${NORMSIM_SANITIZED:-0}" = 1 ]; then echo "skipped: peak RSS (ASan's allocator holds more)"; else
/usr/bin/time -f '%M' -o "$T/rss" "$N" run --arch "$A/fp32.yaml" --set workload.rows=2048 --set workload.hidden=4096 --save-outputs --out "$T/m" --threads 1 -q >/dev/null 2>&1
/usr/bin/python3 - "$T/rss" <<'PY' && ok || bad "peak RSS against the guard's count"
import sys
rss = int(open(sys.argv[1]).read().split()[-1]) * 1024
held = 2048 * 4096 * (8 + 2) + 2048 * 16  # y as fp64 + its bf16 bits as written + mean, rstd
base = 120 << 20                          # the process without kept outputs (SystemC, tables)
assert held * 0.8 <= rss <= held + base, (rss, held)
PY
fi

# --- the golden index is validated like a config -----------------------------
G=$T/golden; mkdir -p "$G"
mk_golden() {  # mk_golden PYTHON-EXPR-ON-c: one valid case, then the change
  /usr/bin/python3 - "$S/gpu_ref/golden/h200/index.json" "$G/index.json" "$1" <<'PY'
import json, sys
c = next(x for x in json.load(open(sys.argv[1])) if not x.get("outputs"))
cases = [c]
exec(sys.argv[3])
json.dump(cases, open(sys.argv[2], "w"))
PY
}
mk_golden 'c["rows"] = -5'
expect 2 "index.json: key 'rows': case '.*': value -5 out of range (allowed: 1..2147483648)" -- regress "$G" -q
mk_golden 'c["block"] = 0'
expect 2 "key 'block': case '.*': value 0 out of range (allowed: 32..1024)" -- regress "$G" -q
mk_golden 'c["ncu"]["dram_bytes_read"] = -1'
expect 2 "key 'ncu.dram_bytes_read': case '.*': value -1 out of range (allowed: >= 0)" -- regress "$G" -q
mk_golden 'cases.append(dict(c))'
expect 2 "key 'id': case 1: '.*' is also case 0 (allowed: unique ids)" -- regress "$G" -q
mk_golden 'c["outputs"] = {"y": "/etc/passwd"}'
expect 2 "key 'outputs.y': case '.*': '/etc/passwd' is not inside the golden folder" -- regress "$G" -q
mk_golden 'c["outputs"] = {"y": "outputs/../../x.npy"}'
expect 2 "key 'outputs.y'.*is not inside the golden folder" -- regress "$G" -q
printf '[{"id": "a", "id": "b"}]' >"$G/index.json"
expect 2 "index.json: key 'id': duplicate key" -- regress "$G" -q
# ncu's golden profile (simt --explain, regress) is read like a config too.
mk_golden 'pass'
printf '{"a": {"dram__throughput.avg.pct_of_peak_sustained_elapsed": 120}}' >"$G/ncu_profile.json"
expect 2 "ncu_profile.json: key 'a.dram__throughput.avg.pct_of_peak_sustained_elapsed': value 120 out of range (allowed: 0..100)" -- simt --kernel v4 --rows 8 --hidden 64 --explain --golden "$G" -q
printf '{"a": {"sm__cycles": 1}}' >"$G/ncu_profile.json"
expect 2 "ncu_profile.json: key 'a.sm__cycles': unknown metric" -- simt --kernel v4 --rows 8 --hidden 64 --explain --golden "$G" -q
rm -f "$G/ncu_profile.json"

# The per-case baseline is validated the same way, before any case runs.
printf '{"gpu": "h200", "cases": {"a": {"dram_bytes_read": -0.5}}}' >"$T/baseline.json"
expect 2 "baseline.json: key 'cases.a.dram_bytes_read': value -0.5 is not an error (allowed: a finite number >= 0, or null)" -- regress "$S/gpu_ref/golden/h200" --baseline "$T/baseline.json" -q
printf '{"gpu": "h200", "cases": {"a": {"cycles": 0.1}}}' >"$T/baseline.json"
expect 2 "key 'cases.a.cycles': unknown counter (allowed: dram_bytes_read, dram_bytes_written, l2_bytes, duration_us)" -- regress "$S/gpu_ref/golden/h200" --baseline "$T/baseline.json" -q

# --- command-line papercuts --------------------------------------------------
expect 2 "--block: value '0' out of range (allowed: 32..1024)" -- simt --kernel v1 --rows 64 --hidden 768 --block 0 -q
expect 2 "--rows: value '99999999999999999999' out of range" -- simt --kernel v1 --rows 99999999999999999999 --hidden 768 -q
expect 2 "--rows: expected an integer, got '12abc'" -- simt --kernel v1 --rows 12abc --hidden 768 -q
expect 2 "key 'arch.lanes' is in an earlier axis too" -- sweep --grid arch.lanes=4,8 --grid arch.lanes=16 -q
expect 2 "key 'asic.clock_ghz': value 200 must be in (0, 100\] (allowed: (0, 100\])" -- run --set arch.asic.clock_ghz=200 -q
expect 2 "key 'formats.sum.frac': fraction bits 2000 impossible with [0-9]* total bits (allowed: 0\.\.[0-9]*)" -- run --arch "$A/fixed16.yaml" --set arch.formats.sum.frac=2000 -q
expect 2 "needs at least 1310720 B.*allowed: --set arch.asic.sram.capacity_bytes=1310720 or more, or with this SRAM --path dram-reread" -- run "$W/long-row.yaml" -q

# --- output a script can trust: the error line comes first and alone (no
# log line before it, so no -q here), it blames the --set that broke a rule,
# outputs and flags are checked before the work, SystemC keeps off stdout ---
expect 2 "^normsim: --path: unknown value 'bogus'" -- run --path bogus --set workload.rows=4
expect 2 "^normsim: --set arch.asic.sram.capacity_bytes=16: key 'asic.sram.capacity_bytes': 16 B is too small" -- run --set arch.asic.sram.capacity_bytes=16
expect 2 "^normsim: --set workload.rows=4294967296: key 'rows': the workload needs" -- run --set workload.rows=4294967296
expect 2 "^normsim: --set arch.formats.output.bits=8: key 'formats.output.frac'" -- run --set arch.formats.output.bits=8
: >"$T/plainfile"
expect 2 "^normsim: --out: '$T/plainfile/x': '$T/plainfile' is not a directory" -- run --out "$T/plainfile/x" --set workload.rows=4
expect 2 "^normsim: --out: '/proc/normsim-no/x': cannot write in '/proc'" -- compare --out /proc/normsim-no/x --set workload.rows=4
expect 2 "^normsim: --out: '/proc/normsim-no'" -- widths --out /proc/normsim-no --target 'max_ulp<=1'
expect 2 "^normsim: --plot: '$T/nodir/p.png': no such directory" -- sweep --grid arch.lanes=4,8 --objectives cycles,area --plot "$T/nodir/p.png" --out "$T/plotless"
[ ! -e "$T/plotless" ] && ok || bad "sweep with a bad --plot wrote $T/plotless"
# A plot inside the --out directory that the sweep makes is a plot in an existing directory.
"$N" sweep --grid arch.lanes=4,8 --objectives cycles,area --out "$T/made/" --plot "$T/made/p.png" -q >/dev/null 2>"$T/err" &&
  [ -s "$T/made/p.png" ] && [ -s "$T/made/sweep.csv" ] && ok || bad "sweep --plot inside a new --out: $(cat "$T/err")"
expect 2 "^normsim: --guard 'hidden=0': 'hidden=0' is not a row length" -- widths --target 'max_ulp<=1' --guard hidden=0
expect 2 "^normsim: --margin-bits: value '17' out of range" -- widths --target 'max_ulp<=1' --margin-bits 17
expect 2 "^normsim: widths: --stages: the width of output costs no area" -- widths --target 'max_ulp<=1' --stages output --set workload.rows=8
# Bit-accurate sweeps: a saturating format is infeasible unless asked; the per-stage overflow columns either way.
SAT=(sweep --grid arch.formats.input.bits=6,24 --set arch.formats.input.frac=4 --numerics --set workload.rows=16 -q)
"$N" "${SAT[@]}" --out "$T/sat" >/dev/null 2>&1 &&
  grep -q '^0,6,infeasible,"saturates: input [0-9]* values' "$T/sat/sweep.csv" && grep -q '^1,24,ok,' "$T/sat/sweep.csv" &&
  ok || bad "sweep --numerics kept a saturating point: $(cut -c1-200 "$T/sat/sweep.csv")"
"$N" "${SAT[@]}" --allow-overflow --out "$T/satok" >/dev/null 2>&1 &&
  head -1 "$T/satok/sweep.csv" | grep -q 'numerics.overflow.input \[count\]' && grep -q '^0,6,ok,' "$T/satok/sweep.csv" &&
  ok || bad "sweep --allow-overflow: $(head -c 300 "$T/satok/sweep.csv")"
expect 2 "^normsim: sweep: --allow-overflow without --numerics" -- sweep --grid arch.lanes=4,8 --allow-overflow
# Reports say only what applies, and text keeps what JSON keeps.
"$N" run --set workload.rows=4 -q --json | python3 -c 'import json, sys; n = json.load(sys.stdin)["numerics"]; sys.exit("mean_max_abs_error" in n or "negative_variance_clamps" in n)' &&
  ok || bad "an RMSNorm run reports a mean error or variance clamps"
"$N" run bert-large --set workload.rows=4 -q --json | python3 -c 'import json, sys; n = json.load(sys.stdin)["numerics"]; sys.exit(not ("mean_max_abs_error" in n and "negative_variance_clamps" in n))' &&
  ok || bad "a LayerNorm run lost its mean error or variance clamps"
"$N" run --set workload.rows=4 -q | grep -q "variance clamps\|mean max abs" && bad "RMSNorm text shows LayerNorm-only lines" || ok
"$N" simt --kernel fast_ln --rows 1024 --hidden 4096 -q >"$T/simt.txt" &&
  grep -q "x read once" "$T/simt.txt" && ! grep -q "re-read hit fraction" "$T/simt.txt" &&
  grep -q "below the 16785408 bytes stored: up to 24000000 of them are still dirty in the L2" "$T/simt.txt" &&
  ok || bad "simt fast_ln: $(cat "$T/simt.txt")"
"$N" simt --kernel v4 --rows 4096 --hidden 4096 -q | grep -q "re-read hit fraction L1" && ok || bad "simt v4 lost its re-read line"
cyc=$("$N" run --no-numerics --set workload.rows=64 --set arch.asic.clock_ghz=2 -q --json | python3 -c 'import json, sys; print("%.15g" % json.load(sys.stdin)["timing"]["cycles"])')
"$N" run --no-numerics --set workload.rows=64 --set arch.asic.clock_ghz=2 -q | grep -q "^  cycles  *$cyc  *\$" && case $cyc in *.*) ok ;; *) bad "the 2 GHz run's cycles are whole ($cyc): the test shows nothing" ;; esac ||
  bad "run text cycles differ from the JSON's $cyc"
# Every subcommand's --json, without -q: stdout is exactly one JSON object (logs, progress and SystemC on stderr).
is_one_json() { python3 -c 'import json, sys; d = json.loads(open(sys.argv[1]).read()); sys.exit(not isinstance(d, dict))' "$1"; }
one_json() {
  "$N" "$@" --json >"$T/one.json" 2>/dev/null && is_one_json "$T/one.json" &&
    ok || bad "normsim $* --json: stdout is not one JSON object: $(head -c 300 "$T/one.json")"
}
one_json run --set workload.rows=4
one_json run --set workload.rows=4 --trace "$T/one.vcd"
one_json compare --set workload.rows=4 --no-numerics
one_json compare --set workload.rows=16 --no-numerics --sram-budget 65536
one_json sweep --grid arch.lanes=4,8 --set workload.rows=4
"$N" sweep --grid arch.lanes=4,8 --set workload.rows=4 --shard 0/2 --out "$T/shj" -q && "$N" sweep --grid arch.lanes=4,8 --set workload.rows=4 --shard 1/2 --out "$T/shj" -q
one_json merge "$T/shj"
one_json widths --target 'max_ulp<=4' --set workload.rows=8 --stages gamma --guard none
one_json simt --kernel v4 --rows 64 --hidden 1024
one_json area
one_json calibrate "$S/gpu_ref/golden/h200" -o "$T/cal.yaml"
one_json list
expect 2 "^normsim: -o: '/nonexistent/g.yaml': no such directory" -- calibrate "$S/gpu_ref/golden/h200" -o /nonexistent/g.yaml
expect 2 "^normsim: <shipped: workloads/arch/gpu-warp.yaml>: --rtl: key 'arithmetic': the RTL is fixed point" -- run --rtl --arch gpu-warp --set workload.rows=4
expect 2 "^normsim: <shipped: workloads/arch/fp32.yaml>: key 'arithmetic': widths searches fixed-point formats" -- widths --arch fp32 --target 'max_ulp<=1'
expect 2 "^normsim: --verbose excludes --quiet" -- -q -v run
expect 2 "^normsim: --baseline excludes --no-baseline" -- regress "$S/gpu_ref/golden/h200" --baseline x --no-baseline
"$N" run --trace "$T/t.vcd" --json --set workload.rows=4 2>/dev/null | python3 -c 'import json, sys; json.load(sys.stdin)' &&
  ok || bad "run --trace --json: stdout is not one JSON object"
# -v says what exactly runs: the configs' hashes, each --set, the design and the simulation's rate.
"$N" -v run --set workload.rows=4 --no-numerics >/dev/null 2>"$T/v.txt"
{ grep -q "\[debug\] run: arch sha256 [0-9a-f]\{64\}" "$T/v.txt" && grep -q "\[debug\] run: --set workload.rows=4" "$T/v.txt" &&
  grep -q "\[debug\] run: sram-replay at 1 GHz, 4 rows in flight" "$T/v.txt" && grep -q "\[debug\] run: simulated 4 rows in" "$T/v.txt"; } &&
  ok || bad "-v run: $(cat "$T/v.txt")"
"$N" run --set workload.rows=4 --no-numerics >/dev/null 2>"$T/nv.txt"
! grep -q "debug" "$T/nv.txt" && ok || bad "run without -v printed debug lines: $(cat "$T/nv.txt")"

# --- determinism: every subcommand twice, byte for byte ---------------------

# A new user's first refusals: said as what they are, with what is allowed.
expect 2 "^normsim: no command given (allowed: run, compare, sweep" --
expect 2 "^normsim: unknown command or argument 'frobnicate' (allowed: run, compare" -- frobnicate
expect 2 "^normsim: run: unexpected argument '--frobnicate' (allowed: the options of normsim run --help)" -- run --frobnicate
expect 2 "^normsim: --target-cycles: value '0' out of range (allowed: a number in 1..1e+18)" -- compare --target-cycles 0 -q
expect 2 "^normsim: --target-cycles: expected a number, got 'fast'" -- compare --target-cycles fast -q
expect 2 "^normsim: --slurm: value '0' out of range (allowed: 1..100000)" -- sweep --slurm 0 -q
expect 2 "workload: an empty workload name (allowed: .*llama2-7b.*, a YAML path, or none for the default)" -- run '' -q
expect 2 "arch: an empty arch name (allowed: .*asic-default" -- run --arch '' -q
expect 2 "^normsim: --set workload.rows=8: key 'rows': given again (first as --set workload.rows=4; allowed: each key once)" -- run --set workload.rows=4 --set workload.rows=8 -q
expect 2 "^normsim: --fail-on-overflow: nothing is computed with --no-numerics" -- run --no-numerics --fail-on-overflow -q
expect 2 "^normsim: --fail-on-overflow: nothing is computed with --no-numerics" -- compare --no-numerics --fail-on-overflow -q
expect 2 "^normsim: compare: workload llama2-7b: no design of any path is feasible (sram-replay: .*; partial-replay: .*allowed: a larger --sram-budget" -- compare llama2-7b --sram-budget 16 --no-numerics -q
[ ! -s "$T/out" ] && ok || bad "compare with no feasible design printed a table: $(head -c 300 "$T/out")"
expect 2 "^normsim: --set: key 'workload.rows=': no value after '='" -- run --set workload.rows= -q
printf 'norm: layernorm\nrows: 4\nhidden: 8\n\0\n' >"$T/nul.yaml"
expect 2 "nul.yaml:4: a NUL byte: not text (allowed: a YAML file in UTF-8)" -- run "$T/nul.yaml" -q
printf 'norm: layernorm\nrows: 4\nname: caf\xe9\n' >"$T/latin1.yaml"
expect 2 "latin1.yaml:3: not UTF-8 (byte 0xe9) (allowed: a YAML file in UTF-8)" -- run "$T/latin1.yaml" -q
printf '\xff\xfen\0o\0' >"$T/utf16.yaml"
expect 2 "utf16.yaml:1: UTF-16 text (a byte-order mark)" -- run "$T/utf16.yaml" -q
expect 2 "normsim: .*: a NUL byte: not text" -- run --arch "$N" -q
ln -s "$T/loop_b.yaml" "$T/loop_a.yaml"; ln -s "$T/loop_a.yaml" "$T/loop_b.yaml"
expect 2 "loop_a.yaml: a loop of symbolic links (allowed: a path that leads to a YAML file)" -- run "$T/loop_a.yaml" -q
/usr/bin/python3 -c "print('a: ' + '[' * 600 + ']' * 600)" >"$T/deep.yaml"
expect 2 "deep.yaml:1: mappings and lists nested more than 32 deep (allowed: at most 32 levels)" -- run "$T/deep.yaml" -q
# A file whose text is a shipped config's (its parse cached) still names its own lines.
expect 2 "llama2-7b.yaml:3: key 'norm': unknown key" -- run llama2-7b --arch "$W/llama2-7b.yaml" -q
expect 2 "llama2-7b.yaml:3: key 'norm': unknown key" -- run --arch "$W/llama2-7b.yaml" -q
# Under --json a refusal is also one JSON object on stdout.
"$N" run --set workload.rows=0 --json -q >"$T/out" 2>"$T/err"; rc=$?
/usr/bin/python3 - "$T/out" "$T/err" "$rc" <<'PY' && ok || bad "run --json refusal: stdout is not {\"error\": ...}: $(head -c 300 "$T/out")"
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["exit_code"] == int(sys.argv[3]) == 2, (e, sys.argv[3])
assert "normsim: " + e["message"] == open(sys.argv[2]).read().strip(), e
PY
"$N" --json frobnicate >"$T/out" 2>/dev/null
/usr/bin/python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['error']['exit_code'] == 2" "$T/out" && ok || bad "a parse error under --json: no error object"
twice() {
  local name=$1; shift
  "$N" "$@" >"$T/a.$name" 2>/dev/null; local ra=$?
  "$N" "$@" >"$T/b.$name" 2>/dev/null; local rb=$?
  { [ $ra = $rb ] && [ -s "$T/a.$name" ] && cmp -s "$T/a.$name" "$T/b.$name"; } && ok || bad "normsim $* differs between two runs (exit $ra, $rb)"
}
twice run run --set workload.rows=64 --json -q
twice run-fp32 run --arch "$A/fp32.yaml" --set workload.rows=64 --json -q
twice compare compare --set workload.rows=64 --json -q
twice sweep sweep --grid arch.lanes=4,8 --set workload.rows=32 --json -q
twice widths widths --arch "$A/fixed16.yaml" --set workload.rows=16 --set workload.hidden=256 --target max_ulp\<=8 --sample-rows 8 --json -q
twice simt simt --kernel v5 --rows 1024 --hidden 4096 --json -q
twice area area --json -q
# regress (~25 s a run): its two runs without -q are also its one-JSON check.
"$N" regress "$S/gpu_ref/golden/h200" --json >"$T/a.regress" 2>/dev/null; ra=$?
is_one_json "$T/a.regress" && ok || bad "normsim regress --json: stdout is not one JSON object: $(head -c 300 "$T/a.regress")"
"$N" regress "$S/gpu_ref/golden/h200" --json >"$T/b.regress" 2>/dev/null; rb=$?
{ [ $ra = $rb ] && [ -s "$T/a.regress" ] && cmp -s "$T/a.regress" "$T/b.regress"; } && ok ||
  bad "normsim regress --json differs between two runs (exit $ra, $rb)"

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
