#!/usr/bin/env bash
# Every number of every report is finite and non-negative, and the phases sum
# to the cycles: `compare` (all three input paths) on every shipped workload x
# every shipped arch with a timing model, timing only. Paths a combination
# cannot build are listed with their reason; where it can build none (long
# rows on a small SRAM: compare refuses it, exit 2), every path is checked
# again at an 8 MiB SRAM budget.
set -u
N=${NORMSIM:?}; S=${NORMSIM_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0 runs=0

check() {  # NAME: the comparison in $T/c.json; exit 1 on a bad number, 3 when no path was built
  /usr/bin/python3 - "$T/c.json" "$1" <<'PY'
import json, math, sys
j, name = json.load(open(sys.argv[1])), sys.argv[2]
bad = []
def walk(v, path):
    if isinstance(v, bool) or v is None:
        return
    if isinstance(v, (int, float)):
        if not math.isfinite(v) or v < 0:
            bad.append(f"{path} = {v}")
    elif isinstance(v, dict):
        for k, x in v.items():
            walk(x, f"{path}.{k}")
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, f"{path}[{i}]")
built = [p for p in j["paths"] if "infeasible" not in p]
for p in built:
    for section in ("timing", "traffic", "area", "energy"):
        walk(p[section], f"{p['path']}.{section}")
    t = p["timing"]
    if abs(sum(t["phase_cycles"].values()) - t["cycles"]) > 1e-9 * t["cycles"]:
        bad.append(f"{p['path']}: phases {t['phase_cycles']} do not sum to {t['cycles']} cycles")
if bad:
    print(f"FAIL {name}: " + "; ".join(bad[:5]))
    sys.exit(1)
if not built:
    print(f"-- {name}: no path fits the arch's SRAM")
    sys.exit(3)
print(f"ok {name}: {len(built)} paths" + "".join(f"; {p['path']} infeasible" for p in j["paths"] if "infeasible" in p))
PY
}

for w in "$S"/workloads/*.yaml; do
  for a in "$S"/workloads/arch/*.yaml; do
    grep -q '^asic:' "$a" || continue
    name="$(basename "$w" .yaml) x $(basename "$a" .yaml)"
    "$N" compare "$w" --arch "$a" --no-numerics --json -q > "$T/c.json" 2> "$T/err"; rc=$?
    # No path fits the arch's SRAM: refused (exit 2, one line), then checked at 8 MiB.
    if [ "$rc" = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q "no design of any path is feasible" "$T/err"; then
      echo "-- $name: no path fits the arch's SRAM"
      rc=3
    elif [ "$rc" != 0 ]; then
      echo "FAIL $name: $(cat "$T/err")"; fail=1; continue
    else
      check "$name"; rc=$?
    fi
    runs=$((runs + 1))
    if [ "$rc" = 3 ]; then
      "$N" compare "$w" --arch "$a" --no-numerics --sram-budget 8388608 --json -q > "$T/c.json" 2> "$T/err" ||
        { echo "FAIL $name at 8 MiB: $(cat "$T/err")"; fail=1; continue; }
      check "$name at an 8 MiB SRAM budget" || fail=1
    elif [ "$rc" != 0 ]; then
      fail=1
    fi
  done
done
[ "$runs" -ge 20 ] || { echo "FAIL: only $runs workload x arch combinations ran"; fail=1; }
exit $fail
