#!/usr/bin/env bash
# The CLI as a user runs it: exit codes, one-line errors, the JSON contract,
# atomic reports, and the cancellation claim (docs/NUMERICS.md) end to end.
set -uo pipefail
source "$(dirname "$0")/cli_lib.sh"

W=$S/workloads; A=$S/workloads/arch
printf 'norm: layernorm\nrows: 2\nhidden: 8\nlanes: 4\n' >"$T/unknown.yaml"
printf 'norm: layernorm\nrows: two\nhidden: 8\n' >"$T/type.yaml"
printf 'norm: layernorm\nrows: 0\nhidden: 8\n' >"$T/zero.yaml"
printf 'norm: layernorm\nrows: [2\n' >"$T/malformed.yaml"
printf 'lanes: 0\n' >"$T/zerolanes.yaml"
printf 'arithmetic: fixed\nformats:\n  input: {bits: 8, frac: 12}\n' >"$T/width.yaml"

expect_exit 2 "unknown.yaml:4: key 'lanes': unknown key" -- run "$T/unknown.yaml" -q
expect_exit 2 "type.yaml:2: key 'rows': expected an integer" -- run "$T/type.yaml" -q
expect_exit 2 "zero.yaml:2: key 'rows': value 0 out of range" -- run "$T/zero.yaml" -q
# A clock past a unit's maximum frequency: stages added, or refused in one line naming the unit.
expect_exit 2 "key 'asic.clock_ghz': value 2 is too fast: rsqrt_unit" -- run llama2-7b --no-numerics \
  --set arch.asic.node=45nm --set arch.asic.clock_ghz=2 --set arch.asic.past_fmax=refuse -q
expect_exit 2 "value 3 is too fast: an SRAM bank of 5120 bytes" -- run llama2-7b --no-numerics \
  --set arch.asic.node=45nm --set arch.asic.clock_ghz=3 --set arch.asic.past_fmax=refuse -q
expect_exit 2 "key 'asic.past_fmax': unknown value 'later'" -- run llama2-7b --set arch.asic.past_fmax=later -q
"$N" run llama2-7b --no-numerics --set arch.asic.node=45nm --set arch.asic.clock_ghz=3 --json -q >"$T/past.json" &&
  /usr/bin/python3 -c "
import json; j=json.load(open('$T/past.json')); t=j['timing_closure']
n=t['units']['normalize_affine']
assert n['added_stages'] > 0 and n['cycles'] == n['configured_cycles'] + n['added_stages'], n
assert n['levels_per_cycle'] + 1.8 <= t['period_fo4'] + 1e-9, (n, t['period_fo4'])
s=t['sram']
assert s['banks'] > s['configured_banks'] and s['min_period_ns'] <= 1 / 3 and s['access_ns'] <= s['cycles'] / 3, s
assert t['added_flip_flops'] > 0 and abs(j['area']['units']['timing_registers']['gate_equivalents'] - t['added_flip_flops'] * 5.3) <= 1e-9 * t['added_flip_flops'], j['area']
" && ok || bad "run past fmax: stages added and charged"
expect_exit 2 "malformed.yaml:.*malformed YAML" -- run "$T/malformed.yaml" -q
expect_exit 2 "zerolanes.yaml:1: key 'lanes'.*allowed: 1..4096" -- run --arch "$T/zerolanes.yaml" -q
expect_exit 2 "width.yaml:3: key 'formats.input.frac'.*allowed: 0..8" -- run --arch "$T/width.yaml" -q
expect_exit 2 "nope.yaml: no such file" -- run "$T/nope.yaml" -q
expect_exit 2 "allowed: welford, two-pass, single-pass" -- run --algorithm kahan -q
expect_exit 2 "rmsnorm workload" -- run "$W/llama2-7b.yaml" --algorithm welford -q
expect_exit 2 "needs --out" -- run --save-outputs -q
expect_exit 2 "unknown-flag" -- run --unknown-flag
expect_exit 2 "key 'formats.sumsq.bitz': unknown key" -- run --set arch.formats.sumsq.bitz=3 -q
expect_exit 2 "must start with workload., arch. or gpu." -- run --set rows=3 -q
# The ASIC model's own bad inputs.
AD=$A/asic-default.yaml
expect_exit 2 "asic.sram.capacity_bytes.*needs at least 24576 B" -- run "$W/llama2-7b.yaml" --arch "$AD" --set arch.asic.rows_in_flight=2 --set arch.asic.sram.capacity_bytes=4096 -q
expect_exit 2 "asic.dram.peak_bytes_per_s': value 0 must be > 0" -- run --arch "$AD" --set arch.asic.dram.peak_bytes_per_s=0 -q
expect_exit 2 "asic.dram.latency_ns': value 0 out of range" -- run --arch "$AD" --set arch.asic.dram.latency_ns=0 -q
expect_exit 2 "lanes'.*power of two" -- run --arch "$AD" --set arch.lanes=12 -q
expect_exit 2 "allowed: sram-replay, dram-reread, partial-replay" -- run --arch "$AD" --path sideways -q
expect_exit 2 "two-pass needs a third pass" -- run "$W/gpt2-small.yaml" --arch "$AD" --algorithm two-pass -q
expect_exit 2 "key 'asic': missing" -- run --arch "$A/fp32.yaml" --path sram-replay -q
expect_exit 2 "key 'asic': missing" -- run --arch "$A/fp32.yaml" --trace "$T/x.vcd" -q
expect_exit 2 "no outputs with --no-numerics" -- run --arch "$AD" --no-numerics --save-outputs --out "$T/nn" -q
expect_exit 2 "key 'asic': missing" -- compare --arch "$A/fixed16.yaml" -q
expect_exit 2 "asic.dram.interface': unknown value 'hbm4'.*allowed: hbm2, hbm2e, hbm3e, gddr5, gddr6, gddr6x, lpddr4, ddr3" -- run --arch "$AD" --set arch.asic.dram.interface=hbm4 -q
expect_exit 2 "asic.dram.energy_pj_per_bit'.*allowed: \[0, 1000\]" -- run --arch "$AD" --set arch.asic.dram.energy_pj_per_bit=-1 -q
expect_exit 2 "asic.supply_v'.*0.5" -- run --arch "$AD" --set arch.asic.supply_v=1.5 -q
expect_exit 2 "more than .*asic.dram.capacity_bytes" -- run "$W/llama3-70b.yaml" --arch "$AD" --set arch.asic.dram.capacity_bytes=1000000 -q
# sweep: the grid's points, each validated before any runs; bad points are exit 2 naming the point,
# points the design cannot build are rows with their reason.
expect_exit 2 "sweep: no axes" -- sweep "$W/gpt2-small.yaml" --arch "$AD" -q
expect_exit 2 "sweep: --grid 'arch.lanes': expected KEY=V1,V2" -- sweep "$W/gpt2-small.yaml" --arch "$AD" --grid arch.lanes -q
expect_exit 2 'sweep point {"arch.lanes":3}: .*lanes' -- sweep "$W/gpt2-small.yaml" --arch "$AD" --grid arch.lanes=4,3 -q
expect_exit 2 "key 'arch.lanes' is in an earlier axis too" -- sweep --grid arch.lanes=4 --grid arch.lanes=8 -q
expect_exit 2 "key 'arch.asic.rows_in_flight' has 1 values, 'arch.lanes' 2" -- sweep --zip arch.lanes=4,8,arch.asic.rows_in_flight=2 -q
expect_exit 2 "after ' if ' is no earlier axis's" -- sweep --grid "arch.asic.replay_fraction=0.5 if arch.asic.input_path=partial-replay" -q
expect_exit 2 "if arch.asic.input_path=partial_replay': the axis of 'arch.asic.input_path' has no such value.*allowed: sram-replay, partial-replay" -- sweep --grid arch.asic.input_path=sram-replay,partial-replay --grid "arch.asic.replay_fraction=0.5 if arch.asic.input_path=partial_replay" -q
expect_exit 2 "objectives 'speed': not a figure" -- sweep --grid arch.lanes=4,8 --objectives cycles,speed -q
expect_exit 2 "an error objective needs --numerics" -- sweep --grid arch.lanes=4,8 --objectives cycles,error -q
expect_exit 2 "shard '4/4': expected i/n" -- sweep --grid arch.lanes=4,8 --shard 4/4 --out "$T/shx" -q
expect_exit 2 "sweep: no point could be built" -- sweep "$W/long-row.yaml" --grid arch.asic.input_path=sram-replay -q
"$N" sweep "$W/gpt2-small.yaml" --arch "$AD" --grid arch.lanes=4,16 --grid arch.asic.rows_in_flight=2,4 --out "$T/sw" --json -q >"$T/sweep.json" 2>/dev/null || bad "sweep failed"
/usr/bin/python3 - "$T/sweep.json" "$T/sw/sweep.csv" <<'PY' && ok || bad "sweep contract"
import csv, json, sys
j = json.load(open(sys.argv[1]))
pts = j["points"]
assert j["study"]["mode"] == "timing-only" and j["study"]["points"] == len(pts) == 4, j["study"]
assert [p["point"] for p in pts] == [{"arch.lanes": l, "arch.asic.rows_in_flight": r} for l in (4, 16) for r in (2, 4)]
assert [p["index"] for p in pts] == [0, 1, 2, 3] and all(p["status"] == "ok" for p in pts)
assert all("report" not in p and "figures" in p for p in pts)  # compact: the figures, not the whole report
cyc = {(p["point"]["arch.lanes"], p["point"]["arch.asic.rows_in_flight"]): p["figures"]["timing.cycles"] for p in pts}
assert cyc[(4, 4)] > cyc[(16, 4)], cyc                   # fewer lanes: more cycles
rd = {p["figures"]["traffic.dram_bytes_read"] for p in pts}
assert len(rd) == 1, rd                                  # the bytes moved do not depend on lanes or buffers
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 4 and float(rows[0]["timing.cycles [cycles]"]) == pts[0]["figures"]["timing.cycles"]
# The columns are run's report.csv headers: the JSON path and the unit.
for col in ("area.sram_required_bytes [bytes]", "area.total_mm2 [mm2]", "energy.total_uj [uJ]",
            "timing.stall_cycles.dram_latency [cycles]", "timing.utilization.welford_lanes [fraction]", "traffic.dram_bytes_read [bytes]"):
    assert col in rows[0], (col, list(rows[0]))
assert float(rows[0]["area.sram_required_bytes [bytes]"]) == pts[0]["figures"]["area.sram_required_bytes"]
assert isinstance(pts[0]["point"]["arch.lanes"], int)
PY
# A conditional axis adds no duplicates; an infeasible point is a row; the front is marked.
"$N" sweep "$W/long-row.yaml" --arch "$AD" --grid arch.asic.input_path=sram-replay,dram-reread,partial-replay \
  --grid "arch.asic.replay_fraction=0.125,0.25 if arch.asic.input_path=partial-replay" --set arch.asic.rows_in_flight=2 \
  --objectives cycles,area,energy --json -q >"$T/sweepc.json" 2>/dev/null || bad "conditional sweep failed"
/usr/bin/python3 - "$T/sweepc.json" <<'PY' && ok || bad "conditional sweep contract"
import json, sys
pts = json.load(open(sys.argv[1]))["points"]
assert [(p["point"]["arch.asic.input_path"], p["point"].get("arch.asic.replay_fraction")) for p in pts] == \
    [("sram-replay", None), ("dram-reread", None), ("partial-replay", 0.125), ("partial-replay", 0.25)], [p["point"] for p in pts]
st = {p["point"]["arch.asic.input_path"]: p["status"] for p in pts}
assert st["sram-replay"] == "infeasible" and "capacity_bytes" in pts[0]["reason"] and "report" not in pts[0]
assert all(p["status"] == "ok" and isinstance(p["pareto"], bool) for p in pts[1:])
assert any(p["pareto"] for p in pts[1:])
PY
# --plot draws the front (a PNG); it needs two objectives.
"$N" sweep "$W/gpt2-small.yaml" --grid arch.lanes=4,16 --grid arch.asic.rows_in_flight=2,4 --objectives cycles,area --plot "$T/front.png" -q >/dev/null &&
  [ "$(head -c 8 "$T/front.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && ok || bad "sweep --plot wrote no PNG"
expect_exit 2 "plot needs two or more --objectives" -- sweep --grid arch.lanes=4,16 --objectives cycles --plot "$T/x.png" -q
# Parallel, sharded and merged: byte-identical to the serial sweep.
SW=(sweep "$W/llama3-70b.yaml" --arch "$AD" --grid arch.lanes=4,16 --zip arch.asic.rows_in_flight=2,8,arch.asic.sram.capacity_bytes=65536,262144 --grid arch.asic.input_path=sram-replay,dram-reread --objectives cycles,area -q)
"$N" "${SW[@]}" -j 1 --out "$T/j1" >/dev/null && "$N" "${SW[@]}" -j 4 --out "$T/j4" >/dev/null || bad "sweep -j"
for i in 0 1 2; do "$N" "${SW[@]}" --shard $i/3 --out "$T/shards" >/dev/null || bad "sweep --shard $i/3"; done
"$N" merge "$T/shards" --out "$T/merged" -q >/dev/null || bad "merge"
python3 "$S/tests/cli/same_report.py" "$T/j1/sweep.json" "$T/j4/sweep.json" && cmp -s "$T/j1/sweep.csv" "$T/j4/sweep.csv" && ok || bad "sweep -j 4 differs from -j 1"
python3 "$S/tests/cli/same_report.py" "$T/j1/sweep.json" "$T/merged/sweep.json" && cmp -s "$T/j1/sweep.csv" "$T/merged/sweep.csv" && ok || bad "merged shards differ from the sweep"
rm "$T/shards/sweep-shard-1-of-3.jsonl"
expect_exit 2 "merge: 1 of 3 shards are missing: 1" -- merge "$T/shards" -q
# --slurm writes the array job, the merge and the script that submits both (run by tests/slurm).
"$N" sweep --grid arch.lanes=4,8 --slurm 2 --out "$T/sl" -q >"$T/sl.txt" && grep -q "submit with: bash $T/sl/slurm/submit.sh" "$T/sl.txt" &&
  grep -q -- "--array=0-1" "$T/sl/slurm/shard.sbatch" && grep -q -- '--shard "$i/2"' "$T/sl/slurm/shard.sbatch" &&
  grep -q "dependency=afterany" "$T/sl/slurm/submit.sh" && bash -n "$T/sl/slurm/submit.sh" && bash -n "$T/sl/slurm/finish.sbatch" &&
  grep -q -- "--incomplete-of 2" "$T/sl/slurm/finish.sbatch" && grep -q -- "sweep --resume" "$T/sl/slurm/shard.sbatch" && ok || bad "sweep --slurm: $(cat "$T/sl.txt")"
# Killed mid-run and resumed: the journal keeps the finished points, --resume runs the rest, and
# the outputs are byte-identical to an uninterrupted run's (the stamp's command included).
RS=(sweep "$W/llama3-70b.yaml" --arch "$AD" --grid arch.lanes=4,8,16,32 --grid arch.asic.rows_in_flight=2,3,4,6,8 --grid arch.asic.input_path=sram-replay,dram-reread --objectives cycles,area -j 1 -q)
"$N" "${RS[@]}" --out "$T/rs_whole" >/dev/null || bad "sweep for resume"
"$N" "${RS[@]}" --out "$T/rs" >/dev/null 2>&1 & rs_pid=$!
for _ in $(seq 1 200); do [ "$(wc -l 2>/dev/null <"$T/rs/sweep.jsonl" || echo 0)" -ge 8 ] && break; sleep 0.05; done
kill -9 $rs_pid 2>/dev/null; wait $rs_pid 2>/dev/null
done_lines=$(($(wc -l <"$T/rs/sweep.jsonl") - 1))
printf '{"index": 39, "point": {"arch.la' >>"$T/rs/sweep.jsonl"  # a line cut short by the kill
[ ! -e "$T/rs/sweep.json" ] && [ "$done_lines" -ge 7 ] && [ "$done_lines" -lt 40 ] && ok || bad "the killed sweep kept $done_lines points"
cp "$T/rs_whole/sweep.jsonl" "$T/rs_whole.jsonl"
"$N" sweep --resume "$T/rs" -j 2 -q >/dev/null 2>"$T/rs.err" &&
  sed -i "s|$T/rs\b|$T/rs_whole|g" "$T/rs/sweep.json" &&
  cmp -s "$T/rs_whole/sweep.csv" "$T/rs/sweep.csv" && cmp -s "$T/rs_whole/sweep.json" "$T/rs/sweep.json" &&
  [ "$(($(wc -l <"$T/rs/sweep.jsonl") - 1))" = 40 ] && ok || bad "sweep --resume: $(cat "$T/rs.err")"
expect_exit 2 "sweep: --resume DIR takes the study from DIR's journal" -- sweep --resume "$T/rs" --grid arch.lanes=4 -q
expect_exit 2 "no sweep.jsonl there" -- sweep --resume "$T/sw_nothing" -q
# An incomplete set of shards: merge names what is missing.
"$N" "${RS[@]}" --shard 0/2 --out "$T/rsh" >/dev/null && head -5 "$T/rsh/sweep-shard-0-of-2.jsonl" >"$T/rsh/cut" && mv "$T/rsh/cut" "$T/rsh/sweep-shard-0-of-2.jsonl"
expect_exit 2 "merge: 1 of 2 shards are missing: 1" -- merge "$T/rsh" -q
[ "$("$N" merge "$T/rsh" --incomplete-of 2)" = "0,1" ] && ok || bad "merge --incomplete-of"
"$N" "${RS[@]}" --shard 1/2 --out "$T/rsh" >/dev/null
expect_exit 2 "merge: 16 of 40 points are missing: 8, 10, 12" -- merge "$T/rsh" -q
expect_exit 2 "slurm needs --out" -- sweep --grid arch.lanes=4,8 --slurm 2 -q
expect_exit 2 "slurm and --shard together" -- sweep --grid arch.lanes=4,8 --slurm 2 --shard 0/2 --out "$T/sl2" -q
# asic.sram.area: the area counts the bytes needed (default) or the configured capacity.
"$N" sweep "$W/gpt2-small.yaml" --grid arch.asic.sram.area=required,capacity --grid arch.asic.sram.capacity_bytes=262144,524288 --full-reports --json -q >"$T/sa.json" || bad "sram.area sweep"
/usr/bin/python3 - "$T/sa.json" <<'PY' && ok || bad "asic.sram.area"
import json, sys
a = {(p["point"]["arch.asic.sram.area"], p["point"]["arch.asic.sram.capacity_bytes"]): p["report"]["area"] for p in json.load(open(sys.argv[1]))["points"]}
assert a[("required", 262144)]["sram_mm2"] == a[("required", 524288)]["sram_mm2"]
assert a[("capacity", 262144)]["sram_mm2"] < a[("capacity", 524288)]["sram_mm2"]
assert a[("capacity", 262144)]["sram_mm2"] > a[("required", 262144)]["sram_mm2"]
assert a[("capacity", 524288)]["sram_costed"] == "configured" and a[("required", 524288)]["sram_costed"] == "required"
PY
# Progress on stderr only when asked (stderr is not a terminal here); -q silences it.
"$N" sweep "$W/gpt2-small.yaml" --grid arch.lanes=4,8,16 --progress >/dev/null 2>"$T/prog.txt" &&
  grep -q "sweep: 3/3 points, .* points/s, ETA" "$T/prog.txt" && ok || bad "sweep --progress: $(cat "$T/prog.txt")"
"$N" sweep "$W/gpt2-small.yaml" --grid arch.lanes=4,8,16 >/dev/null 2>"$T/noprog.txt" &&
  ! grep -q "points/s" "$T/noprog.txt" && ok || bad "sweep printed progress to a non-terminal: $(cat "$T/noprog.txt")"
expect_exit 2 "key 'asic.sram.area': unknown value 'bogus'.*allowed: required, capacity" -- run --set arch.asic.sram.area=bogus -q
expect_exit 2 "--threads: value '0' out of range (allowed: 1..1024)" -- run --threads 0 -q
expect_exit 2 "--jobs: value '0' out of range (allowed: 1..4096)" -- sweep --grid arch.lanes=4 -j 0 -q
# A study file: the same axes as flags.
cat >"$T/study.yaml" <<EOF
workload: $W/llama3-70b.yaml
arch: $AD
objectives: [cycles, area]
axes:
  - grid: {arch.lanes: [4, 16]}
  - zip: {arch.asic.rows_in_flight: [2, 8], arch.asic.sram.capacity_bytes: [65536, 262144]}
  - grid: {arch.asic.input_path: [sram-replay, dram-reread]}
EOF
"$N" sweep --study "$T/study.yaml" -q --out "$T/st" >/dev/null || bad "sweep --study"
/usr/bin/python3 - "$T/j1/sweep.json" "$T/st/sweep.json" <<'PY' && ok || bad "study file differs from the flags"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["points"] == b["points"]
PY
printf 'axes:\n  - grid: {arch.lanes: [4]}\n    zip: {arch.lanes: [8]}\n' >"$T/bad_study.yaml"
expect_exit 2 "bad_study.yaml:2: key 'axes\[0\]': needs exactly one of grid, zip" -- sweep --study "$T/bad_study.yaml" -q
"$N" sweep "$W/gpt2-small.yaml" --arch "$AD" --grid arch.lanes=8,16 --numerics --set workload.seq=8 -q >"$T/sweepn.txt" 2>/dev/null || bad "sweep --numerics failed"
grep -q "rel_l2_error" "$T/sweepn.txt" && [ "$(grep -c '^8 \|^16 ' "$T/sweepn.txt")" = 2 ] && ok || bad "sweep --numerics table: $(cat "$T/sweepn.txt")"
# The same point as a single run: identical cycles.
c1=$("$N" run "$W/gpt2-small.yaml" --arch "$AD" --set arch.lanes=4 --set arch.asic.rows_in_flight=2 --no-numerics --json -q | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["timing"]["cycles"])')
c2=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["points"][0]["figures"]["timing.cycles"])' "$T/sweep.json")
[ "$c1" = "$c2" ] && ok || bad "sweep point cycles $c2 differ from run's $c1"

# simt / regress: bad input is exit 2 with one line naming the flag or file and the allowed values.
printf 'name: bad\nsms: 0\n' >"$T/gpu0.yaml"
printf 'name: bad\nwarps: 4\n' >"$T/gpukey.yaml"
expect_exit 2 "simt: --kernel: unknown kernel 'v9' (allowed: v1, v2" -- simt --kernel v9 --rows 8 --hidden 64 -q
expect_exit 2 "simt: --kernel: missing (allowed: v1" -- simt --rows 8 --hidden 64 -q
expect_exit 2 "simt: --dtype: v4 has no bf16 variant (allowed: fp32)" -- simt --kernel v4 --rows 8 --hidden 64 --dtype bf16 -q
expect_exit 2 "simt: --block: value 48 is not a whole number of warps" -- simt --kernel v5 --rows 8 --hidden 64 --block 48 -q
expect_exit 2 "simt: --hidden: v6 needs a multiple of 8" -- simt --kernel v6 --rows 8 --hidden 100 -q
expect_exit 2 "simt: --block: fast_ln picks its block from --hidden (allowed: 0 or 32 at hidden 768)" -- simt --kernel fast_ln --rows 8 --hidden 768 --block 256 -q
expect_exit 2 "simt: --hidden: 16384 exceeds bwd_twolevel's on-chip scheme (allowed: 8..8192 for fp32)" -- simt --kernel bwd_twolevel --rows 8 --hidden 16384 -q
printf 'lanes: 32\nasic: {l2: {capacity_bytes: 0}}\n' >"$T/l2zero.yaml"
printf 'lanes: 32\nasic: {l2: {size: 5}}\n' >"$T/l2key.yaml"
expect_exit 2 "l2zero.yaml:2: key 'asic.l2.capacity_bytes': value 0 out of range" -- run --arch "$T/l2zero.yaml" -q
expect_exit 2 "l2key.yaml:2: key 'asic.l2.size': unknown key" -- run --arch "$T/l2key.yaml" -q
# An asic.l2 with one bad key (capacity 1000 B): exit 2 naming the file, the key and what is allowed.
bad_l2() {  # NAME 'KEY: VALUE' EXPECTED-MESSAGE-REGEX
  printf 'lanes: 32\nasic: {l2: {capacity_bytes: 1000, %s}}\n' "$2" >"$T/$1.yaml"
  expect_exit 2 "$1.yaml:2: key 'asic.l2.$3" -- run --arch "$T/$1.yaml" -q
}
bad_l2 l2repl "replacement: fifo" "replacement': .*(allowed: lru, measured)"
bad_l2 l2prio "store_priority: last" "store_priority': .*(allowed: normal, evict_first)"
bad_l2 l2rp "reread_priority: high" "reread_priority': .*(allowed: normal, evict_first)"
bad_l2 l2pool "evict_first_pool_bytes: 2000" "evict_first_pool_bytes': must lie within the capacity"
bad_l2 l2sw "store_weight: 2" "store_weight': value 2 out of range (allowed: \\[0, 1\\])"
bad_l2 l2st "sweep_steepness: 0" "sweep_steepness': value 0 must be > 0"
bad_l2 l2pd "reuse_steepness_per_doubling: 20" "reuse_steepness_per_doubling': value 20 out of range (allowed: \\[-16, 16\\])"
# asic.l1, likewise: its datapaths_per_cache cannot exceed the datapaths.
printf 'lanes: 32\nasic: {datapaths: 4, l1: {capacity_bytes: 4096, datapaths_per_cache: 8}}\n' >"$T/l1dp.yaml"
expect_exit 2 "l1dp.yaml:2: key 'asic.l1.datapaths_per_cache': value 8 out of range" -- run --arch "$T/l1dp.yaml" -q
printf 'lanes: 32\nasic: {l1: {capacity_bytes: 4096, reuse_steepness: -1}}\n' >"$T/l1st.yaml"
expect_exit 2 "l1st.yaml:2: key 'asic.l1.reuse_steepness': value -1 must be > 0" -- run --arch "$T/l1st.yaml" -q
printf 'lanes: 32\nasic: {l1: {ways: 4}}\n' >"$T/l1key.yaml"
expect_exit 2 "l1key.yaml:2: key 'asic.l1.ways': unknown key" -- run --arch "$T/l1key.yaml" -q
expect_exit 2 "give --workload W or both --rows N and --hidden C" -- simt --kernel v5 --rows 8 -q
expect_exit 2 "computes LayerNorm but .*llama3-70b.yaml is rmsnorm (allowed: rms_warp, rms_block, fast_rms)" -- simt --kernel v5 --workload "$W/llama3-70b.yaml" -q
expect_exit 2 "int8.yaml: input dtype int8 has no gpu_ref kernel (allowed: fp32, bf16)" -- simt --kernel v5 --workload "$W/int8.yaml" -q
expect_exit 2 "gpu0.yaml:2: key 'sms': value 0 out of range" -- simt --kernel v5 --rows 8 --hidden 64 --gpu "$T/gpu0.yaml" -q
printf 'l2: {store_weight: 2}\n' >"$T/gpuw.yaml"
printf 'kernel_tail_cycles: -1\n' >"$T/gputail.yaml"
printf 'issue_per_scheduler: 1.5\n' >"$T/gpuissue.yaml"
# The L2's reuse keys read as asic.l2's are (config/l2_reuse_keys): the same messages.
expect_exit 2 "gpuw.yaml:1: key 'l2.store_weight': value 2 out of range (allowed: \[0, 1\])" -- simt --kernel v5 --rows 8 --hidden 64 --gpu "$T/gpuw.yaml" -q
printf 'l2: {evict_first_pool_bytes: -1}\n' >"$T/gpupool.yaml"
expect_exit 2 "gpupool.yaml:1: key 'l2.evict_first_pool_bytes': must lie within the capacity" -- simt --kernel v5 --rows 8 --hidden 64 --gpu "$T/gpupool.yaml" -q
printf 'l1: {reuse_steepness: 0}\n' >"$T/gpul1.yaml"
expect_exit 2 "gpul1.yaml:1: key 'l1.reuse_steepness': value 0 must be > 0" -- simt --kernel v5 --rows 8 --hidden 64 --gpu "$T/gpul1.yaml" -q
# The epilogue's L2 rates: a bad value, and the per-operation key the sector rate replaced.
printf 'l2: {atomic_ns_per_sector: 0}\n' >"$T/gpuat.yaml"
expect_exit 2 "gpuat.yaml:1: key 'l2.atomic_ns_per_sector': value 0 must be > 0" -- simt --kernel v5 --rows 8 --hidden 64 --gpu "$T/gpuat.yaml" -q
printf 'l2: {scattered_store_ops_per_ns: 100}\n' >"$T/gpuold.yaml"
expect_exit 2 "gpuold.yaml:1: key 'l2.scattered_store_ops_per_ns': unknown key .*scattered_store_sectors_per_ns" -- simt --kernel v5 --rows 8 --hidden 64 --gpu "$T/gpuold.yaml" -q
# rows_in_flight: 1..65536.
expect_exit 2 "key 'asic.rows_in_flight': value 70000 out of range" -- run --arch "$A/asic-default.yaml" --set arch.asic.rows_in_flight=70000 --no-numerics -q
expect_exit 2 "gputail.yaml:1: key 'kernel_tail_cycles': value -1 must be >= 0" -- simt --kernel v5 --rows 8 --hidden 64 --gpu "$T/gputail.yaml" -q
expect_exit 2 "gpuissue.yaml:1: key 'issue_per_scheduler'.*allowed: (0, 1\]" -- simt --kernel v5 --rows 8 --hidden 64 --gpu "$T/gpuissue.yaml" -q
expect_exit 2 "simt takes GPU keys only" -- simt --kernel v5 --rows 8 --hidden 64 --set arch.lanes=4 -q
expect_exit 2 "gpu keys belong to .normsim simt." -- run --set gpu.sms=4 -q
expect_exit 2 "gpukey.yaml:2: key 'warps': unknown key" -- simt --kernel v5 --rows 8 --hidden 64 --gpu "$T/gpukey.yaml" -q
expect_exit 2 "index.json: cannot read the golden index" -- regress "$T" -q
expect_exit 2 "--gpu: 'a100' is neither a shipped gpu nor a file (allowed: h200, or a path" -- simt --kernel v5 --rows 8 --hidden 64 --gpu a100 -q
# --gpu takes a shipped name; the report names the arch and every override.
"$N" simt --kernel block_reread --rows 16384 --hidden 8192 --gpu h200 --set gpu.l2.bytes=50331648 >"$T/simt.txt" || bad "simt --gpu h200"
grep -q "on h200 (<shipped: workloads/arch/h200.yaml>, --set gpu.l2.bytes=50331648)" "$T/simt.txt" && ok || bad "simt names the arch and its overrides"
grep -Eq "prediction: on the L2 cliff" "$T/simt.txt" && grep -Eq "DRAM bytes read +[0-9]+  bytes  \[[0-9]+, [0-9]+\]" "$T/simt.txt" && ok || bad "simt prints the cliff and ranges"
"$N" simt --kernel fast_ln --rows 4096 --hidden 4096 | grep -q "prediction: firm" && ok || bad "simt prints a firm prediction"
"$N" simt --kernel rms_warp --workload "$W/llama3-70b.yaml" --json -q >"$T/simt.json" 2>/dev/null || bad "simt --json failed"
/usr/bin/python3 - "$T/simt.json" <<'PY' && ok || bad "simt --json contract"
import json, sys
j = json.load(open(sys.argv[1]))
p = j["prediction"]
assert j["kernel"] == "rms_warp" and j["rows"] == 8192 and j["hidden"] == 8192 and j["dtype"] == "bf16", j
for k in ("dram_bytes_read", "dram_bytes_written", "l2_bytes", "duration_us", "cycles"):
    assert p[k] > 0, k
# rms_warp reads x at least once: the compulsory bytes are a lower bound.
assert p["dram_bytes_read"] >= 8192 * 8192 * 2, p
# One launch that reads x twice from global memory, and gamma (fp32) once.
(l,) = j["launches"]
assert (l["global_passes"], l["input_bytes"], l["param_bytes"]) == (2, 8192 * 8192 * 2, 8192 * 4), l
assert 0 <= l["l1_hit"] <= 1 and 0 <= l["l2_hit"] <= 1, l
# One launch: the case's DRAM-read elasticity is the launch's, and a
# re-reading kernel's is never negative.
assert p["dram_read_elasticity"] == l["dram_read_elasticity"] >= 0, (p, l)
# Every predicted counter with its range, and the arch it came from.
for k in ("dram_bytes_read", "dram_bytes_written", "l2_bytes", "duration_us"):
    assert 0 <= j["range"][k]["lo"] <= p[k] <= j["range"][k]["hi"], (k, j["range"][k], p[k])
assert p["firmness"] in ("firm", "on the L2 cliff", "scattered stores"), p
assert j["gpu_arch"]["name"] == "h200" and j["gpu_arch"]["overrides"] == [], j["gpu_arch"]
PY
# --explain: warp states, the limiter and its direction; ncu's golden profile beside when a case ran the launch.
expect_exit 2 "simt: --golden: only with --explain" -- simt --kernel v4 --rows 1024 --hidden 4096 --golden "$S/gpu_ref/golden/h200" -q
expect_exit 2 "simt: --golden: $T/nogolden/index.json: missing" -- simt --kernel v4 --rows 1024 --hidden 4096 --explain --golden "$T/nogolden" -q
"$N" simt --kernel v4 --rows 1024 --hidden 4096 --explain --golden "$S/gpu_ref/golden/h200" >"$T/explain.txt" || bad "simt --explain"
grep -q "ncu's golden case v4_fp32_1024x4096_b256 beside" "$T/explain.txt" && grep -Eq "^    long_scoreboard +[0-9.]+% +88.6%$" "$T/explain.txt" &&
  grep -q "^  direction: more loads in flight" "$T/explain.txt" && ok || bad "simt --explain prints ncu beside and the direction"
"$N" simt --kernel v4 --rows 1000 --hidden 4096 --explain --golden "$S/gpu_ref/golden/h200" --json -q >"$T/explain.json" || bad "simt --explain --json"
/usr/bin/python3 - "$T/explain.json" <<'PY' && ok || bad "simt --explain --json contract"
import json, sys
e = json.load(open(sys.argv[1]))["explain"]
p = e["predicted"]
assert e["ncu"] is None and e["ncu_case"] is None, e  # no golden case ran 1000 rows
assert abs(sum(p["stall_share"].values()) - 1) < 1e-9, p
assert p["limiter"] in ("dram_bandwidth", "latency", "synchronisation", "spills", "issue") and p["direction"], p
assert 0 < p["achieved_occupancy"] <= 1 and 0 < p["issue_active"] < 1 and len(e["launches"]) == 1, e
PY
# calibrate: the committed H200 records make an arch file that simt and regress take.
expect_exit 2 "calibrate: -o: missing" -- calibrate "$S/gpu_ref/golden/h200" -q
expect_exit 2 "device.json\|env.json: missing" -- calibrate "$T" -o "$T/none.yaml" -q
"$N" calibrate "$S/gpu_ref/golden/h200" -o "$T/mygpu.yaml" -q && [ -f "$T/mygpu.yaml" ] && ok || bad "calibrate from the golden records"
grep -q "^name: mygpu" "$T/mygpu.yaml" && grep -q "bytes_per_s: .*# measured: copy.jsonl" "$T/mygpu.yaml" && ok || bad "calibrate's file names its sources"
"$N" simt --kernel v5 --rows 4096 --hidden 4096 --gpu "$T/mygpu.yaml" | grep -q "on mygpu ($T/mygpu.yaml)" && ok || bad "simt --gpu on a calibrated file"
# regress on the committed golden data: tests/cli/test_regress_gate.sh (the regress_gate test).
expect_exit 0 "" -- --version
expect_exit 0 "" -- --help

# A failed run leaves a previous good report untouched.
"$N" run "$W/bert-large.yaml" --arch "$A/fp32.yaml" --out "$T/rep" -q >/dev/null || bad "good run failed"
cp "$T/rep/report.json" "$T/good.json"
"$N" run "$T/zero.yaml" --out "$T/rep" -q 2>/dev/null; [ $? = 2 ] || bad "bad run did not exit 2"
cmp -s "$T/rep/report.json" "$T/good.json" && ok || bad "failed run touched report.json"
ls "$T/rep" | grep -q tmp && bad "temporary file left behind" || ok
head -1 "$T/rep/report.csv" | grep -q "numerics.max_ulp_error \[ulp\]" && ok || bad "CSV header lacks units"

# --json prints exactly one JSON object with the contract's keys.
"$N" run "$W/cancellation.yaml" --arch "$A/fp32.yaml" --algorithm single-pass --json -q >"$T/sp.json" || bad "single-pass run"
"$N" run "$W/cancellation.yaml" --arch "$A/fp32.yaml" --algorithm welford --json -q >"$T/wf.json" || bad "welford run"
if /usr/bin/python3 -c 'import json' 2>/dev/null; then
  /usr/bin/python3 - "$T/sp.json" "$T/wf.json" <<'PY' && ok || bad "JSON contract / cancellation claim"
import json, sys
sp, wf = (json.load(open(p)) for p in sys.argv[1:3])
for r in (sp, wf):
    for k in ("workload", "arch", "numerics"):
        assert k in r, k
    for k in ("name", "norm", "rows", "hidden"):
        assert k in r["workload"], k
    for k in ("algorithm", "rel_l2_error", "max_abs_error", "max_ulp_error", "frac_within_1ulp",
              "overflow", "negative_variance_clamps"):
        assert k in r["numerics"], k
e_sp, e_wf = sp["numerics"]["rel_l2_error"], wf["numerics"]["rel_l2_error"]
assert e_sp >= 1000 * e_wf, (e_sp, e_wf)
PY
fi

# Seed 001 section 38 through --set: a 24-bit square-sum accumulator overflows
# on int8 rows of 4096, the shipped 26-bit one does not.
ovf() { "$N" run "$W/int8.yaml" --arch "$A/int8-fixed.yaml" --set workload.rows=8 --set "arch.formats.sumsq.bits=$1" --json -q |
        sed 's/.*"overflow":{[^}]*"sumsq":\([0-9]*\).*/\1/'; }
[ "$(ovf 26)" = 0 ] && ok || bad "26-bit sumsq overflowed"
[ "$(ovf 24)" -gt 0 ] && ok || bad "24-bit sumsq did not overflow"

# --save-outputs writes .npy files NumPy can load.
"$N" run "$W/bert-large.yaml" --out "$T/npy" --save-outputs -q >/dev/null || bad "save-outputs run"
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  /usr/bin/python3 -c "
import numpy as n
y = n.load('$T/npy/y.npy'); m = n.load('$T/npy/mean.npy'); r = n.load('$T/npy/rstd.npy')
assert y.shape == (4096, 1024) and m.shape == (4096,) and r.shape == (4096,), (y.shape, m.shape)
assert abs(float(y.std()) - 1.0) < 0.1
" && ok || bad "numpy cannot load the outputs"
fi

# Outputs in the output's dtype (bf16 as its uint16 bits), inputs in the input's and the fp64
# reference with --save-inputs; a run from the saved x.npy (input.file) reproduces the run; the
# numerics are the same bits on 1 and 2 threads, the ASIC model's and the functional run's alike.
"$N" run "$W/llama2-7b.yaml" --arch "$AD" --set workload.seq=24 --out "$T/sv" --save-outputs --save-inputs --threads 2 --json -q >"$T/sv.json" || bad "save-inputs run"
"$N" run "$W/llama2-7b.yaml" --arch "$AD" --set workload.seq=24 --threads 1 --json -q >"$T/sv1.json" || bad "1-thread run"
printf 'name: from-file\nnorm: rmsnorm\nhidden: 4096\neps: 1.0e-5\nseed: 3\ninput: {file: %s}\noutput: {dtype: bf16}\ngamma: {kind: normal, mean: 1.0, sigma: 0.1}\nbeta: none\n' "$T/sv/x.npy" >"$T/fromfile.yaml"
"$N" run "$T/fromfile.yaml" --arch "$AD" --json -q >"$T/ff.json" || bad "run from x.npy"
/usr/bin/python3 - "$T" <<'PY' && ok || bad "saved dtypes, input.file round trip or thread count"
import json, sys
import numpy as n
t = sys.argv[1]
x, y, r = n.load(f"{t}/sv/x.npy"), n.load(f"{t}/sv/y.npy"), n.load(f"{t}/sv/y_ref.npy")
assert x.dtype == n.uint16 and y.dtype == n.uint16 and r.dtype == n.float64 and x.shape == y.shape == r.shape == (24, 4096)
yf = (y.astype(n.uint32) << 16).view(n.float32)
a, b, f = (json.load(open(f"{t}/{k}.json")) for k in ("sv", "sv1", "ff"))
assert a["numerics"] == b["numerics"], (a["numerics"], b["numerics"])
assert a["timing"] == b["timing"]
err = float(n.sqrt(((yf - r) ** 2).sum() / (r ** 2).sum()))
assert abs(err - a["numerics"]["rel_l2_error"]) < 1e-9 * max(err, 1e-12), (err, a["numerics"]["rel_l2_error"])
assert f["workload"]["rows"] == 24 and f["workload"]["input_distribution"]["kind"] == "file"
for k in ("rel_l2_error", "max_ulp_error", "overflow"):
    assert f["numerics"][k] == a["numerics"][k], (k, f["numerics"][k], a["numerics"][k])
PY
"$N" compare "$W/llama2-7b.yaml" --set workload.seq=16 --out "$T/cmpcsv" -q >/dev/null || bad "compare --out"
# One name per quantity: every figure column of sweep.csv is a column of run's report.csv.
/usr/bin/python3 - "$T/sw/sweep.csv" "$T/sv/report.csv" "$T/cmpcsv/compare.csv" <<'PY' && ok || bad "sweep.csv, compare.csv and report.csv name a quantity differently"
import csv, sys
run = set(next(csv.reader(open(sys.argv[2]))))
for f in (sys.argv[1], sys.argv[3]):
    cols = next(csv.reader(open(f)))
    figures = [c for c in cols if c.split(".")[0] in ("timing", "traffic", "area", "energy", "numerics")]
    assert len(figures) > 15, (f, figures)
    missing = [c for c in figures if c not in run]
    assert not missing, (f, missing)
rows = list(csv.DictReader(open(sys.argv[3])))
assert [r["path"] for r in rows] == ["sram-replay", "dram-reread", "partial-replay"], rows
assert "numerics.rel_l2_error [1]" in rows[0]
PY
expect_exit 2 "fromfile.yaml:.*key 'input.file'.*holds 24 rows but the workload has 5" -- run "$T/fromfile.yaml" --set workload.rows=5 -q
expect_exit 2 "needs --out" -- run --save-inputs -q
# --set workload.rows on a batch/seq workload replaces them.
"$N" run "$W/llama2-7b.yaml" --set workload.rows=16 --json -q | grep -q '"rows":16' && ok || bad "--set workload.rows on batch x seq"

# widths: the chosen formats as an arch run accepts, every evaluation in the CSV, bad input exit 2.
"$N" widths "$W/llama2-7b.yaml" --set workload.seq=64 --target 'max_ulp<=1' --target 'rel_l2<=2e-3' --sample-rows 16 --out "$T/wd" --json -q >"$T/wd.json" || bad "widths"
"$N" run "$W/llama2-7b.yaml" --set workload.seq=64 --arch "$T/wd/arch.yaml" --json -q >"$T/wdrun.json" || bad "run the widths arch"
/usr/bin/python3 - "$T" <<'PY' && ok || bad "widths contract"
import csv, json, sys
t = sys.argv[1]
j, r = json.load(open(f"{t}/wd.json")), json.load(open(f"{t}/wdrun.json"))
rows = list(csv.DictReader(open(f"{t}/wd/widths.csv")))
assert len(rows) == len(j["evaluations"]) > 10, (len(rows), len(j["evaluations"]))
assert j["chosen"]["datapath_mm2"] < j["start"]["datapath_mm2"] and j["datapath_mm2_saved"] > 0
assert j["chosen"]["all_rows"]["max_ulp_error"] <= 1 and j["chosen"]["all_rows"]["rel_l2_error"] <= 2e-3
assert sum(r["numerics"]["overflow"].values()) == 0
for s, f in j["chosen"]["formats"].items():
    assert r["arch"]["formats"][s]["bits"] == f["bits"] and r["arch"]["formats"][s]["frac"] == f["frac"], s
assert abs(r["area"]["datapath_mm2"] - j["chosen"]["datapath_mm2"]) < 1e-12
PY
"$N" widths --set workload.seq=16 --target 'max_ulp<=1' --sample-rows 8 --progress >/dev/null 2>"$T/wprog.txt" &&
  grep -q "widths: [0-9]* evaluations, round 0, confirm" "$T/wprog.txt" && ok || bad "widths --progress: $(cat "$T/wprog.txt")"
expect_exit 2 "target 'max_ulp<1'.*allowed: max_ulp<=V" -- widths --target 'max_ulp<1' -q
expect_exit 2 "key 'arithmetic': widths searches fixed-point formats" -- widths --arch "$A/fp32.yaml" --target 'max_ulp<=1' -q
expect_exit 2 "stages 'xh': not a stage of this datapath's formats (allowed: input, " -- widths --target 'max_ulp<=1' --stages input,xh -q

# A VCD trace of the first rows opens as a VCD (header, declared signals, time steps).
"$N" run "$W/llama2-7b.yaml" --arch "$AD" --set workload.seq=16 --trace "$T/wave.vcd" -q >/dev/null || bad "trace run"
grep -q '\$enddefinitions' "$T/wave.vcd" && grep -q "bytes_read" "$T/wave.vcd" && grep -q "^#[0-9]" "$T/wave.vcd" && ok || bad "VCD trace malformed"

# compare: one table row per path, and JSON with one report per path.
"$N" compare "$W/llama2-7b.yaml" --arch "$AD" --set workload.seq=32 -q >"$T/cmp.txt" || bad "compare"
[ "$(grep -cE '^(sram-replay|dram-reread|partial-replay) ' "$T/cmp.txt")" = 3 ] && ok || bad "compare table: $(cat "$T/cmp.txt")"
"$N" compare "$W/llama2-7b.yaml" --arch "$AD" --set workload.seq=32 --json -q >"$T/cmp.json" || bad "compare --json"
/usr/bin/python3 -c "
import json; j=json.load(open('$T/cmp.json'))
assert [p['path'] for p in j['paths']] == ['sram-replay', 'dram-reread', 'partial-replay']
for p in j['paths']:
    assert p['traffic']['dram_bytes_read'] == p['traffic']['expected_dram_bytes_read']
    for k in ('cycles', 'clock_ghz', 'time_us', 'stall_cycles'): assert k in p['timing'], k
    for k in ('node', 'total_mm2', 'sram_mm2', 'datapath_mm2'): assert k in p['area'], k
    assert p['energy']['total_uj'] > 0
    e = p['energy']
    # Leakage: the design's power for the run's time (mW x us = nJ), in the total.
    assert e['leakage_mw'] > 0 and abs(e['leakage_uj'] - e['leakage_mw'] * p['timing']['time_us'] * 1e-3) <= 1e-12 * e['leakage_uj']
    parts = sum(e[k] for k in ('dram_uj', 'sram_uj', 'datapath_uj', 'residual_add_uj', 'dropout_mask_uj', 'clock_uj', 'leakage_uj'))
    assert abs(e['total_uj'] - parts) <= 1e-12 * parts, (e['total_uj'], parts)
" && ok || bad "compare JSON"

# area: by default the SRAM `run` costs (the path's need), said so; --sram
# configured costs the arch's capacity; the two reports agree with run.
"$N" run "$W/llama3-70b.yaml" --arch "$AD" --set arch.lanes=4 --no-numerics --json -q >"$T/a_run.json" || bad "run for area"
"$N" area "$W/llama3-70b.yaml" --arch "$AD" --set arch.lanes=4 --json -q >"$T/a_req.json" || bad "area"
"$N" area "$W/llama3-70b.yaml" --arch "$AD" --set arch.lanes=4 --sram configured --json -q >"$T/a_cfg.json" || bad "area --sram configured"
/usr/bin/python3 - "$T/a_run.json" "$T/a_req.json" "$T/a_cfg.json" <<'PY' && ok || bad "area costs what run costs"
import json, sys
run, req, cfg = (json.load(open(f)) for f in sys.argv[1:])
assert req["sram_costed"] == "required" and cfg["sram_costed"] == "configured", (req["sram_costed"], cfg["sram_costed"])
assert req["total_mm2"] == run["area"]["total_mm2"], (req["total_mm2"], run["area"]["total_mm2"])
assert req["sram_bytes"] == run["area"]["sram_required_bytes"] == req["sram_required_bytes"]
assert cfg["sram_bytes"] == cfg["sram_capacity_bytes"] == run["area"]["sram_capacity_bytes"]
assert cfg["total_mm2"] > req["total_mm2"]
PY
"$N" area --arch "$AD" -q | grep -q "what sram-replay needs, as run costs it" && ok || bad "area text names the SRAM it costs"
expect_exit 2 "key 'asic': missing: --path and --sram" -- area --arch "$A/fixed16.yaml" --sram configured -q
expect_exit 2 "merge.units': value 16 is more than the tree's 15 nodes.*allowed: 1..15" -- run --arch "$AD" --set arch.merge.units=16 -q
expect_exit 2 "merge.units': value 0 out of range.*allowed: 1..4095" -- run --arch "$AD" --set arch.merge.units=0 -q
# merge units: the same numerics, fewer merge nodes; one unit less area, more latency.
"$N" run "$W/gpt2-small.yaml" --arch "$AD" --set workload.seq=64 --json -q >"$T/m15.json" || bad "run dedicated tree"
"$N" run "$W/gpt2-small.yaml" --arch "$AD" --set workload.seq=64 --set arch.merge.units=1 --json -q >"$T/m1.json" || bad "run shared merge"
/usr/bin/python3 - "$T/m15.json" "$T/m1.json" <<'PY' && ok || bad "merge units report"
import json, sys
d, s = (json.load(open(f)) for f in sys.argv[1:])
assert d["arch"]["merge"] == {"units": 15} and s["arch"]["merge"] == {"units": 1}
assert d["numerics"] == s["numerics"], "the merge units changed the numerics"
assert "chan_merge_tree" in d["area"]["units"] and "merge_sequencer" in s["area"]["units"]
assert s["area"]["datapath_mm2"] < 0.6 * d["area"]["datapath_mm2"]
assert s["timing"]["cycles"] >= d["timing"]["cycles"]
PY

# compare: a path that cannot be built is a row with its reason (exit 0); at an
# SRAM budget every design fits it; at a target every design meets it.
"$N" compare "$W/long-row.yaml" --arch "$AD" --no-numerics -q >"$T/lr.txt" || bad "compare with infeasible paths exits non-zero"
grep -qE '^sram-replay +infeasible: .*needs at least 1310720 B' "$T/lr.txt" && grep -qE '^dram-reread +[0-9]' "$T/lr.txt" && ok || bad "infeasible row: $(cat "$T/lr.txt")"
"$N" compare "$W/long-row.yaml" --arch "$AD" --sram-budget 1048576 --no-numerics --json -q >"$T/budget.json" || bad "compare --sram-budget"
"$N" compare "$W/llama2-7b.yaml" --arch "$AD" --set workload.seq=256 --target-cycles 70000 --no-numerics --json -q >"$T/target.json" || bad "compare --target-cycles"
/usr/bin/python3 - "$T/budget.json" "$T/target.json" <<'PY' && ok || bad "compare at a budget / target"
import json, sys
b, t = (json.load(open(f)) for f in sys.argv[1:])
assert b["mode"] == "sram_budget" and b["sram_budget_bytes"] == 1048576
assert [p["path"] for p in b["paths"]] == ["sram-replay", "dram-reread", "partial-replay"]
for p in b["paths"]:
    assert "infeasible" not in p, p
    assert p["area"]["sram_required_bytes"] <= 1048576 and p["fit"]["sram_required_bytes"] == p["area"]["sram_required_bytes"]
    assert p["arch"]["asic"]["rows_in_flight"] == p["fit"]["rows_in_flight"]
    assert p["traffic"]["dram_bytes_read"] == p["traffic"]["expected_dram_bytes_read"]
# more SRAM replayed, less DRAM read
rd = {p["path"]: p["traffic"]["dram_bytes_read"] for p in b["paths"]}
assert rd["sram-replay"] < rd["partial-replay"] < rd["dram-reread"], rd
assert t["mode"] == "target_cycles" and t["target_cycles"] == 70000
for p in t["paths"]:
    if "infeasible" in p:
        assert "the target is 70000" in p["infeasible"], p
        continue
    assert p["timing"]["cycles"] <= 70000, p["timing"]["cycles"]
    assert p["area"]["sram_required_bytes"] == p["arch"]["asic"]["sram"]["capacity_bytes"]
assert any("infeasible" not in p for p in t["paths"])
PY
# The one-screen answer: the pick of all, of each path, of each dgamma/dbeta
# path, each the best of the rows compare ran in its mode's order, with what
# binds it; DRAM re-read searched over its rows in flight at a budget and a
# target (at 1 configured row it ran 3097164 cycles, and 1600000 was out of reach).
"$N" compare "$W/llama2-7b.yaml" --arch "$AD" --sram-budget 65536 --no-numerics --set arch.asic.rows_in_flight=1 --json -q \
  >"$T/picks_budget.json" || bad "compare --sram-budget (picks)"
"$N" compare "$W/llama2-7b.yaml" --arch "$AD" --target-cycles 1600000 --no-numerics --set arch.asic.rows_in_flight=1 --json -q \
  >"$T/picks_target.json" || bad "compare --target-cycles (picks)"
"$N" compare "$W/llama2-7b-bwd.yaml" --arch "$AD" --no-numerics --json -q >"$T/picks_bwd.json" || bad "compare a backward (picks)"
/usr/bin/python3 - "$T/picks_budget.json" "$T/picks_target.json" "$T/picks_bwd.json" <<'PY' && ok || bad "compare picks"
import json, sys
for f in sys.argv[1:]:
    c = json.load(open(f))
    rows = c["paths"]
    target = c["mode"] == "target_cycles"
    def key(r):
        k = (r["timing"]["cycles"], r["area"]["total_mm2"], r["energy"]["total_uj"])
        return (r["area"]["sram_required_bytes"],) + k if target else k
    def best(rs):
        ok = [(key(r), i) for i, r in rs if "infeasible" not in r]
        return min(ok)[1] if ok else None
    picks = {p["of"]: p for p in c["picks"]}
    assert picks["all"]["row"] == best(enumerate(rows)), (f, picks["all"])
    for p in ("sram-replay", "dram-reread", "partial-replay"):
        b = best((i, r) for i, r in enumerate(rows) if r["path"] == p)
        if b is not None:
            assert picks["path " + p]["row"] == b and picks["path " + p]["path"] == p, (f, p)
    for p in c["picks"]:
        assert p["why"], p
    if "param_grad" in rows[0]:
        for g in ("onchip", "partials", "dram_rmw"):
            assert picks["param_grad " + g]["row"] == best((i, r) for i, r in enumerate(rows) if r["param_grad"] == g), g
b, t = (json.load(open(f)) for f in sys.argv[1:3])
rr = next(r for r in b["paths"] if r["path"] == "dram-reread")
assert rr["fit"]["rows_in_flight"] > 1 and rr["timing"]["cycles"] <= 1573476, (rr["fit"], rr["timing"]["cycles"])
assert rr["fit"]["rows_that_fit"] == 4096, rr["fit"]
tr = next(r for r in t["paths"] if r["path"] == "dram-reread")
assert "infeasible" not in tr and tr["timing"]["cycles"] <= 1600000, tr.get("infeasible")
PY
"$N" compare "$W/llama2-7b.yaml" --arch "$AD" --sram-budget 65536 --no-numerics -q >"$T/picks.txt" || bad "compare picks (text)"
grep -q "^picks (the fewest cycles, then area, energy):" "$T/picks.txt" && grep -qE "^  all +.* cycles, [0-9]+ B; " "$T/picks.txt" &&
  [ "$(grep -c "^  path " "$T/picks.txt")" = 3 ] && ok || bad "compare picks (text): $(tail -5 "$T/picks.txt")"
expect_exit 2 "allowed: one of them" -- compare --sram-budget 4096 --target-cycles 100 -q

# Fusion: a residual workload fused into the unit against the separate adder,
# every path; the closed forms (docs/ASIC.md, "Fusion"), the refused mode a row.
"$N" compare "$W/postnorm-7b.yaml" --arch "$AD" --fuse all --set workload.seq=64 --no-numerics --json -q >"$T/fuse.json" || bad "compare --fuse all"
"$N" compare "$W/postnorm-7b.yaml" --arch "$AD" --fuse all --set workload.seq=64 --no-numerics -q >"$T/fuse.txt" || bad "compare --fuse all (table)"
[ "$(grep -cE '^(none|residual|residual_dropout) +(sram-replay|dram-reread|partial-replay) ' "$T/fuse.txt")" = 9 ] && ok || bad "fuse table: $(cat "$T/fuse.txt")"
/usr/bin/python3 - "$T/fuse.json" <<'PY' && ok || bad "compare --fuse: the closed forms"
import json, sys
rows = json.load(open(sys.argv[1]))["paths"]
assert [(r["fuse"], r["path"]) for r in rows] == [(f, p) for f in ("none", "residual", "residual_dropout")
                                                 for p in ("sram-replay", "dram-reread", "partial-replay")]
N, C, x, r, z, y = 64, 4096, 2, 2, 2, 2
got = {}
for row in rows:
    if row["fuse"] == "residual":
        assert "residual_dropout" in row["infeasible"], row  # the workload has dropout
        continue
    t = row["traffic"]
    f = {"sram-replay": 1.0, "dram-reread": 0.0, "partial-replay": 0.5}[row["path"]]
    P, S = C * (2 + 2), N * 8  # gamma and beta at their 16-bit formats
    if row["fuse"] == "none":
        read, written = N*C*(x + r) + (2 - f)*N*C*z + P, N*C*z + N*C*y + S
    else:
        read, written = N*C*(x + r) + (1 - f)*N*C*z + P, N*C*y + S + (1 - f)*N*C*z
    assert (t["dram_bytes_read"], t["dram_bytes_written"]) == (read, written), (row["fuse"], row["path"], t)
    assert row["fusion"]["fuse"] == row["fuse"]
    got[(row["fuse"], row["path"])] = (t["dram_bytes_read"] + t["dram_bytes_written"], row["timing"]["cycles"], row["area"]["fusion_mm2"])
for p in ("sram-replay", "dram-reread", "partial-replay"):
    none, fused = got[("none", p)], got[("residual_dropout", p)]
    f = {"sram-replay": 1.0, "dram-reread": 0.0, "partial-replay": 0.5}[p]
    assert none[0] - fused[0] == (1 + f) * N * C * z, p  # z's write and read; a re-read of z must write it first
    assert fused[1] < none[1], p                     # bandwidth-bound: fewer bytes, fewer cycles
    assert none[2] == 0 < fused[2], p                # the adder and the mask generator are this unit's
PY
# compare --across: each path once per design, the keys' values paired; the
# RSQRT unit's linear seed and one Newton step beside the table seed's two.
"$N" compare "$W/gpt2-small.yaml" --arch "$AD" --set workload.seq=16 --across arch.rsqrt.seed=table,linear \
  --across arch.rsqrt.iterations=2,1 --json -q >"$T/across.json" || bad "compare --across"
/usr/bin/python3 - "$T/across.json" <<'PY' && ok || bad "compare --across contract"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["across"] == ["arch.rsqrt.seed", "arch.rsqrt.iterations"], c["across"]
rows = c["paths"]
assert [(r["arch.rsqrt.seed"], r["arch.rsqrt.iterations"]) for r in rows] == [("table", "2")] * 3 + [("linear", "1")] * 3
for t, l in zip(rows[:3], rows[3:]):
    assert t["path"] == l["path"]
    assert t["arch"]["rsqrt"] == {"seed": "table", "iterations": 2, "table_bits": 8, "nr_frac_bits": 28, "unit": "newton"}, t["arch"]["rsqrt"]
    assert l["arch"]["rsqrt"]["seed"] == "linear" and l["arch"]["rsqrt"]["iterations"] == 1
    # the same stages (a multiply-add for a Newton step), twice the seed ROM: more area, the same cycles here
    assert l["timing"]["cycles"] == t["timing"]["cycles"], (l["timing"]["cycles"], t["timing"]["cycles"])
    assert l["area"]["datapath_mm2"] != t["area"]["datapath_mm2"]
    assert l["numerics"]["rel_l2_error"] < 1e-3 and t["numerics"]["rel_l2_error"] < 1e-3
PY
# The lut_step RSQRT unit beside the Newton unit: the same cycles, a
# smaller datapath (narrow products for a deeper ROM), both accurate.
"$N" compare "$W/gpt2-small.yaml" --arch "$AD" --set workload.seq=16 --across arch.rsqrt.unit=newton,lut_step \
  --across arch.rsqrt.table_bits=8,10 --across arch.rsqrt.iterations=2,1 --across arch.rsqrt.nr_frac_bits=28,26 \
  --json -q >"$T/across_lut.json" || bad "compare --across arch.rsqrt.unit"
/usr/bin/python3 - "$T/across_lut.json" <<'PY' && ok || bad "compare --across arch.rsqrt.unit contract"
import json, sys
rows = json.load(open(sys.argv[1]))["paths"]
assert [r["arch.rsqrt.unit"] for r in rows] == ["newton"] * 3 + ["lut_step"] * 3
for t, l in zip(rows[:3], rows[3:]):
    assert l["arch"]["rsqrt"] == {"seed": "table", "iterations": 1, "table_bits": 10, "nr_frac_bits": 26, "unit": "lut_step"}
    assert l["timing"]["cycles"] == t["timing"]["cycles"]
    assert l["area"]["datapath_mm2"] < t["area"]["datapath_mm2"], (l["area"]["datapath_mm2"], t["area"]["datapath_mm2"])
    assert l["numerics"]["rel_l2_error"] < 1e-3 and t["numerics"]["rel_l2_error"] < 1e-3
PY
"$N" compare "$W/gpt2-small.yaml" --arch "$AD" --set workload.seq=16 --across arch.rsqrt.seed=table,linear --no-numerics -q \
  >"$T/across.txt" || bad "compare --across (table)"
head -3 "$T/across.txt" | tail -1 | grep -q "^arch.rsqrt.seed *path " && [ "$(grep -c "^linear " "$T/across.txt")" = 3 ] && ok ||
  bad "compare --across table: $(cat "$T/across.txt")"
expect_exit 2 "--across: 'rsqrt.seed=linear' is not an arch key" -- compare --across rsqrt.seed=linear -q
expect_exit 2 "value 'linear' given twice" -- compare --across arch.rsqrt.seed=linear,linear -q
expect_exit 2 "1 values against arch.rsqrt.seed's 2" -- compare --across arch.rsqrt.seed=table,linear --across arch.rsqrt.iterations=1 -q
expect_exit 2 "key arch.lanes given twice" -- compare --across arch.lanes=8,16 --across arch.lanes=16,8 -q
expect_exit 2 "rsqrt.seed" -- compare --across arch.rsqrt.seed=table,cubic -q
expect_exit 2 "--fuse: unknown mode 'sideways'" -- compare "$W/postnorm-7b.yaml" --fuse none,sideways -q
expect_exit 2 "has no residual stream" -- compare "$W/llama2-7b.yaml" --fuse all -q
expect_exit 2 "key 'fuse.mode'" -- run "$W/llama2-7b.yaml" --set arch.fuse.mode=residual -q
expect_exit 2 "key 'residual.dropout'" -- run "$W/postnorm-7b.yaml" --set workload.residual.dropout=1.5 -q

# The backward (docs/ASIC.md, "Backward"): compare's rows are path x
# param_grad, each meeting its closed form; --save-outputs writes dx and the
# gradients; what the backward does not have yet is refused with one line.
"$N" compare "$W/bert-large-bwd.yaml" --set workload.batch=1 --set workload.seq=64 --json -q >"$T/bwd.json" || bad "compare a backward"
/usr/bin/python3 - "$T/bwd.json" <<'PY' && ok || bad "compare backward contract"
import json, sys
rows = json.load(open(sys.argv[1]))["paths"]
assert [(r["param_grad"], r["path"]) for r in rows] == [(g, p) for g in ("onchip", "partials", "dram_rmw")
                                                        for p in ("sram-replay", "dram-reread", "partial-replay")], rows
N, C, x, P, acc = 64, 1024, 2, 2, 6  # bf16 x, dy, dx; dgamma and dbeta, s48.18 accumulators
for r in rows:
    t, f = r["traffic"], {"sram-replay": 1.0, "dram-reread": 0.0, "partial-replay": 0.5}[r["path"]]
    reread = C - round(f * C)
    read = 2 * N * C * x + 2 * N * reread * x + C * 2 + N * 8
    written = N * C * x
    if r["param_grad"] == "onchip": written += P * C * 4
    if r["param_grad"] == "partials": read += P * C * acc; written += P * C * acc + P * C * 4  # one partial of 256 rows
    if r["param_grad"] == "dram_rmw": read += (N - 1) * P * C * acc; written += N * P * C * acc
    assert (t["dram_bytes_read"], t["dram_bytes_written"]) == (read, written), (r["param_grad"], r["path"], t)
    assert r["numerics"]["pass"] == "backward" and r["numerics"]["dgamma"]["elements"] == C and r["numerics"]["elements"] == N * C
    assert set(r["area"]["units"]) == {"row_sum_lanes", "param_grad_lanes", "row_sum_tree", "row_sum_tree_registers", "row_mean_unit", "dx_lanes"}, r["area"]["units"]
    assert (r["area"]["sram_required"]["accumulator"] > 0) == (r["param_grad"] != "dram_rmw")
PY
"$N" run "$W/llama2-7b-bwd.yaml" --set workload.seq=4 --save-outputs --out "$T/bwd" -q >/dev/null &&
  [ -f "$T/bwd/dx.npy" ] && [ -f "$T/bwd/dgamma.npy" ] && [ ! -f "$T/bwd/dbeta.npy" ] && ok || bad "run a backward --save-outputs"
# Every number of a backward's results carries its unit in the CSV header.
/usr/bin/python3 - "$T/bwd/report.csv" <<'PY' && ok || bad "a backward's report.csv columns without a unit"
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
def number(v):
    try:
        float(v)
        return True
    except ValueError:
        return False
bare = [k for k, v in row.items() if k.split(".")[0] in ("numerics", "area", "traffic", "timing", "energy") and number(v) and "[" not in k]
assert not bare, bare
for k in ("numerics.dgamma.max_ulp_error [ulp]", "numerics.dgamma.max_abs_error [gradient units]",
          "area.sram_required.accumulator [bytes]", "traffic.dram_bytes_by_kind.saved_stats [bytes]"):
    assert k in row, k
PY
# widths of a backward workload: the backward's formats, dx within the target,
# dgamma and dbeta held at the start's; `run` of the arch it writes reports
# what the search measured (no guards: the workload's own rows).
"$N" widths "$W/bert-large-bwd.yaml" --set workload.seq=32 --target 'max_ulp<=1' --guard none --sample-rows 16 --out "$T/wdb" --json -q >"$T/wdb.json" || bad "widths of a backward"
"$N" run "$W/bert-large-bwd.yaml" --set workload.seq=32 --arch "$T/wdb/arch.yaml" --json -q >"$T/wdbrun.json" || bad "run the backward widths arch"
/usr/bin/python3 - "$T" <<'PY' && ok || bad "widths of a backward: contract"
import json, sys
t = sys.argv[1]
j, r = json.load(open(f"{t}/wdb.json")), json.load(open(f"{t}/wdbrun.json"))
assert j["formats_key"] == "backward_formats" and "dx" in j["stages"] and "mean" not in j["stages"], j["stages"]
c = j["chosen"]["all_rows"]
assert c["max_ulp_error"] <= 1 and not j["start"]["meets"]
assert c["max_ulp_error"] == r["numerics"]["max_ulp_error"], (c["max_ulp_error"], r["numerics"]["max_ulp_error"])
assert c["held"]["dgamma_rel_l2_error"] == r["numerics"]["dgamma"]["rel_l2_error"]
assert c["held"]["dbeta_rel_l2_error"] == r["numerics"]["dbeta"]["rel_l2_error"]
for k in ("dgamma_rel_l2_error", "dbeta_rel_l2_error"):
    assert c["held"][k] <= 1.05 * j["start"]["all_rows"]["held"][k], k
for s, f in j["chosen"]["formats"].items():
    assert r["arch"]["backward_formats"][s]["bits"] == f["bits"] and r["arch"]["backward_formats"][s]["frac"] == f["frac"], s
assert j["chosen"]["datapath_mm2"] < j["start"]["datapath_mm2"]
PY
expect_exit 2 "stages 'mean': not a stage of this datapath's backward_formats" -- widths "$W/bert-large-bwd.yaml" --target 'max_ulp<=1' --stages mean -q
expect_exit 2 "--save-inputs: .*backward" -- run "$W/bert-large-bwd.yaml" --save-inputs --out "$T/bwdi" -q
sed '/^backward_formats:/,/^  dbeta:/d' "$AD" >"$T/nobwd.yaml"
expect_exit 2 "key 'backward_formats': missing" -- run "$W/bert-large-bwd.yaml" --arch "$T/nobwd.yaml" -q
expect_exit 2 "key 'backward': given, but the workload's pass is forward" -- run "$W/bert-large.yaml" --set workload.backward.dy.dtype=bf16 -q

# The fused Post-Norm backward with dropout: rows are fuse x param_grad x
# path; the branch's gradient is written beside dz (fused) or by a separate
# pass that reads dz back (none); the unit's branch scaler is area of its own.
"$N" compare "$W/postnorm-7b-bwd.yaml" --fuse none,residual_dropout --set workload.seq=16 --set workload.hidden=512 --json -q >"$T/pnb.json" || bad "compare a Post-Norm backward"
/usr/bin/python3 - "$T/pnb.json" <<'PY' && ok || bad "compare Post-Norm backward contract"
import json, sys
rows = json.load(open(sys.argv[1]))["paths"]
assert [(r["fuse"], r["param_grad"], r["path"]) for r in rows] == [(f, g, p) for f in ("none", "residual_dropout")
    for g in ("onchip", "partials", "dram_rmw") for p in ("sram-replay", "dram-reread", "partial-replay")], rows
N, C, x = 16, 512, 2
for r in rows:
    k = r["traffic"]["dram_bytes_by_kind"]
    assert k["branch_grad"] == N * C * x and k.get("branch_pass_read", 0) == (N * C * x if r["fuse"] == "none" else 0), (r["fuse"], k)
    assert k["input"] == N * C * x and k["residual"] == 0  # z kept by the forward: read as the input, r not read
    b = r["numerics"]["dbranch"]
    assert b["elements"] == N * C and 0 < b["dropped"] < N * C * 0.2 and b["dropout_p"] == 0.1 and b["max_ulp_error"] < 4, b
    assert ("branch_grad_scaler" in r["area"]["units"]) == (r["fuse"] == "residual_dropout"), r["area"]["units"]
PY
"$N" run "$W/postnorm-7b-bwd.yaml" --set workload.seq=4 --set arch.fuse.mode=residual_dropout --save-outputs --out "$T/pnbo" -q >/dev/null &&
  [ -f "$T/pnbo/dbranch.npy" ] && [ -f "$T/pnbo/dbeta.npy" ] && ok || bad "run a Post-Norm backward --save-outputs"
expect_exit 2 "key 'residual.dataflow': pre_norm with pass backward" -- run "$W/postnorm-7b-bwd.yaml" --set workload.residual.dataflow=pre_norm -q
expect_exit 2 "key 'fuse.mode': residual cannot apply" -- run "$W/postnorm-7b-bwd.yaml" --set arch.fuse.mode=residual -q
expect_exit 2 "fp32.yaml has no 'asic' section" -- run "$W/llama2-7b.yaml" --arch "$W/arch/fp32.yaml" --set arch.asic.clock_ghz=2 --no-numerics -q

# netlist: the design a run builds -- every unit of the run's registry with
# its ports, every channel with its writer and readers; JSON, text and dot agree.
"$N" netlist "$W/llama2-7b.yaml" --arch "$AD" --path dram-reread --json -q >"$T/nl_re.json" || bad "netlist --json"
"$N" netlist "$W/postnorm-7b.yaml" --arch "$AD" --set arch.fuse.mode=none --json -q >"$T/nl_sep.json" || bad "netlist separate adder"
"$N" netlist "$W/llama2-7b.yaml" --arch "$AD" --path sram-replay --dot "$T/nl.dot" -q >"$T/nl.txt" || bad "netlist --dot"
/usr/bin/python3 - "$T/nl_re.json" "$T/nl_sep.json" "$T/nl.dot" "$T/nl.txt" <<'PY' && ok || bad "netlist contents"
import json, sys
re_, sep = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
dot, txt = open(sys.argv[3]).read(), open(sys.argv[4]).read()
assert re_["report"] == "netlist" and re_["pass"] == "forward" and re_["path"] == "dram-reread", re_["pass"]
units = [u["name"] for u in re_["units"]]
assert units == ["input_path", "chan_merge_tree", "rsqrt", "welford_lanes", "normalize", "reread_stream"], units
ch = {c["name"]: c for c in re_["channels"]}
assert ch["reread_fifo"]["writer"] == {"unit": "reread_stream", "port": "to_output"}, ch["reread_fifo"]
assert ch["reread_fifo"]["readers"] == [{"unit": "normalize", "port": "reread"}]
assert ch["params_on_chip"]["kind"] == "signal" and ch["params_on_chip"]["depth_entries"] == 0
# every port of every unit names a channel whose side lists that unit and port
for u in re_["units"]:
    for p in u["ports"]:
        c = ch[p["channel"]]
        ends = [c["writer"]] if p["direction"] == "out" else c["readers"]
        assert {"unit": u["name"], "port": p["port"]} in ends, (u["name"], p)
assert sep["pass"] == "separate_adder" and sep["units"][0]["name"] == "residual_adder_pass", sep["units"][0]
sc = {c["name"]: c for c in sep["channels"]}
assert sc["adder_done"]["writer"]["unit"] == "residual_adder_pass"
assert sorted(r["unit"] for r in sc["adder_done"]["readers"]) == ["input_path", "welford_lanes"], sc["adder_done"]
assert dot.startswith("digraph netlist {") and '"input_path" -> "welford_lanes"' in dot, dot
assert "reread_stream" not in dot and "reread_stream" not in txt  # sram-replay: no re-read unit
assert "input_to_lanes" in txt and "input_path.to_lanes -> welford_lanes.from_input" in txt, txt
# Each unit's Verilog: the control the whole-unit RTL checks, the datapath beside it.
rtl = {u["name"]: u["rtl"] for u in re_["units"]}
assert rtl["input_path"][0] == "rtl_models/unit/input_path.v" and "rtl_models/normalize_affine.v" in rtl["normalize"], rtl
assert "rtl: unit/input_path.v, unit/handover_grants.v, residual_add.v, philox_mask.v" in txt, txt
assert '"normalize" [label="normalize\\nunit/normalize.v\\nnormalize_affine.v"];' in dot, dot
PY
"$N" netlist "$W/llama2-7b.yaml" --arch "$AD" --set arch.asic.rows_in_flight=3 --json -q | /usr/bin/python3 -c "
import json, sys
c = {c['name']: c for c in json.load(sys.stdin)['channels']}
assert c['free_row_buffers']['depth_entries'] == 3 and c['stats_to_normalize']['depth_entries'] == 3, c['free_row_buffers']
" && ok || bad "netlist depths follow the arch"
# Each unit shows its own section of keys, as the arch (and a --set) gave it.
"$N" netlist "$W/llama2-7b-bwd.yaml" --arch "$AD" --set arch.asic.row_mean.latency_cycles=7 --json -q | /usr/bin/python3 -c "
import json, sys
u = {u['name']: u['params'] for u in json.load(sys.stdin)['units']}
assert u['row_mean'] == {'latency_cycles': {'value': 7, 'unit': 'cycles'}}, u['row_mean']
assert u['param_grad_accumulator']['path']['value'] == 'onchip', u['param_grad_accumulator']
assert u['input_path'] == {}, u['input_path']
" && ok || bad "netlist: each unit's parameters"
expect_exit 2 "asic.latency.rsqrt_cycles.*moved.*asic.rsqrt.latency_cycles" -- run "$W/llama2-7b.yaml" --arch "$AD" \
  --set arch.asic.latency.rsqrt_cycles=12 -q
"$N" netlist "$W/postnorm-7b-bwd.yaml" --set arch.fuse.mode=none --json -q | /usr/bin/python3 -c "
import json, sys
r = json.load(sys.stdin)
phase = {u['name']: u['phase'] for u in r['units']}
assert r['pass'] == 'postnorm_backward', r['pass']
assert phase['branch_grad_pass'] == 'after_rows' and phase['row_sum_lanes'] == 'rows', phase
assert phase['param_grad_accumulator'] == 'rows_then_after_rows', phase
assert 'welford_lanes' not in phase and 'normalize' not in phase and 'rsqrt' not in phase, phase
assert list(phase)[-1] == 'branch_grad_pass', list(phase)
ch = {c['name']: c for c in r['channels']}
assert ch['columns_to_accumulator']['writer'] == {'unit': 'row_sum_lanes', 'port': 'param_grads'}, ch['columns_to_accumulator']
" && ok || bad "netlist of a backward: the after-rows passes"
dot -Tsvg "$T/nl.dot" -o "$T/nl.svg" && grep -q "<svg" "$T/nl.svg" && ok || bad "netlist dot renders (graphviz)"
# The control's RTL is the forward's: a backward's units (datapath RTL, no
# control RTL yet) are drawn dashed, the forward's solid.
"$N" netlist "$W/llama2-7b-bwd.yaml" --arch "$AD" --dot "$T/nl_bwd.dot" -q >/dev/null &&
  grep -q '"row_sum_lanes" \[label="row_sum_lanes\\nrow_sum_lane.v\\nbackward_operands.v", style=dashed\]' "$T/nl_bwd.dot" &&
  grep -q '"input_path" \[label="input_path\\nunit/input_path.v[^]]*style=dashed' "$T/nl_bwd.dot" &&
  ! grep -v -- '->' "$T/nl.dot" | grep -q dashed && ok || bad "netlist --dot: dashed where the control has no RTL"
expect_exit 2 "fp32.yaml: key 'asic': missing" -- netlist "$W/llama2-7b.yaml" --arch "$A/fp32.yaml" -q
expect_exit 2 "--dot.*\.dot" -- netlist --dot "$T/nl.png" -q
[ ! -e "$T/nl.png" ] && ok || bad "netlist --dot refused leaves no file"

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
