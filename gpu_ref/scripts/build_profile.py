#!/usr/bin/env python3
"""Builds golden/<gpu>/ncu_profile.json from run_profile.sh's CSVs: per case,
the duration (ns, summed over the case's launches), the executed warp
instructions (smsp__inst_executed.sum, summed), every other count (a `.sum`
metric: the local-memory sectors) summed, and every other metric averaged
over the launches weighted by their durations.
  build_profile.py PROFILE_DIR OUT_JSON [--merge]
--merge keeps OUT_JSON's cases this run did not profile. Standard library only."""
import csv, glob, json, os, sys

prof_dir, out_path = sys.argv[1:3]
merge = "--merge" in sys.argv[3:]
result = json.load(open(out_path)) if merge and os.path.exists(out_path) else {}
for path in sorted(glob.glob(os.path.join(prof_dir, "p_*.csv"))):
    case_id = os.path.basename(path)[2:-4]
    lines = [l for l in open(path, errors="replace") if l.startswith('"')]
    launches = {}
    for row in csv.DictReader(lines):
        launches.setdefault(row["ID"], {})[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    if not launches:
        continue
    ks = list(launches.values())
    total_ns = sum(k.get("gpu__time_duration.sum", 0.0) for k in ks)
    case = {"duration_ns": total_ns, "inst_executed": sum(k.get("smsp__inst_executed.sum", 0.0) for k in ks)}
    names = sorted({m for k in ks for m in k} - {"gpu__time_duration.sum", "smsp__inst_executed.sum"})
    for m in names:
        if m.endswith(".sum"):
            case[m] = sum(k.get(m, 0.0) for k in ks)
        else:
            case[m] = sum(k.get(m, 0.0) * k.get("gpu__time_duration.sum", 0.0) for k in ks) / total_ns if total_ns else 0.0
    result[case_id] = case
json.dump(result, open(out_path, "w"), indent=1, sort_keys=True)
print(f"{len(result)} cases -> {out_path}")
