#!/usr/bin/env python3
"""Fits the SIMT model's one-wave sweep parameters -- l2.sweep_half_bytes,
l2.sweep_steepness, l2.evict_first_pool_bytes, l2.store_weight -- to the
golden l2_sweep_probe.jsonl (gpu_ref/microbench/l2_sweep_probe.cu: two
sweeps over X bytes in one kernel by the second sweep's load and store
hints), least squares on the missed fraction of the second sweep, by a
seeded random walk. The formula is the model's (docs/SIMT.md, Traffic):

   D(f) = X ((1 - f) + f n) + min(pool, X f e),  miss = 1 - mean_f h(D(f))

   tools/simt/fit_sweep_probe.py [gpu_ref/golden/h200/l2_sweep_probe.jsonl]"""
import json, math, pathlib, random, sys

root = pathlib.Path(__file__).resolve().parents[2]
path = sys.argv[1] if len(sys.argv) > 1 else root / "gpu_ref/golden/h200/l2_sweep_probe.jsonl"
points = []
for line in open(path):
    r = json.loads(line)
    if "error" in r or r["order"] != "linear" or r["p1"] != "plain" or r["p2"] == "none":
        continue
    X = r["bytes"]
    points.append((r["p2"], r["store"], X, min(1.0, max(0.0, (r["dram__bytes_read.sum"] - X) / X))))


def miss(p2, store, X, params):
    half, steep, pool, store_weight = params
    normal = (1.0 if p2 != "cs" else 0.0) + (store_weight if store == "plain" else 0.0)
    evict_first = (1.0 if p2 == "cs" else 0.0) + (1.0 if store == "cs" else 0.0)
    steps = 64
    hit = sum(1 / (1 + ((X * (1 - f + f * normal) + min(pool, X * f * evict_first)) / half) ** steep)
              for f in ((i + 0.5) / steps for i in range(steps)))
    return 1 - hit / steps


def sse(params):
    return sum((miss(a, b, X, params) - m) ** 2 for a, b, X, m in points)


random.seed(1)
best = (46e6, 19.0, 10e6, 0.6)
best_sse = sse(best)
for _ in range(3000):
    p = list(best)
    i = random.randrange(4)
    p[i] = p[i] * math.exp(random.gauss(0, 0.1)) if i < 3 else min(1.5, max(0.0, p[i] + random.gauss(0, 0.05)))
    e = sse(p)
    if e < best_sse:
        best, best_sse = tuple(p), e
print(f"{len(points)} points, RMS missed fraction {math.sqrt(best_sse / len(points)):.4f}")
for name, v in zip(("sweep_half_bytes", "sweep_steepness", "evict_first_pool_bytes", "store_weight"), best):
    print(f"  {name}: {v:.4g}")
