#!/usr/bin/env python3
"""The SIMT model against gpu_ref's rounds probe: re-reading kernels at fixed
rows in flight (one wave's worth) over 1 to 16 rounds.

`lab/gpu/scripts/run_rounds_probe.sh` records each kernel's ncu DRAM bytes
read with rows = slots x K (block-per-row kernels: 1056 slots; warp-per-row
ones: 8448). For each record this prints the share of the re-read served
from DRAM, measured and modelled, and the round-by-round share the averages
imply (K m(K) - K' m(K'), over the rounds since the previous record), the
predicted DRAM bytes' error and its elasticity (docs/SIMT.md). The measured
share takes the model's own non-x bytes (gamma/beta, statistics, code) off
ncu's count, so it is exact where those are.

  lab/scripts/rounds_probe.py [RECORDS] [--normsim build/normsim]
"""
import argparse
import json
import subprocess
import sys

PASSES = {"v3": 3}  # global passes over x; every other probed kernel has 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="?", default="lab/records/h200/rounds_probe.jsonl")
    ap.add_argument("--normsim", default="build/normsim")
    a = ap.parse_args()
    try:
        with open(a.records) as f:
            recs = [json.loads(line) for line in f if line.strip()]
        need = ("kernel", "rows", "hidden", "rounds", "dram__bytes_read.sum")
        bad = next((r for r in recs if any(k not in r for k in need)), None)
        if bad is not None:
            raise ValueError(f"a record lacks one of {', '.join(need)}")
    except (OSError, ValueError) as e:
        print(f"rounds_probe: {a.records}: {e}", file=sys.stderr)
        return 2
    print(f"{'kernel':13} {'C':>6} {'K':>3} {'rows':>7} {'DRAM share of re-read':>22} {'per round':>10} "
          f"{'read error':>10} {'elasticity':>10}")
    print(f"{'':13} {'':>6} {'':>3} {'':>7} {'measured':>11} {'model':>10} {'measured':>10}")
    errors, last = [], {}
    for r in recs:
        cmd = [a.normsim, "simt", "--kernel", r["kernel"], "--rows", str(r["rows"]), "--hidden", str(r["hidden"]),
               "--dtype", "fp32", "--json", "-q"]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            print(f"rounds_probe: {' '.join(cmd)}: {run.stderr.strip()}", file=sys.stderr)
            return 2
        j = json.loads(run.stdout)
        (launch,) = j["launches"]
        x = float(r["rows"] * r["hidden"] * 4)
        later = PASSES.get(r["kernel"], 2) - 1
        model_share = (1 - launch["l1_hit"]) * (1 - launch["l2_hit"])
        other = j["prediction"]["dram_bytes_read"] - x * (1 + later * model_share)
        share = (r["dram__bytes_read.sum"] - other - x) / (later * x)
        key, k = (r["kernel"], r["hidden"]), r["rounds"]
        k0, s0 = last.get(key, (0, 0.0))
        per_round = (k * share - k0 * s0) / (k - k0)
        last[key] = (k, share)
        err = (j["prediction"]["dram_bytes_read"] - r["dram__bytes_read.sum"]) / r["dram__bytes_read.sum"]
        errors.append(abs(err))
        print(f"{r['kernel']:13} {r['hidden']:6} {k:3} {r['rows']:7} {share:11.3f} {model_share:10.3f} "
              f"{per_round:10.3f} {100 * err:+9.1f}% {j['prediction']['dram_read_elasticity']:10.2f}")
    if errors:
        print(f"\n{len(errors)} records: DRAM read MAE {100 * sum(errors) / len(errors):.1f}%, "
              f"max {100 * max(errors):.1f}%, {sum(e > 0.05 for e in errors)} past 5%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
