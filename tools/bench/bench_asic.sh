#!/usr/bin/env bash
# Simulation speed of the ASIC model, measured side by side in one run:
# the functional pipeline (numerics only), the SystemC model with numerics
# (bit-accurate + timing) per input path, and the timing-only mode, on one
# workload (default llama3-70b, 67 M elements), single thread (--threads 1,
# -j 1); then the same bit-accurate run and a timing-only sweep on 1..all
# cores (run --threads N, sweep -j N) with the speed-up over one; peak RSS from
# /usr/bin/time -v. Each time is a median: of 21 runs for the commands that
# take milliseconds (one run of those moves by 20-50% on a shared machine),
# of LONG_REPS (default 3) for those that take seconds. Prints elements/s and
# the ratios; then the verilated RTL pipeline against the SystemC model on a
# few hundred rows.
#   [LONG_REPS=N] tools/bench/bench_asic.sh [WORKLOAD] [ARCH...]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
N=$here/build/normsim
W=${1:-$here/workloads/llama3-70b.yaml}
LONG_REPS=${LONG_REPS:-3}
shift || true
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=("$here/workloads/arch/asic-default.yaml" "$here/workloads/arch/asic-fp32.yaml")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
read -r elements wrows < <("$N" run "$W" --arch "${archs[0]}" --no-numerics --json -q |
  /usr/bin/python3 -c 'import json,sys; w = json.load(sys.stdin)["workload"]; print(w["elements"], w["rows"])')

measure() {  # LABEL REPEATS ARGS... -> "label seconds rss_mb": median wall time of REPEATS runs, peak RSS of one
  local label=$1 reps=$2; shift 2
  local t0 t1 rss i times=()
  /usr/bin/time -v "$N" "$@" -q >/dev/null 2>"$tmp/time" || { cat "$tmp/time"; exit 1; }
  rss=$(grep "Maximum resident set size" "$tmp/time" | awk '{print $NF/1024}')
  for ((i = 0; i < reps; i++)); do
    t0=$(date +%s%N)
    "$N" "$@" -q >/dev/null
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  echo "$label $(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (reps + 1) / 2 ))p")e-6 $rss"
}

echo "bench_asic: $(basename "$W") ($elements elements), single thread, $(date -u +%Y-%m-%d)"
# The fixed cost every command pays before simulating (dynamic linking and
# SystemC's own start-up), measured here so the ratios can be read both ways.
start=$( { measure "start" 21 --version; } | awk '{print $2}')
echo "process start (normsim --version): $(/usr/bin/python3 -c "print(f'{float(\"$start\")*1e3:.1f}')") ms"
# The SystemC kernel's own cost per timed wait: the floor under timing-only.
wait_ns=$("$here/build/bench_systemc_wait" units 2>/dev/null | awk '{print $2}')
echo "a SystemC timed wait (bench_systemc_wait: six interleaved threads): $wait_ns ns;" \
  "one thread: $("$here/build/bench_systemc_wait" alone 2>/dev/null | awk '{print $2}') ns;" \
  "SC_METHOD next_trigger: $("$here/build/bench_systemc_wait" method 2>/dev/null | awk '{print $2}') ns"
for A in "${archs[@]}"; do
  name=$(basename "$A" .yaml)
  # The same arch without its asic section: the functional pipeline alone.
  sed '/^asic:/,$d' "$A" >"$tmp/$name-functional.yaml"
  {
    measure "functional" "$LONG_REPS" run "$W" --arch "$tmp/$name-functional.yaml" --threads 1
    for p in sram-replay dram-reread partial-replay; do
      measure "asic:$p" "$LONG_REPS" run "$W" --arch "$A" --path "$p" --threads 1
      measure "timing-only:$p" 21 run "$W" --arch "$A" --path "$p" --no-numerics
      # A design-space sweep pays the process start once: 20 points, forked.
      t0=$(date +%s%N)
      "$N" sweep "$W" --arch "$A" --path "$p" --grid "arch.asic.rows_in_flight=$(printf '4,%.0s' {1..19})4" -j 1 -q >/dev/null
      t1=$(date +%s%N)
      echo "sweep-point:$p $(( (t1 - t0) / 20000 ))e-6 0"
    done
  } >"$tmp/$name.txt"
  echo
  echo "arch $name"
  /usr/bin/python3 - "$tmp/$name.txt" "$elements" "$start" "$wrows" "$wait_ns" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
n = float(sys.argv[2])
start = float(sys.argv[3])
wrows, wait_ns = float(sys.argv[4]), float(sys.argv[5])
t = {r[0]: float(r[1]) for r in rows}
print(f"  {'mode':<26} {'seconds':>8} {'Melem/s':>9} {'peak RSS MB':>12} {'vs functional':>14}"
      f" {'timing-only speed-up':>21} {'excl. process start':>20}")
for r in rows:
    label, sec, rss = r[0], float(r[1]), float(r[2])
    extra = ""
    if label.startswith("timing-only:"):
        full = t['asic:' + label.split(':')[1]]
        extra = f"{full / sec:>20.0f}x {(full - start) / max(sec - start, 1e-6):>19.0f}x"
    if label.startswith("sweep-point:"):
        full = t['asic:' + label.split(':')[1]]
        extra = f"{full / sec:>20.0f}x {'(per point)':>20}"
    rss_text = f"{rss:>12.0f}" if rss > 0 else f"{'-':>12}"
    print(f"  {label:<26} {sec:>8.3f} {n / sec / 1e6:>9.1f} {rss_text} {t['functional'] / sec:>13.2f}x {extra}")
per_row = (t["sweep-point:sram-replay"]) / wrows * 1e9
print(f"  timing-only per row (sweep point, sram-replay): {per_row:.0f} ns = {per_row / wait_ns:.1f} SystemC waits' worth")
PY
done

# Scaling over this machine's cores: the bit-accurate run with timing on the
# first arch (numerics over rows on N threads beside the SystemC timing; the
# same bits for every N) and a 40-point timing-only sweep (N forked points at
# once; the same output for every N).
cores=$(nproc)
echo
echo "Threads: $(basename "$W") on $(basename "${archs[0]}" .yaml), 1..$cores cores (median of $LONG_REPS)"
{
  for ((n = 1; n <= cores; n++)); do
    measure "run:$n" "$LONG_REPS" run "$W" --arch "${archs[0]}" --threads "$n" | awk '{print $1, $2}'
  done
  for ((n = 1; n <= cores; n++)); do
    measure "sweep:$n" "$LONG_REPS" sweep "$W" --arch "${archs[0]}" --grid arch.lanes=4,8,16,32,64 \
      --grid arch.asic.rows_in_flight=2,4,6,8 --grid arch.asic.input_path=sram-replay,dram-reread -j "$n" | awk '{print $1, $2}'
  done
} >"$tmp/threads.txt"
/usr/bin/python3 - "$tmp/threads.txt" "$elements" <<'PY'
import sys
t = {l.split()[0]: float(l.split()[1]) for l in open(sys.argv[1])}
n = float(sys.argv[2])
print(f"  {'mode':<44} {'cores':>5} {'seconds':>8} {'Melem/s':>9} {'vs 1 core':>10}")
for kind, what in (("run", "bit-accurate run with timing (--threads)"), ("sweep", "40-point timing-only sweep (-j)")):
    one = t[f"{kind}:1"]
    for k in sorted(int(x.split(':')[1]) for x in t if x.startswith(kind + ":")):
        sec = t[f"{kind}:{k}"]
        rate = f"{n / sec / 1e6:>9.1f}" if kind == "run" else f"{'-':>9}"
        print(f"  {what:<44} {k:>5} {sec:>8.3f} {rate} {one / sec:>9.2f}x")
PY

# The verilated norm_row_pipeline (`run --rtl`, built at the embedded default
# arch) against the SystemC model with numerics and the timing-only mode, on
# the same rows of the same workload: RTL rows are slow (every clock is four
# SystemC delta cycles and a Verilator evaluation of 16 lanes), so this part
# runs RTL_ROWS rows (default 1024) and reports the time spent in the RTL alone.
rows=${RTL_ROWS:-1024}
echo
echo "RTL pipeline vs the SystemC model, $(basename "$W") x $rows rows, embedded default arch"
{
  t0=$(date +%s%N)
  "$N" run "$W" --set "workload.rows=$rows" --rtl --json -q >"$tmp/rtl.json"
  t1=$(date +%s%N)
  echo "rtl-run $(( (t1 - t0) / 1000 ))e-6"
  measure "systemc-bit-accurate" 3 run "$W" --set "workload.rows=$rows" --threads 1 | awk '{print $1, $2}'
  measure "timing-only" 21 run "$W" --set "workload.rows=$rows" --no-numerics | awk '{print $1, $2}'
} >"$tmp/rtl.txt"
/usr/bin/python3 - "$tmp/rtl.txt" "$tmp/rtl.json" "$start" <<'PY'
import json, sys
t = {l.split()[0]: float(l.split()[1]) for l in open(sys.argv[1])}
r = json.load(open(sys.argv[2]))
n = r["workload"]["elements"]
start = float(sys.argv[3])
rtl = r["rtl"]["rtl_seconds"]
rows = [("verilated norm_row_pipeline", rtl, "time inside the RTL"),
        ("SystemC model, bit-accurate", t["systemc-bit-accurate"] - start, "run minus process start"),
        ("SystemC model, timing only", t["timing-only"] - start, "run minus process start")]
print(f"  {'mode':<30} {'seconds':>8} {'Melem/s':>9} {'vs RTL':>8}   measured as")
for name, sec, how in rows:
    print(f"  {name:<30} {sec:>8.3f} {n / sec / 1e6:>9.2f} {rtl / sec:>7.0f}x   {how}")
print(f"  ({r['rtl']['rows_checked']} rows bit-exact, {r['rtl']['rtl_cycles']} RTL cycles, "
      f"{r['rtl']['rtl_cycles'] / rtl / 1e3:.0f} k RTL cycles/s)")
PY

# The verilated forward unit's control (`run --rtl-full`) against the
# clocked SystemC model it is compared with (timing only, every row), on the
# same rows: what --rtl-full adds to a run. The RTL's time is its own run
# after the model's (rtl_seconds).
echo
echo "RTL forward unit vs the clocked SystemC model, $(basename "$W") x $rows rows, embedded default arch, partial-replay"
{
  "$N" run "$W" --set "workload.rows=$rows" --path partial-replay --rtl-full --no-numerics --json -q >"$tmp/full.json"
  measure "clocked-timing-only" 21 run "$W" --set "workload.rows=$rows" --path partial-replay --set arch.asic.timing=cycle \
    --no-fast-forward --no-numerics | awk '{print $1, $2}'
} >"$tmp/full.txt"
/usr/bin/python3 - "$tmp/full.txt" "$tmp/full.json" "$start" <<'PY'
import json, sys
t = {l.split()[0]: float(l.split()[1]) for l in open(sys.argv[1])}
r = json.load(open(sys.argv[2]))
f = r["rtl_full"]
start = float(sys.argv[3])
rtl, model = f["rtl_seconds"], t["clocked-timing-only"] - start
rows = f["rows"]
print(f"  {'mode':<36} {'seconds':>8} {'rows/s':>10} {'k cycles/s':>11}")
for name, sec in (("verilated forward unit (tb_forward.v)", rtl), ("SystemC model, clocked, timing only", model)):
    print(f"  {name:<36} {sec:>8.3f} {rows / sec:>10.0f} {f['rtl_cycles'] / sec / 1e3:>11.0f}")
print(f"  the RTL takes {rtl / model:.0f}x the model's time ({f['acts_compared']} acts equal over {f['rtl_cycles']} cycles)")
PY
