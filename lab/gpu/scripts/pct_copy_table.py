#!/usr/bin/env python3
"""The table and plot of bench_torch.py's records: per (dtype, op) and row
length C, each implementation's % of the copy kernel measured in the same
loop, and whether ours holds the line -- at least --floor % of the copy, and
at least the faster of torch eager and torch.compile (ties within --tie %
count).
  pct_copy_table.py RECORDS.jsonl [--plot OUT.png] [--floor 90] [--tie 2]
Exit 0 always; the verdicts are printed (a C below the floor is listed with
its numbers, for its reason to be found)."""
import argparse, collections, json, sys

ap = argparse.ArgumentParser()
ap.add_argument("records")
ap.add_argument("--plot")
ap.add_argument("--floor", type=float, default=90.0)
ap.add_argument("--tie", type=float, default=2.0)
args = ap.parse_args()

OPS = {"torch_layer_norm": "layer_norm", "fast_ln": "layer_norm", "torch_rms_norm": "rms_norm", "fast_rms": "rms_norm"}
pct = collections.defaultdict(dict)  # (dtype, op) -> {C: {mode: pct}}
for line in open(args.records):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if "C" not in r or r.get("mode") == "copy":
        continue
    op = r.get("op") or OPS.get(r["kernel"])
    pct[(r["dtype"], op)].setdefault(r["C"], {})[r["mode"]] = r["pct_copy"]

below, behind = [], []
for (dtype, op), by_c in sorted(pct.items()):
    print(f"\n{op} {dtype}: % of the copy")
    print(f"{'C':>6} {'ours':>6} {'eager':>6} {'compile':>7}  verdict")
    for C in sorted(by_c):
        m = by_c[C]
        ours, torch_best = m.get("ours"), max([m[k] for k in ("eager", "compile") if k in m], default=None)
        verdict = []
        if ours is not None:
            if ours < args.floor:
                verdict.append(f"below {args.floor:.0f}%")
                below.append((dtype, op, C, ours))
            if torch_best is not None and ours < torch_best - args.tie:
                verdict.append(f"behind torch by {torch_best - ours:.1f} points")
                behind.append((dtype, op, C, ours, torch_best))
        cell = lambda v: f"{v:6.1f}" if v is not None else f"{'-':>6}"
        print(f"{C:>6} {cell(ours)} {cell(m.get('eager'))} {cell(m.get('compile')):>7}  {', '.join(verdict) or 'ok'}")
print(f"\n{len(below)} (dtype, op, C) below {args.floor:.0f}% of the copy; {len(behind)} behind torch by more than {args.tie:.0f} points")
for b in below:
    print("  below:", *b)
for b in behind:
    print("  behind:", *b)

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    keys = sorted(pct)
    fig, axes = plt.subplots(len(keys), 1, figsize=(9, 2.6 * len(keys)), sharex=True, squeeze=False)
    for ax, key in zip(axes[:, 0], keys):
        by_c = pct[key]
        for mode, style in (("ours", "o-"), ("compile", "s--"), ("eager", "^:")):
            cs = [c for c in sorted(by_c) if mode in by_c[c]]
            if cs:
                ax.plot(cs, [by_c[c][mode] for c in cs], style, ms=3, label={"ours": "fast_ln / fast_rms"}.get(mode, f"torch {mode}"))
        ax.axhline(args.floor, color="grey", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_ylabel("% of copy")
        ax.set_title(f"{key[1]} {key[0]}", fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
    axes[-1, 0].set_xlabel("row length C (elements)")
    fig.tight_layout()
    fig.savefig(args.plot, dpi=110)
    print(f"wrote {args.plot}", file=sys.stderr)
