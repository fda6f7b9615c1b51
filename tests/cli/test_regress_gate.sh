#!/usr/bin/env bash
# The fidelity gate (docs/FIDELITY.md): regress on the committed golden data
# exits 0 -- every threshold and the committed per-case baseline hold -- and
# its JSON keeps its contract. One regress run (~25 s) serves both.
set -uo pipefail
source "$(dirname "$0")/cli_lib.sh"

# regress on the committed golden data: the JSON contract, and exit 0 (the
# thresholds and the committed per-case baseline hold). Run from another
# folder with no argument: the shipped golden data is found from anywhere.
mkdir -p "$T/elsewhere"
(cd "$T/elsewhere" && "$N" regress --json -q) >"$T/regress.json" 2>/dev/null; rrc=$?
/usr/bin/python3 - "$T/regress.json" "$rrc" "$S/gpu_ref/golden/h200/index.json" <<'PY' && ok || bad "regress --json contract / exit code"
import json, sys
j = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
golden = json.load(open(sys.argv[3]))
s = j["summary"]
for k in ("cases", "dram_read_max_rel_error", "duration_mae", "duration_corr", "bit_exact_cases"):
    assert k in s, k
assert s["cases"] == len(j["cases"]) >= 100
assert j["held_out"]["cases"] * 10 >= s["cases"] * 3
assert s["bit_exact_cases"] == s["outputs_compared"] == 73
assert rc == 0 and j["pass"] and j["failures"] == [], (rc, j["failures"])
assert j["baseline"].endswith("regress_baseline.json") and j["baseline_misses"] == [], j["baseline"]
# Ranges: every case's ranges as [lo, hi] around its prediction; firmness by the cliff's elasticity.
for c in j["cases"]:
    p = c["predicted"]
    for k, (lo, hi) in p["range"].items():
        assert 0 <= lo <= p[k] <= hi, (c["id"], k, lo, p[k], hi)
    assert p["firmness"] in ("firm", "on the L2 cliff", "scattered stores"), p["firmness"]
    assert (p["firmness"] == "on the L2 cliff") == (p["dram_read_elasticity"] >= j["thresholds"]["cliff_elasticity"])
    assert c["in_range"]["dram_bytes_read"] == (p["range"]["dram_bytes_read"][0] <= c["measured"]["dram_bytes_read"] <= p["range"]["dram_bytes_read"][1])
# The elasticity bands partition the cases by their predicted elasticity.
bands = j["by_dram_read_elasticity"]
assert [b["band"] for b in bands] == ["below 0.1", "0.1 to 0.5", "0.5 and above"], bands
assert sum(b["summary"]["cases"] for b in bands) == s["cases"]
for b in bands:
    lo, hi = b["elasticity_min"], b["elasticity_max"] if b["elasticity_max"] is not None else float("inf")
    mine = [c for c in j["cases"] if lo <= c["predicted"]["dram_read_elasticity"] < hi]
    assert len(mine) == b["summary"]["cases"], b["band"]
    target = j["thresholds"]["dram_read_firm_max_rel_error"]
    assert b["dram_read_within_target"] == sum(abs(c["rel_error"]["dram_bytes_read"]) <= target for c in mine), b
# asic_cases: the ASIC datapath as every forward kernel, bit for bit, and the
# backward datapath as both backward kernels (their dgamma/dbeta too, but for
# the atomics' open order).
assert len(j["asic_cases"]) == 73 and all(a["outputs"]["bit_exact"] for a in j["asic_cases"]), j["asic_cases"][:2]
bwd = [a for a in j["asic_cases"] if a["pass"] == "backward"]
assert len(bwd) == 12 and all(a["outputs"]["parameter_order_free"] == (a["kernel"] == "bwd_atomic") for a in bwd), bwd
# asic_time: the ASIC model as the GPU on the bandwidth-bound cases. On the
# 0.25-1 GB streams of every C but 65536 (the streamed cluster, a known
# 9-15% miss: FIDELITY.md) it lands within 5% of ncu's duration, and within
# 3.5% for fp32. Its DRAM is the plain flat copy's 4.219 TB/s: fp32 fast_*
# loads x evict-last and streams up to 3% past it, as a copy with such loads
# does (lab/records/h200/copy_shape_probe.jsonl); bf16 LayerNorm at C = 16384 streams at 95%
# of it, so the model is 4.8% fast there.
t = j["asic_time"]
assert j["asic_time_summary"]["cases"] == len(t) >= 19, j["asic_time_summary"]
# ... exactly the one-read forward kernels' cases that stream at >= 2/3 of
# the H200's 4.219 TB/s (read + written bytes over ncu's duration).
one_read = {"fast_ln", "fast_rms", "v6", "welford_warp_reg", "welford_block_smem"}
want = {g["id"] for g in golden if g["kernel"] in one_read and
        (g["ncu"]["dram_bytes_read"] + g["ncu"]["dram_bytes_written"]) / (g["ncu"]["duration_us"] * 1e-6) >= 2 / 3 * 4.219e12}
assert {c["id"] for c in t} == want, sorted(want ^ {c["id"] for c in t})
big = [c for c in t if c["measured_us"] > 120 and "x65536" not in c["id"]]
assert len(big) >= 12 and all(abs(c["rel_error"]) < (0.035 if "fp32" in c["id"] else 0.05) for c in big), big
PY

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
