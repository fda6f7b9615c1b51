#!/usr/bin/env bash
# Runs on any NVIDIA GPU with nvcc, CMake, ncu and python3 (standard library):
# every record `normsim calibrate OUT -o mygpu.yaml` turns into a GPU arch
# file, in one call (about 8 minutes on an H200; CAL_CASES=0 leaves out the
# golden cases and their fit: about 4).
#   gpu_ref/scripts/calibrate_gpu.sh OUT
# OUT/ then holds (docs/FIDELITY.md, "Another GPU"):
#   device.json          the device properties that decide occupancy (device_probe)
#   copy.jsonl           the flat copy's bandwidth, three calls (device_probe copy)
#   latency.jsonl        pointer-chase latency by footprint: L1, the L2's two partitions, DRAM
#   mlp_probe.jsonl      load latency by the loads in flight: DRAM's unloaded latency
#   empty_kernel.csv     ncu: an empty launch's duration by grid size
#   l2_sweep_probe.jsonl, l2_steady_probe.jsonl   ncu: the L2's reuse curves
#   index.json, env.json the training cases of the golden set: up to CAL_CASES
#                        (default 3) per kernel, smallest, middle and largest
set -uo pipefail
out=${1:?OUT}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
mkdir -p "$out"
start=$(date +%s)
stamp() { echo "calibrate_gpu: $(( $(date +%s) - start )) s: $*"; }
. "$here/scripts/build_gpu_ref.sh"
export GPU_REF_BUILD=${GPU_REF_BUILD:-$work/build}
build_gpu_ref "$work/cmake.log"
bin=$build
stamp built

"$bin/device_probe" device >"$out/device.json" || exit 1
"$bin/device_probe" copy >"$out/copy.jsonl" || exit 1
read -r sms l2 < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["sms"], d["l2_bytes"])' "$out/device.json")
stamp "device: $sms SMs, L2 $l2 bytes"

# Footprints from inside the L1 to 32x the L2 (MiB fractions of the L2 for its partitions).
sizes=$(python3 -c '
import sys; l2 = int(sys.argv[1]) // 1024
print(",".join(str(k) for k in [16, 128, 1024] + [int(l2 * f) for f in (0.13, 0.4, 0.67, 0.8)] + [l2 * m for m in (1, 2, 8, 32)]))' "$l2")
"$bin/latency_probe" --sizes-kib "$sizes" >"$out/latency.jsonl" || exit 1
"$bin/mlp_probe" >"$out/mlp_probe.jsonl" || exit 1
ncu --clock-control none --print-units base --csv --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg \
  "$bin/empty_kernel" >"$out/empty_kernel.csv" 2>&1 || exit 1
stamp "latency, memory-level parallelism, empty kernel"

# The L2's reuse curves: the sweep variants the arch file's four sweep
# values need, over 0.4-2.7x the L2; rows out of phase at 8 and 48 warps an
# SM, rows sized for 0.1-2.3x the L2 in flight.
mb=$(( l2 / 1048576 ))
sweep_sizes=$(python3 -c '
import sys; m = int(sys.argv[1])
print(" ".join(str(max(1, round(m * f))) for f in (0.4, 0.47, 0.53, 0.6, 0.67, 0.73, 0.8, 0.93, 1.07, 1.33, 1.6, 2.13, 2.67)))' "$mb")
w1=$(( sms * 8 )); w2=$(( sms * 48 ))
shapes=$(python3 -c '
import sys; l2, w1, w2 = (int(a) for a in sys.argv[1:])
# rows of KB such that warps x KB spans 0.1-2.3x the L2
def kbs(w): return sorted({max(1, round(l2 * f / w / 1024)) for f in (0.12, 0.25, 0.4, 0.55, 0.7, 0.85, 1.0, 1.5, 2.2)})
print(" ".join([f"{w1}:{k}" for k in kbs(w1)] + [f"{w2}:{k}" for k in kbs(w2)]))' "$l2" "$w1" "$w2")
VARIANTS="plain:plain:none plain:cs:none plain:plain:plain" SIZES="$sweep_sizes" ORDERS=linear \
STEADY_VARIANTS="plain:plain:cs plain:plain:plain" STEADY_SHAPES="$shapes" \
  bash "$here/scripts/run_l2_sweep_probe.sh" "$out" >"$work/l2.log" 2>&1 || { tail -20 "$work/l2.log"; exit 1; }
stamp "L2 reuse probes: $(wc -l <"$out/l2_sweep_probe.jsonl") sweeps, $(wc -l <"$out/l2_steady_probe.jsonl") steady"

# The golden set's training cases (the held-out ones -- the 30% of ids with
# the smallest FNV-1a hash, as `normsim regress` picks them -- are never
# run): CAL_CASES per kernel.
per_kernel=${CAL_CASES:-3}
if [ "$per_kernel" -gt 0 ]; then
  bash "$here/scripts/golden_cases.sh" >"$work/all_cases.txt"
  python3 - "$work/all_cases.txt" "$per_kernel" >"$work/ids.txt" <<'PY'
import sys
lines = [l.split(None, 1) for l in open(sys.argv[1]) if l.strip()]
per_kernel = int(sys.argv[2])
def fnv1a(s):
    h = 1469598103934665603
    for c in s.encode():
        h = ((h ^ c) * 1099511628211) % (1 << 64)
    return h
ids = [l[0] for l in lines]
held = set(sorted(ids, key=fnv1a)[: (len(ids) * 3 + 9) // 10])
by_kernel = {}
for i, args in lines:
    if i in held or "cancellation" in i:
        continue
    a = args.split()
    size = int(a[a.index("--rows") + 1]) * int(a[a.index("--hidden") + 1])
    by_kernel.setdefault(a[a.index("--kernel") + 1], []).append((size, i))
for k, cs in sorted(by_kernel.items()):
    cs.sort()
    pick = [cs[0], cs[len(cs) // 2], cs[-1]][:per_kernel] if len(cs) > 2 else cs[:per_kernel]
    for _, i in dict.fromkeys(pick):
        print(i)
PY
  filter="^($(paste -sd'|' "$work/ids.txt")) "
  stamp "golden training cases: $(wc -l <"$work/ids.txt")"
  bash "$here/scripts/run_golden.sh" "$work/timing" timing "$filter" >"$work/timing.log" 2>&1 || { tail -20 "$work/timing.log"; exit 1; }
  bash "$here/scripts/run_golden.sh" "$work/ncu" ncu "$filter" >"$work/ncu.log" 2>&1 || { tail -20 "$work/ncu.log"; exit 1; }
  for part in timing ncu; do mkdir -p "$work/$part/x" && tar -C "$work/$part/x" -xzf "$work/$part/$part.tar.gz"; done
  mkdir -p "$work/npy"
  python3 "$here/scripts/build_golden.py" "$work/timing/x" "$work/ncu/x" "$work/npy" "$work/golden" >"$work/build_golden.log" 2>&1 ||
    { tail -20 "$work/build_golden.log"; exit 1; }
  cp "$work/golden/index.json" "$work/golden/env.json" "$out/"
  stamp "golden cases: $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$out/index.json") recorded"
fi
stamp done
ls -la "$out"
