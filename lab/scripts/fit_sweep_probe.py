#!/usr/bin/env python3
"""Fits the SIMT model's L2 parameters to gpu_ref's l2_sweep_probe
(gpu_ref/microbench/l2_sweep_probe.cu), least squares on the missed
fraction of the re-read, by a seeded random walk:

* one-wave sweep -- l2.sweep_half_bytes, l2.sweep_steepness,
  l2.evict_first_pool_bytes, l2.store_weight -- from l2_sweep_probe.jsonl
  (two sweeps over X bytes in one kernel by the second sweep's load and
  store hints): D(f) = X ((1 - f) + f n) + min(pool, X f e);
* rows out of phase -- l2.reuse_half_bytes, l2.reuse_steepness at
  l2.reuse_steepness_rows rows in flight and its change per doubling of
  them, the pool and store weight kept -- from l2_steady_probe.jsonl (warps
  re-reading rows of L bytes, F = warps x L in flight, the two passes taken
  as equally long): D = F (1 + n) / 2 + min(pool, F e / 2).

Last, the L1's share of each steady re-read by its and the stores' hints
(four curves of the row bytes in flight per SM; not in the model yet).

n and e are the second pass's bytes at normal and at evict-first priority
per byte of x; miss = 1 - mean_f h(D(f)), the model's formula (docs/SIMT.md,
Traffic).

   lab/scripts/fit_sweep_probe.py [GOLDEN_DIR]"""
import json, math, pathlib, random, sys

root = pathlib.Path(__file__).resolve().parents[2]
golden = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else root / "gpu_ref/golden/h200")
points = []
for line in open(golden / "l2_sweep_probe.jsonl"):
    r = json.loads(line)
    if "error" in r or r["order"] != "linear" or r["p1"] != "plain" or r["p2"] == "none":
        continue
    X = r["bytes"]
    points.append((r["p2"], r["store"], X, min(1.0, max(0.0, (r["dram__bytes_read.sum"] - X) / X))))


def weights(p2, store, store_weight):
    normal = (1.0 if p2 != "cs" else 0.0) + (store_weight if store == "plain" else 0.0)
    evict_first = (1.0 if p2 == "cs" else 0.0) + (1.0 if store == "cs" else 0.0)
    return normal, evict_first


def h(d, half, steep):
    return 1 / (1 + (d / half) ** steep)


def sweep_miss(p2, store, X, params):
    half, steep, pool, store_weight = params
    normal, evict_first = weights(p2, store, store_weight)
    steps = 64
    fs = [(i + 0.5) / steps for i in range(steps)]
    return 1 - sum(h(X * (1 - f + f * normal) + min(pool, X * f * evict_first), half, steep) for f in fs) / steps


def walk(params, sse, log_steps):
    random.seed(1)
    best, best_sse = tuple(params), sse(params)
    for _ in range(3000):
        p = list(best)
        i = random.randrange(len(p))
        if log_steps[i] is True:
            p[i] *= math.exp(random.gauss(0, 0.1))
        else:  # an additive step within (lo, hi)
            lo, hi = log_steps[i]
            p[i] = min(hi, max(lo, p[i] + random.gauss(0, 0.05)))
        e = sse(p)
        if e < best_sse:
            best, best_sse = tuple(p), e
    return best, best_sse


sweep, sweep_sse = walk((46e6, 19.0, 10e6, 0.6), lambda p: sum((sweep_miss(a, b, X, p) - m) ** 2 for a, b, X, m in points),
                        (True, True, True, (0.0, 1.5)))
print(f"sweep: {len(points)} points, RMS missed fraction {math.sqrt(sweep_sse / len(points)):.4f}")
for name, v in zip(("sweep_half_bytes", "sweep_steepness", "evict_first_pool_bytes", "store_weight"), sweep):
    print(f"  {name}: {v:.4g}")

steady_points = []
for line in open(golden / "l2_steady_probe.jsonl"):
    r = json.loads(line)
    if "error" in r:
        continue
    X = r["bytes"]
    steady_points.append((r["p2"], r["store"], r["warps"], r["warps"] * r["row_bytes"],
                          min(1.0, max(0.0, (r["dram__bytes_read.sum"] - X) / X))))
pool, store_weight = sweep[2], sweep[3]
warp_counts = sorted({w for _, _, w, _, _ in steady_points})
reference = warp_counts[0]


def steepness(params, warps):
    # the steepness at the reference count, changing by a fixed step per doubling of the rows in flight
    return max(1.0, params[1] + params[2] * math.log2(warps / reference))


def steady_miss(p2, store, warps, F, params):
    normal, evict_first = weights(p2, store, store_weight)
    return 1 - h(F * (1 + normal) / 2 + min(pool, F * evict_first / 2), params[0], steepness(params, warps))


steady, steady_sse = walk((45e6, 6.0, -0.5),
                          lambda p: sum((steady_miss(a, b, w, F, p) - m) ** 2 for a, b, w, F, m in steady_points),
                          (True, True, (-3.0, 3.0)))
print(f"rows out of phase: {len(steady_points)} points ({', '.join(map(str, warp_counts))} warps), "
      f"RMS missed fraction {math.sqrt(steady_sse / len(steady_points)):.4f}")
for name, v in zip(("reuse_half_bytes", "reuse_steepness", "reuse_steepness_per_doubling"), steady):
    print(f"  {name}: {v:.4g}")
print(f"  reuse_steepness_rows: {reference}")

# The L1's share of a re-read (not used by the model yet; docs/SIMT.md,
# Fidelity): the steady probes' L2 read lookups give the fraction of each
# re-read the L1 served, 1 - (L2 reads - X) / X. Per (re-read hint, store
# hint) a curve h0 / (1 + (F / half)^s) of the row bytes in flight per SM,
# rows a warp and a block each pooled.
sms = 132
l1_points = {}
records = root / "lab/records/h200"
for name in ("l2_steady_probe.jsonl", "l2_steady_block_probe.jsonl"):
    for line in open((golden if (golden / name).exists() else records) / name):
        r = json.loads(line)
        if "error" in r:
            continue
        X = r["bytes"]
        rows = r["warps"] // (r.get("row_threads", 32) // 32)
        l2_reads = 32 * (r["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] +
                         r["lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum"])
        key = ("evict_first" if r["p2"] == "cs" else "normal", "evict_first" if r["store"] == "cs" else "normal")
        l1_points.setdefault(key, []).append((rows / sms * r["row_bytes"], min(1.0, max(0.0, 1 - (l2_reads - X) / X))))


def l1_hit(p, F):
    return min(1.0, p[0]) / (1 + (F / p[1]) ** p[2])


print("L1 share of the re-read, per SM, by (re-read, store) priority: hit_at_0, half bytes, steepness")
for key, pts in sorted(l1_points.items()):
    fit, sse = walk((0.9, 150e3, 3.0), lambda p: sum((l1_hit(p, F) - m) ** 2 for F, m in pts), (True, True, True))
    print(f"  {key[0]} re-read, {key[1]} stores: {min(1.0, fit[0]):.3f}, {fit[1]:.4g}, {fit[2]:.3f} "
          f"(RMS {math.sqrt(sse / len(pts)):.3f}, {len(pts)} points)")

# Two evict-first classes (not in the model; docs/SIMT.md, Fidelity): clean
# __ldcs lines displace at most a pool of normal lines, dirty __stcs lines
# each displace w of a normal line up to a pool of their own,
# D(f) = X ((1 - f) + f n) + min(pool, X f e) + min(store pool, w X f s).
# It fits the sweeps far better than the one shared pool above, including
# the `rows` order it is not fitted on.


def sweep_miss_two_pools(p2, store, X, params):
    half, steep, pool, store_weight, store_pool, ef_store_weight = params
    normal = (1.0 if p2 != "cs" else 0.0) + (store_weight if store == "plain" else 0.0)
    evict_first, ef_stores = (1.0 if p2 == "cs" else 0.0), (1.0 if store == "cs" else 0.0)
    fs = [(i + 0.5) / 64 for i in range(64)]
    return 1 - sum(h(X * (1 - f + f * normal) + min(pool, X * f * evict_first) +
                     min(store_pool, ef_store_weight * X * f * ef_stores), half, steep) for f in fs) / 64


two, two_sse = walk(tuple(sweep) + (12e6, 0.5),
                    lambda p: sum((sweep_miss_two_pools(a, b, X, p) - m) ** 2 for a, b, X, m in points),
                    (True, True, True, (0.0, 1.0), True, (0.0, 1.0)))
print(f"two evict-first pools, sweep: RMS missed fraction {math.sqrt(two_sse / len(points)):.4f} "
      f"(one shared pool: {math.sqrt(sweep_sse / len(points)):.4f})")
for name, v in zip(("sweep_half_bytes", "sweep_steepness", "evict_first_pool_bytes", "store_weight",
                    "evict_first_store_pool_bytes", "evict_first_store_weight"), two):
    print(f"  {name}: {v:.4g}")
by_variant = {}
for a, b, X, m in points:
    by_variant.setdefault((a, b), []).append((sweep_miss(a, b, X, sweep) - m, sweep_miss_two_pools(a, b, X, two) - m))
rows_points = []
for line in open(golden / "l2_sweep_probe.jsonl"):
    r = json.loads(line)
    if "error" not in r and r["order"] == "rows" and r["p1"] == "plain" and r["p2"] != "none":
        X = r["bytes"]
        rows_points.append((r["p2"], r["store"], X, min(1.0, max(0.0, (r["dram__bytes_read.sum"] - X) / X))))
for a, b, X, m in rows_points:
    by_variant.setdefault(("rows: " + a, b), []).append((sweep_miss(a, b, X, sweep) - m, sweep_miss_two_pools(a, b, X, two) - m))
for (a, b), r in sorted(by_variant.items()):
    rms = [math.sqrt(sum(x[i] ** 2 for x in r) / len(r)) for i in (0, 1)]
    print(f"  {a} re-read, {b} stores: RMS one pool {rms[0]:.3f}, two pools {rms[1]:.3f} ({len(r)} points)")
