#!/usr/bin/env bash
# The lab's scripts (lab/scripts/*.py) on bad input and on their committed
# records: exit codes, one-line errors, summary lines. Run by CTest when the
# tree is configured with -DNORMSIM_LAB=ON.
set -uo pipefail
N=${NORMSIM:?}
S=${NORMSIM_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0; passes=0
ok()   { passes=$((passes+1)); }
bad()  { echo "FAIL: $*"; fails=$((fails+1)); }

# lab/scripts/l1_l2_split.py: a golden folder without its files is exit 2 and one line naming the file.
/usr/bin/python3 "$S/lab/scripts/l1_l2_split.py" "$T/no-golden" --normsim "$N" >"$T/out" 2>"$T/err"; src=$?
if [ "$src" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "no-golden/index.json" "$T/err"; then ok; else bad "l1_l2_split on a missing folder -> exit $src: $(cat "$T/err")"; fi
# lab/scripts/rounds_probe.py: a missing file or a record without its counters is exit 2 and one line.
/usr/bin/python3 "$S/lab/scripts/rounds_probe.py" "$T/no-rounds.jsonl" --normsim "$N" >"$T/out" 2>"$T/err"; src=$?
if [ "$src" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "no-rounds.jsonl" "$T/err"; then ok; else bad "rounds_probe on a missing file -> exit $src: $(cat "$T/err")"; fi
/usr/bin/python3 "$S/lab/scripts/rounds_probe.py" "$S/lab/records/h200/rounds_probe.jsonl" --normsim "$N" >"$T/out" 2>"$T/err"; src=$?
if [ "$src" = 0 ] && tail -1 "$T/out" | grep -Eq "^90 records: DRAM read MAE [0-9.]+%, max [0-9.]+%, [0-9]+ past 5%$"; then ok; else bad "rounds_probe on the golden records -> exit $src: $(tail -1 "$T/out") $(cat "$T/err")"; fi
echo '{"kernel": "v5", "rows": 1056, "hidden": 8192}' >"$T/rounds.jsonl"
/usr/bin/python3 "$S/lab/scripts/rounds_probe.py" "$T/rounds.jsonl" --normsim "$N" >"$T/out" 2>"$T/err"; src=$?
if [ "$src" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "dram__bytes_read.sum" "$T/err"; then ok; else bad "rounds_probe on a bad record -> exit $src: $(cat "$T/err")"; fi

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
