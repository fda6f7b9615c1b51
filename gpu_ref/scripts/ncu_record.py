#!/usr/bin/env python3
"""One JSON line from a probe run under `ncu --csv`: the given KEY=VALUE
fields (digits become integers), then the probe's own last JSON line (its
shape as it ran), then every ncu metric; or, when the probe printed no JSON
line, an "error" field with the end of the output.

  ncu --csv --metrics ... PROBE ARGS 2>&1 | ncu_record.py KEY=VALUE ...
"""
import csv
import json
import sys

text = sys.stdin.read().splitlines()
info = [l for l in text if l.startswith("{")]
rows = [l for l in text if l.startswith('"')]
rec = {}
for arg in sys.argv[1:]:
    key, _, value = arg.partition("=")
    rec[key] = int(value) if value.isdigit() else value
rec.update(json.loads(info[-1]) if info else {"error": " ".join(text[-3:])[:300]})
rec.update({r["Metric Name"]: float(r["Metric Value"].replace(",", "")) for r in csv.DictReader(rows)})
print(json.dumps(rec))
