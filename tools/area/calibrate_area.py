#!/usr/bin/env python3
"""Calibrate sim/area's fixed-point logic model against yosys synthesis.

For each point of a sweep of widths (datapath 8..32 bits, rsqrt table 4..10
bits, 1..3 Newton steps), runs `normsim area --synth --json` on a LayerNorm
(Welford) workload and on a backward workload (the backward's units at
formats scaled from the same width: LayerNorm at C = 768, where the row
means multiply by 1/C, or RMSNorm at C = 4096, where they shift), collects
every RTL unit's synthesised gate equivalents
per instance and the analytic model's operator inventory, fits the per-
operator costs by least squares (flip-flops fixed), fits each unit's logic
depth (yosys `ltp -noff`) for the timing model, and writes the table of
analytic vs synthesised GE -- with the model's current constants -- and the
depth fits into docs/AREA.md between the generated markers.

  tools/area/calibrate_area.py [--normsim build/normsim] [--fit-only] [--jobs N]
"""
import argparse, concurrent.futures, json, pathlib, subprocess, sys

root = pathlib.Path(__file__).resolve().parents[2]
ap = argparse.ArgumentParser()
ap.add_argument("--normsim", default=str(root / "build/normsim"))
ap.add_argument("--jobs", type=int, default=2)
ap.add_argument("--fit-only", action="store_true", help="print the fitted costs, do not touch docs/AREA.md")
ap.add_argument("--cache", help="JSON file of synthesis results to reuse / fill (synthesis takes minutes)")
args = ap.parse_args()

OPS = ["adder_bits", "multiplier_bit_products", "requant_bits", "shifter_bits"]
FF_GE = 5.3  # sim/area kGePerFlipFlop


def point(w, tb, it, seed="table", unit="newton"):
    """Formats scaled from one data width w, as a set of --set overrides (seed, unit: the RSQRT unit's)."""
    f = {"input": (w, w - 6, 1), "mean": (w + 8, w, 1), "m2": (2 * w, w, 1), "recip": (w + 8, w + 7, 0),
         "variance": (w + 16, w + 4, 0), "rsqrt_in": (w + 16, w + 4, 0), "rsqrt_out": (w + 8, w - 2, 0),
         "xhat": (w, w - 6, 1), "gamma": (w, w - 3, 1), "beta": (w, w - 3, 1), "output": (w, w - 5, 1)}
    sets = []
    for stage, (bits, frac, signed) in f.items():
        sets += [f"arch.formats.{stage}.bits={bits}", f"arch.formats.{stage}.frac={frac}",
                 f"arch.formats.{stage}.signed={'true' if signed else 'false'}"]
    sets += [f"arch.rsqrt.table_bits={tb}", f"arch.rsqrt.iterations={it}", f"arch.rsqrt.nr_frac_bits={w + 4}",
             f"arch.rsqrt.seed={seed}", f"arch.rsqrt.unit={unit}"]
    return {"label": f"w{w} t{tb} i{it}" + ("" if seed == "table" else f" {seed}") + ("" if unit == "newton" else f" {unit}"),
            "sets": sets,
            "workload": "gpt2-small.yaml", "seed_products": (w + 7) * (w + 5) if seed == "linear" else 0}


def backward_point(w, rms, rounding, overflow):
    """The backward's formats scaled from one data width w (and the forward's it reads), in one rounding and overflow mode."""
    p = point(w, 4, 1)
    f = {"dy": (w, w - 6), "g": (w, w - 6), "xhat": (w, w - 4), "sum_g": (w + 16, w - 6), "sum_gxhat": (w + 16, w - 4),
         "row_mean": (w + 8, w), "dx": (w, w - 6), "dgamma": (2 * w, w - 4), "dbeta": (2 * w, w - 4)}
    for stage, (bits, frac) in f.items():
        p["sets"] += [f"arch.backward_formats.{stage}.bits={bits}", f"arch.backward_formats.{stage}.frac={frac}",
                      f"arch.backward_formats.{stage}.rounding={rounding}", f"arch.backward_formats.{stage}.overflow={overflow}"]
    if rms:
        p["workload"] = "llama2-7b-bwd.yaml"
    else:
        p["workload"] = "bert-large-bwd.yaml"
        p["sets"].append("workload.hidden=768")
    p["label"] = f"bwd {'rms' if rms else 'ln'} w{w} {rounding} {overflow}"
    return p


# The RSQRT units with calibration points of their own (sim/core/rsqrt_kind.hpp,
# through `normsim list rsqrt-units`): checked against the costs the newton
# points fit (not fitted, so the constants stay the sweep's), each one's
# logic depth fitted apart under its kind's depth_fit name, over all its products.
listed = subprocess.run([args.normsim, "list", "rsqrt-units", "--json"], capture_output=True, text=True)
if listed.returncode != 0:
    sys.exit(f"calibrate_area: {args.normsim} list rsqrt-units: {listed.stderr.strip()}")
OWN_UNITS = {k["name"]: k for k in json.loads(listed.stdout)["rsqrt-units"] if k["calibration"]}
SWEEP = ([point(8, 4, 1), point(12, 5, 1), point(16, 6, 2), point(16, 8, 3), point(20, 7, 2),
          point(24, 8, 2), point(24, 10, 1), point(28, 9, 3), point(32, 8, 2), point(32, 10, 3),
          # The linear seed (c0 + c1 t an interval) before one Newton step: checked, not fitted apart.
          point(12, 5, 1, "linear"), point(20, 7, 1, "linear"), point(28, 9, 1, "linear")]
         + [point(c["datapath_bits"], c["table_bits"], c["iterations"], unit=name)
            for name, k in OWN_UNITS.items() for c in k["calibration"]]
         + [backward_point(8, False, "half-even", "saturate"), backward_point(12, True, "truncate", "wrap"),
            backward_point(12, False, "half-away", "saturate"), backward_point(16, False, "truncate", "saturate"),
            backward_point(16, True, "half-even", "wrap"), backward_point(20, True, "half-even", "saturate"),
            backward_point(20, False, "truncate", "wrap"), backward_point(24, False, "half-even", "saturate"),
            backward_point(28, True, "half-away", "wrap"), backward_point(32, False, "half-even", "saturate")])


def own_unit(label):
    """The RSQRT unit of a point of a unit's own calibration, or None."""
    return next((n for n in OWN_UNITS if label.endswith(" " + n)), None)


cache = json.loads(pathlib.Path(args.cache).read_text()) if args.cache and pathlib.Path(args.cache).exists() else {}


def area(p, synth):
    cmd = [args.normsim, "area", str(root / "workloads" / p["workload"]), "--json", "-q"] + (["--synth"] if synth else [])
    for s in p["sets"]:
        cmd += ["--set", s]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"calibrate_area: {p['label']}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def run(p):
    """The analytic report as built, with each unit's synthesis (cached by point)."""
    r = area(p, synth=False)
    if p["label"] not in cache:
        cache[p["label"]] = {u["unit"]: u["synth"] for u in area(p, synth=True)["units"] if "synth" in u}
    for u in r["units"]:
        if u["unit"] in cache[p["label"]]:
            u["synth"] = cache[p["label"]][u["unit"]]
    return p["label"], r


with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
    results = list(ex.map(run, SWEEP))
if args.cache:
    pathlib.Path(args.cache).write_text(json.dumps(cache, indent=1))

rows = []  # (label, unit, inventory, synth GE per instance, analytic GE per instance)
for label, r in results:
    for u in r["units"]:
        if "synth" in u and "operators_per_instance" in u:
            rows.append((label, u["unit"], u["operators_per_instance"], u["synth"]["ge_per_instance"],
                         u["analytic_ge"] / u["instances"]))
# A unit that synthesises to a few gates (a row mean that is a shift and a
# truncation: wiring and inverters) is held to SMALL_GE in absolute terms:
# its relative error is noise, and it is not fitted.
SMALL_GE = 100
small_rows = [r for r in rows if r[3] < SMALL_GE]
rows = [r for r in rows if r[3] >= SMALL_GE]
fwd_rows = [r for r in rows if not r[0].startswith("bwd") and not own_unit(r[0])]
bwd_rows = [r for r in rows if r[0].startswith("bwd")]

import numpy as np


def system(rs, ops):
    """Relative-error form: (a . ops + FF) / synth = 1, every point weighing the same."""
    A = np.array([[r[2][k] / r[3] for k in ops] for r in rs])
    b = np.array([(r[3] - FF_GE * r[2]["flip_flops"]) / r[3] for r in rs])
    return A, b


def fit_least_squares(rs, ops):
    """Least squares; a column whose cost comes out negative is dropped (cost 0) and the rest refitted."""
    A, b = system(rs, ops)
    active = list(range(len(ops)))
    while True:
        sol, *_ = np.linalg.lstsq(A[:, active], b, rcond=None)
        if (sol >= 0).all():
            break
        active.pop(int(np.argmin(sol)))
    costs = np.zeros(len(ops))
    costs[active] = sol
    return dict(zip(ops, costs))


def fit_minimax(rs, ops):
    """The costs that minimise the worst relative error (Lawson's iteratively reweighted least squares)."""
    A, b = system(rs, ops)
    w = np.full(len(rs), 1.0 / len(rs))
    for _ in range(500):
        sw = np.sqrt(w)
        sol, *_ = np.linalg.lstsq(A * sw[:, None], b * sw, rcond=None)
        res = np.abs(A @ sol - b)
        w = w * res
        w /= w.sum()
    return dict(zip(ops, sol))


def worst_error(rs, costs):
    return max(abs((sum(costs[k] * r[2].get(k, 0) for k in costs) + FF_GE * r[2]["flip_flops"]) / r[3] - 1) for r in rs)


# The forward's units: least squares over adder, multiplier, requantiser and
# shifter costs. The backward's (their own inventories: requantisers by their
# rounding and overflow modes over the width they round to, a multiply-
# accumulate's products apart from a plain multiplier's; the sweep's points
# in every mode): the costs that minimise the worst error, the criterion the
# model is held to.
fitted = fit_least_squares(fwd_rows, OPS)
print("fitted GE per operator: " + ", ".join(f"{k} {v:.4f}" for k, v in fitted.items()))
print(f"worst relative error with the fitted costs: {100 * worst_error(fwd_rows, fitted):.1f}%")
print(f"const LogicCosts kFittedLogicCosts{{{fitted['adder_bits']:.4f}, {fitted['multiplier_bit_products']:.4f}, "
      f"{fitted['requant_bits']:.4f}, {fitted['shifter_bits']:.4f}}};")
BOPS = ["adder_bits", "multiplier_bit_products", "mac_bit_products", "round_bits", "saturate_bits"]
bfitted = fit_minimax(bwd_rows, BOPS) if bwd_rows else {}
if bwd_rows:
    print("backward: fitted GE per operator: " + ", ".join(f"{k} {v:.4f}" for k, v in bfitted.items()))
    print(f"backward: worst relative error with the fitted costs: {100 * worst_error(bwd_rows, bfitted):.1f}%")
    print(f"const LogicCosts kFittedBackwardLogicCosts{{{bfitted['adder_bits']:.4f}, {bfitted['multiplier_bit_products']:.4f}, "
          f"0.0, 0.0, {bfitted['mac_bit_products']:.4f}, {bfitted['round_bits']:.4f}, {bfitted['saturate_bits']:.4f}}};")

# Logic depth (sim/rtl/timing_closure.cpp's depth_fits): yosys's `ltp -noff`
# gate levels of one RTL stage against log2 of its multiplier bit products
# (the RSQRT unit's a Newton step's: the linear seed's shallower multiply-add
# taken out), a + b log2 per unit.
ITERS = {p["label"]: int(next(s for s in p["sets"] if "iterations" in s).split("=")[1]) for p in SWEEP}
SEED_PRODUCTS = {p["label"]: p.get("seed_products", 0) for p in SWEEP}
TIMED = {"welford_lanes", "chan_merge_tree", "rsqrt_unit", "normalize_affine"}  # the units sim/rtl/timing_closure.cpp times
depth = {}
for label, r in results:
    for u in r["units"]:
        if u["unit"] in TIMED and "synth" in u and u["synth"].get("logic_levels") and "operators_per_instance" in u:
            prod = u["operators_per_instance"]["multiplier_bit_products"]
            unit = u["unit"]
            if unit == "rsqrt_unit" and own_unit(label):
                unit = OWN_UNITS[own_unit(label)]["depth_fit"]  # over all its products
            elif unit == "rsqrt_unit":
                prod = (prod - SEED_PRODUCTS[label]) / ITERS[label]
            depth.setdefault(unit, []).append((np.log2(prod), u["synth"]["logic_levels"]))
depth_lines = ["| unit | a | b | worst error |", "|---|---|---|---|"]
for unit, pts in depth.items():
    X = np.array([[1, x] for x, _ in pts])
    y = np.array([d for _, d in pts], dtype=float)
    (a, b_), *_ = np.linalg.lstsq(X, y, rcond=None)
    err = max(abs((a + b_ * x) / d - 1) for x, d in pts)
    print(f'depth fit {{"{unit}", {a:.2f}, {b_:.3f}, {err:.3f}}}')
    depth_lines.append(f"| {unit} | {a:.2f} | {b_:.3f} | {100 * err:.1f}% |")
if args.fit_only:
    sys.exit(0)

# The table: the model as built (its constants) against synthesis.
lines = ["| point | unit | synth GE / instance | analytic GE / instance | error |", "|---|---|---|---|---|"]
worst = 0.0
for label, unit, inv, syn, ana in rows:
    err = ana / syn - 1
    worst = max(worst, abs(err))
    lines.append(f"| {label} | {unit} | {syn:.0f} | {ana:.0f} | {100 * err:+.1f}% |")
small_bad = []
for label, unit, inv, syn, ana in small_rows:
    lines.append(f"| {label} | {unit} | {syn:.0f} | {ana:.0f} | {ana - syn:+.0f} GE (under {SMALL_GE} GE: absolute) |")
    if abs(ana - syn) > SMALL_GE:
        small_bad.append(f"{label} {unit}")
summary = (f"{len(rows)} unit syntheses over {len(SWEEP)} sweep points; worst error of the analytic model as built: "
           f"**{100 * worst:.1f}%** (target 10%). Costs fitted on this sweep, the forward's units: "
           + ", ".join(f"{k.replace('_', ' ')} {v:.3f} GE" for k, v in fitted.items())
           + "; the backward's: " + ", ".join(f"{k.replace('_', ' ')} {v:.3f} GE" for k, v in bfitted.items())
           + f"; flip-flop {FF_GE} GE.")
doc = root / "docs/AREA.md"
text = doc.read_text()
begin, end = "<!-- BEGIN generated by tools/area/calibrate_area.py -->", "<!-- END generated -->"
i, j = text.index(begin) + len(begin), text.index(end)
depth_summary = ("Logic depth, gates of one RTL stage = a + b log2(its multiplier bit products), fitted to yosys's "
                 "`ltp -noff` on the same syntheses (sim/rtl/timing_closure.cpp):")
doc.write_text(text[:i] + "\n\n" + summary + "\n\n" + "\n".join(lines) + "\n\n" + depth_summary + "\n\n" +
               "\n".join(depth_lines) + "\n\n" + text[j:])
print(f"calibrate_area: wrote {doc} (worst error {100 * worst:.1f}%)")
if small_bad:
    print("calibrate_area: off by more than " + str(SMALL_GE) + " GE: " + ", ".join(small_bad))
sys.exit(0 if worst <= 0.10 and not small_bad else 1)
