#!/usr/bin/env bash
# Widths chosen on llama2-7b hold where the unit will be used: at other row
# lengths (3000, the workload's 4096, a LLaMA MLP's 11008) on both input
# models (the workload's Gaussian rows and the shipped LLM-activation
# models), as `run` of the chosen arch measures them; the search's report
# shows each guard's figures and the worst. On 512 rows of each.
#   NORMSIM=build/normsim tests/cli/test_widths_guards.sh
set -uo pipefail
N=${NORMSIM:?NORMSIM}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
rows=(--set workload.seq=512)
"$N" widths llama2-7b "${rows[@]}" --target 'max_ulp<=1' --out "$T/w" --json -q >"$T/w.json" ||
  { echo "FAIL: widths llama2-7b"; exit 1; }
# The report: the automatic guards cross 2990, 4096, 5120, 11008 with every input model, each guard's figures given.
python3 - "$T/w.json" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
g = j["guards"]
lengths = sorted({x["hidden"] for x in g}); models = sorted({x["model"] for x in g})
assert lengths == [2990, 4096, 5120, 11008], lengths
assert models == ["llama2-7b-acts", "llama3-70b-acts", "own"], models
assert len(g) == 4 * 3 - 1, len(g)
worst = max(x["chosen_all_rows"]["max_ulp_error"] for x in g)
assert worst <= j["chosen"]["all_rows"]["max_ulp_error"] and worst <= 1, worst
assert all(not x["chosen_all_rows"]["overflow"] for x in g)
PY
[ $fail = 0 ] || echo "FAIL: widths report's guards"
for w in llama2-7b llama2-7b-acts llama3-70b-acts; do
  for h in 3000 4096 11008; do
    set_rows=("${rows[@]}"); [ $w = llama3-70b-acts ] && set_rows=(--set workload.rows=512)
    "$N" run $w "${set_rows[@]}" --set workload.hidden=$h --arch "$T/w/arch.yaml" --json -q >"$T/r.json" ||
      { echo "FAIL: run $w at hidden $h on the chosen arch"; fail=1; continue; }
    python3 - "$T/r.json" "$w" "$h" <<'PY' || fail=1
import json, sys
n = json.load(open(sys.argv[1]))["numerics"]
over = sum(n["overflow"].values()) if isinstance(n.get("overflow"), dict) else 0
if not (n["max_ulp_error"] <= 1 and over == 0):
    print(f"FAIL: {sys.argv[2]} at hidden {sys.argv[3]}: max_ulp_error {n['max_ulp_error']}, overflows {over}")
    sys.exit(1)
PY
  done
done
[ $fail = 0 ] && echo "widths guards: the llama2-7b choice holds at 3000, 4096, 11008 on both input models"
exit $fail
