#!/usr/bin/env python3
"""Builds gpu_ref/golden/<gpu>/ from what run_golden.sh brought back:
index.json (a list of cases, the DESIGN.md golden format), env.json, the
.npy outputs, sass_facts.json and the per-case table of SUMMARY.md (the
analysis sections are kept from the existing SUMMARY.md, between markers).

usage: build_golden.py TIMING_DIR NCU_DIR NPY_DIR OUT_DIR [--merge]
--merge: keep OUT_DIR's cases that this run did not record (a run of some
kernels only, e.g. run_frontier.sh); the run's SASS replaces the old.
Standard library only."""
import csv, glob, json, os, re, shutil, sys

timing_dir, ncu_dir, npy_dir, out_dir = sys.argv[1:5]
merge = "--merge" in sys.argv[5:]
os.makedirs(os.path.join(out_dir, "outputs"), exist_ok=True)


def ncu_metrics(case_id):
    path = os.path.join(ncu_dir, f"n_{case_id}.csv")
    if not os.path.exists(path):
        return None
    lines = [l for l in open(path) if l.startswith('"')]
    if not lines:
        return None
    per_kernel = {}
    for row in csv.DictReader(lines):
        k = per_kernel.setdefault(row["ID"], {"name": row["Kernel Name"].split("(")[0]})
        k[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    ks = list(per_kernel.values())
    total = lambda m: sum(k.get(m, 0.0) for k in ks)
    return {
        "dram_bytes_read": int(total("dram__bytes_read.sum")),
        "dram_bytes_written": int(total("dram__bytes_write.sum")),
        "lts_bytes": int(total("lts__t_bytes.sum")),
        "duration_us": total("gpu__time_duration.sum") / 1e3,
        "sm_cycles": total("sm__cycles_elapsed.avg"),
        "registers_per_thread": int(max(k.get("launch__registers_per_thread", 0) for k in ks)),
        "kernels": [k["name"] for k in ks],
    }


cases, unsupported = [], []
env = None
for path in sorted(glob.glob(os.path.join(timing_dir, "t_*.json"))):
    case_id = os.path.basename(path)[2:-5]
    try:
        t = json.load(open(path))
    except (json.JSONDecodeError, ValueError):
        continue
    ncu = ncu_metrics(case_id)
    outputs = None
    if t.get("outputs"):
        stem = os.path.basename(t["outputs"])
        outputs = {}
        for part in ("y", "mean", "rstd", "z", "dx", "dgamma", "dbeta"):
            src = os.path.join(npy_dir, f"{stem}_{part}.npy")
            if os.path.exists(src):
                shutil.copy(src, os.path.join(out_dir, "outputs", f"{stem}_{part}.npy"))
                outputs[part] = f"outputs/{stem}_{part}.npy"
    case = {
        "id": case_id, "kernel": t["kernel"], "ran": t["ran"], "rows": t["rows"], "hidden": t["hidden"],
        "dtype": t["dtype"], "block": t["block"], "grid": t["grid"],
        "time_us": t["time_us"], "time_us_min": t["time_us_min"], "time_us_max": t["time_us_max"], "reps": t["reps"],
        "copy_gbps": t["copy_gbps"], "gbps": t["gbps"], "pct_of_copy": t["pct_of_copy"],
        "ideal_bytes": t["ideal_bytes"], "bytes_formula": t["bytes_formula"],
        "ncu": ncu, "registers_per_thread": t["registers_per_thread"],
        "dynamic_smem_bytes": t["dynamic_smem_bytes"], "static_smem_bytes": t["static_smem_bytes"],
        "outputs": outputs, "seed": t["seed"], "dist": t["dist"], "dist_mean": t["dist_mean"],
        "dist_sigma": t["dist_sigma"], "eps": t["eps"], "valid": t["validation"]["valid"],
        "validation": t["validation"],
    }
    if t.get("dropout_p"):  # fused_residual_dropout: its drop probability and the mask's share
        case["dropout_p"] = t["dropout_p"]
        case["dropped_fraction"] = t["dropped_fraction"]
    cases.append(case)
    if env is None:
        env = {k: t[k] for k in ("device", "sms", "l2_bytes", "sm_clock_khz", "nvcc_flags", "cuda_runtime")}
for path in sorted(glob.glob(os.path.join(timing_dir, "t_*.err"))):
    case_id = os.path.basename(path)[2:-4]
    if os.path.exists(os.path.join(timing_dir, f"t_{case_id}.json")):
        continue
    msg = open(path).read().strip()
    unsupported.append({"id": case_id, "status": "unsupported", "reason": msg})

if merge and os.path.exists(os.path.join(out_dir, "index.json")):
    fresh = {c["id"] for c in cases}
    old = json.load(open(os.path.join(out_dir, "index.json")))
    cases = [c for c in old if c["id"] not in fresh] + cases
    old_env = json.load(open(os.path.join(out_dir, "env.json")))
    fresh_unsupported = {u["id"] for u in unsupported}
    unsupported = [u for u in old_env.get("unsupported_cases", []) if u["id"] not in fresh and u["id"] not in fresh_unsupported] + unsupported
for extra in ("nvidia_smi.csv", "nvcc_version.txt"):
    p = os.path.join(timing_dir, extra)
    if os.path.exists(p) and env is not None:
        env[extra.split(".")[0]] = open(p).read().strip()
env["timing"] = ("CUDA events around the kernel launch(es); L2 flushed (256 MiB memset) before every timed run; "
                 "3 warm-up runs; median of 25; copy kernel (1 GiB float4 copy) timed the same way in the same process")
env["ncu"] = ("ncu --clock-control none --print-units base, default cache control (caches flushed before each "
              "profiled kernel); one launch per case (normref --profile); metrics summed over a case's kernels")
env["unsupported_cases"] = unsupported
json.dump(cases, open(os.path.join(out_dir, "index.json"), "w"), indent=1)
json.dump(env, open(os.path.join(out_dir, "env.json"), "w"), indent=1)
shutil.copy(os.path.join(timing_dir, "sass_facts.json"), os.path.join(out_dir, "sass_facts.json"))
if os.path.exists(os.path.join(timing_dir, "normref.sass")):  # the SASS the cases ran (cuobjdump -sass)
    import gzip
    with open(os.path.join(timing_dir, "normref.sass"), "rb") as f, gzip.GzipFile(
            os.path.join(out_dir, "normref.sass.gz"), "wb", mtime=0) as g:
        shutil.copyfileobj(f, g)

# --- SUMMARY.md: generated table between markers, hand-written analysis kept.
def fmt_case(c):
    n = c["ncu"] or {}
    esize = 2 if c["dtype"] == "bf16" else 4
    in_bytes = c["rows"] * c["hidden"] * esize
    rd = n.get("dram_bytes_read")
    wr = n.get("dram_bytes_written")
    return "| {kernel}{ran} | {dtype} | {rows}x{hidden} | {block} | {dist} | {t:.1f} | {gbps:.0f} | {pct:.1f} | {rd} | {wr} | {l2} | {regs} | {valid} |".format(
        kernel=c["kernel"], ran="" if c["ran"] == c["kernel"] else f" (ran {c['ran']})", dtype=c["dtype"],
        rows=c["rows"], hidden=c["hidden"], block=c["block"], dist=c["dist"], t=c["time_us"], gbps=c["gbps"],
        pct=c["pct_of_copy"], rd=f"{rd / in_bytes:.2f}" if rd is not None else "-",
        wr=f"{wr / in_bytes:.2f}" if wr is not None else "-",
        l2=f"{n['lts_bytes'] / in_bytes:.2f}" if n else "-", regs=c["registers_per_thread"],
        valid="yes" if c["valid"] else "**no**")

table = ["| kernel | dtype | shape | block | dist | time us (median) | GB/s | % of copy | DRAM read / input | DRAM write / output | L2 bytes / input | regs | valid |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
order = {k: i for i, k in enumerate("v1 v2 v3 v4 v5 v6 welford_warp_reg welford_block_smem block_reread rms_warp rms_block "
                                    "fast_ln fast_rms fused_residual fused_residual_dropout bwd_atomic bwd_twolevel".split())}
for c in sorted(cases, key=lambda c: (c["rows"] * c["hidden"] < 300000, c["dist"], c["hidden"], c["rows"], order.get(c["kernel"], 99), c["dtype"], c["block"])):
    table.append(fmt_case(c))
table.append("")
table.append("Not run (the kernel's on-chip scheme cannot hold the row; normref exits 2):")
table.append("")
for u in unsupported:
    table.append(f"* `{u['id']}`: {u['reason']}")
generated = "\n".join(table)

summary_path = os.path.join(out_dir, "SUMMARY.md")
begin, end = "<!-- BEGIN GENERATED TABLE -->", "<!-- END GENERATED TABLE -->"
text = open(summary_path).read() if os.path.exists(summary_path) else f"# Golden data\n\n{begin}\n{end}\n"
text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda m: f"{begin}\n{generated}\n{end}", text, flags=re.S)
open(summary_path, "w").write(text)
print(f"{len(cases)} cases, {len(unsupported)} unsupported -> {out_dir}")
