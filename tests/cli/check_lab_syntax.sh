#!/usr/bin/env bash
# Every shell and Python script under lab/ parses (bash -n, ast.parse).
#   check_lab_syntax.sh LAB_DIR
set -uo pipefail
lab=${1:?LAB_DIR}
n=0
while IFS= read -r f; do
  bash -n "$f" || { echo "check_lab_syntax: $f does not parse"; exit 1; }
  n=$((n + 1))
done < <(find "$lab" -name '*.sh')
/usr/bin/python3 - "$lab" <<'PY' || exit 1
import ast, pathlib, sys
files = sorted(pathlib.Path(sys.argv[1]).rglob("*.py"))
for p in files:
    ast.parse(p.read_text(), str(p))
print(f"check_lab_syntax: {len(files)} Python scripts parse")
PY
echo "check_lab_syntax: $n shell scripts parse"
