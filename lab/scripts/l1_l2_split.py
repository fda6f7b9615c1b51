#!/usr/bin/env python3
"""Where each re-read of x was served, measured against the SIMT model.

For every golden case with L2 counters (ncu_l2.json) whose kernel is one
launch that reads x from global memory more than once, ncu's L2 read
lookups and misses split the re-reads three ways:

  L1 share    1 - (L2 read lookups - X - P) / ((passes - 1) X)
  L2 hit      of the re-reads that reached the L2,
              1 - (L2 read misses - X) / (L2 read lookups - X - P)
              ('-' where under 2% of the re-reads reached it)
  L2 miss     (L2 read misses - X) / ((passes - 1) X): sectors the L2
              fetched for the re-reads (gamma/beta's and the code's
              misses included; DRAM reads can be fewer, a fetch serving
              two sectors)

with X the input and P gamma/beta's L2 reads. P lies between 0 (every SM
keeps them in its L1 from the first row's read, which itself counts as a
first-pass lookup) and param bytes x SMs (each SM fetches them once): the
L1 share is printed as that range, the other columns at P = param bytes x
SMs. The model's columns are `normsim simt --json`'s l1_hit and l2_hit
(one value for every re-read pass) and its miss fraction (1 - l1)(1 - l2).
`normsim regress` compares the DRAM bytes themselves.

  lab/scripts/l1_l2_split.py [GOLDEN_DIR] [--records lab/records/h200] [--normsim build/normsim] [--min-mb 8]
"""
import argparse
import json
import pathlib
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("golden", nargs="?", default="gpu_ref/golden/h200")
    ap.add_argument("--records", default=None, help="folder of ncu_l2.json (default: GOLDEN_DIR's, else lab/records/h200)")
    ap.add_argument("--normsim", default="build/normsim")
    ap.add_argument("--min-mb", type=float, default=8.0, help="skip inputs smaller than this (MB)")
    a = ap.parse_args()
    golden = pathlib.Path(a.golden)
    try:
        index = json.loads((golden / "index.json").read_text())
        records = pathlib.Path(a.records) if a.records else (
            golden if (golden / "ncu_l2.json").exists() else pathlib.Path(__file__).resolve().parents[1] / "records/h200")
        l2 = json.loads((records / "ncu_l2.json").read_text())
    except (OSError, ValueError) as e:
        print(f"l1_l2_split: {e}", file=sys.stderr)
        return 2
    sms = json.loads((golden / "env.json").read_text()).get("sms", 132) if (golden / "env.json").exists() else 132
    cases = index["cases"] if isinstance(index, dict) else index
    print(f"{'case':44} {'X MB':>7} {'L1 share':>11} {'model':>6} {'L2 hit':>7} {'model':>6} "
          f"{'L2 miss':>7} {'model':>6}")
    for c in cases:
        q = l2.get(c["id"])
        if not q:
            continue
        cmd = [a.normsim, "simt", "--kernel", c["kernel"], "--rows", str(c["rows"]), "--hidden", str(c["hidden"]),
               "--dtype", c["dtype"], "--json", "-q"]
        if c.get("block"):
            cmd += ["--block", str(c["block"])]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            continue
        launches = json.loads(run.stdout)["launches"]
        if len(launches) != 1 or launches[0]["global_passes"] < 2:
            continue
        L = launches[0]
        X = float(L["input_bytes"])
        if X < a.min_mb * 1e6:
            continue
        rereads = (L["global_passes"] - 1) * X
        P = L["param_bytes"] * min(sms, int(c.get("grid") or sms))
        hit = q["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] * 32
        miss = q["lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum"] * 32
        lookups = hit + miss
        l1_lo, l1_hi = 1 - (lookups - X) / rereads, 1 - (lookups - X - P) / rereads
        reached = lookups - X - P
        # Where the L1 served (nearly) every re-read, the L2's share is noise.
        l2_hit = f"{1 - (miss - X) / reached:7.2f}" if reached > 0.02 * rereads else f"{'-':>7}"
        l2_miss = (miss - X) / rereads
        model_miss = (1 - L["l1_hit"]) * (1 - L["l2_hit"])
        print(f"{c['id']:44} {X / 1e6:7.1f} {l1_lo:5.2f}-{l1_hi:5.2f} {L['l1_hit']:6.2f} {l2_hit} "
              f"{L['l2_hit']:6.2f} {l2_miss:7.2f} {model_miss:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
