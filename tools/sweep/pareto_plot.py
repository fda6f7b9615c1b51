#!/usr/bin/env python3
"""The Pareto front of a sweep: the first two objectives as axes (log scale
where they span more than a decade), every ok point grey, the front's points
coloured by the third objective (if any) and labelled with their knobs.

    tools/sweep/pareto_plot.py SWEEP.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ALIASES = {"area": "area.total_mm2", "energy": "energy.total_uj", "error": "numerics.rel_l2_error", "time": "timing.time_us"}
SECTIONS = ("timing", "traffic", "area", "energy", "numerics")


def figure(point, name):
    """A figure by its path in the run report (timing.cycles) or its name alone
    (cycles): from the point's figures, else its whole report (--full-reports)."""
    figures = point.get("figures")
    if figures is not None:
        if name in figures:
            return figures[name]
        for k, v in figures.items():
            if k.rsplit(".", 1)[-1] == name:
                return v
        raise KeyError(name)
    report = point["report"]
    head, _, rest = name.partition(".")
    if head in SECTIONS and rest:
        v = report[head]
        for k in rest.split("."):
            v = v[k]
        return v
    for s in SECTIONS:
        if name in report.get(s, {}):
            return report[s][name]
    raise KeyError(name)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sweep = json.load(open(sys.argv[1]))
    objectives = [ALIASES.get(o, o) for o in sweep["study"]["objectives"]]
    if len(objectives) < 2:
        sys.exit("pareto_plot: the sweep has fewer than two objectives")
    keys = sweep["study"]["keys"]
    ok = [p for p in sweep["points"] if p["status"] == "ok"]
    xs = [figure(p, objectives[0]) for p in ok]
    ys = [figure(p, objectives[1]) for p in ok]
    front = [i for i, p in enumerate(ok) if p.get("pareto")]
    fig, ax = plt.subplots(figsize=(9, 6))
    ax.scatter(xs, ys, s=10, c="0.8", label=f"{len(ok)} designs")
    fx = [xs[i] for i in front]
    fy = [ys[i] for i in front]
    if len(objectives) > 2:
        c = [figure(ok[i], objectives[2]) for i in front]
        sc = ax.scatter(fx, fy, s=30, c=c, cmap="viridis", label=f"Pareto front ({len(front)})", zorder=3)
        fig.colorbar(sc, ax=ax, label=objectives[2])
    else:
        ax.scatter(fx, fy, s=30, c="C1", label=f"Pareto front ({len(front)})", zorder=3)
    # Label the front with the knobs that vary; designs that land on the same
    # point share one label ("k=a|b" where they differ), at most 25 labels.
    varying = [k for k in keys if len({json.dumps(p["point"].get(k)) for p in ok}) > 1]
    groups = {}
    for i in front:
        groups.setdefault((xs[i], ys[i]), []).append(i)
    step = max(1, len(groups) // 25)
    for n, ((x, y), members) in enumerate(sorted(groups.items())):
        if n % step:
            continue
        parts = []
        for k in varying:
            vals = []
            for i in members:
                v = ok[i]["point"].get(k)
                if v is not None and v not in vals:
                    vals.append(v)
            if vals:
                parts.append(f"{k.split('.')[-1]}={'|'.join(str(v) for v in vals)}")
        ax.annotate(", ".join(parts), (x, y), fontsize=6, xytext=(3, 3), textcoords="offset points")
    for v, setter in ((xs, ax.set_xscale), (ys, ax.set_yscale)):
        if min(v) > 0 and max(v) / min(v) > 10:
            setter("log")
    ax.margins(x=0.15, y=0.06)  # room for the labels of the outermost designs
    ax.set_xlabel(objectives[0])
    ax.set_ylabel(objectives[1])
    ax.set_title(f"normsim sweep: {len(sweep['points'])} points; objectives {', '.join(objectives)}, all minimised", fontsize=9)
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
