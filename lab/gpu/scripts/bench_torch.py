#!/usr/bin/env python3
"""torch.nn.functional.layer_norm / rms_norm, eager and torch.compile'd, on the
same shapes as fast_norm_bench (2^27 elements, C from 768 to 65536, fp32 and
bf16), timed like it: CUDA events after a warm-up, the L2 flushed (256 MiB
write) before every timed call, medians. One JSON object per line.
With --ours LIB (libfast_norm_capi.so), fast_ln / fast_rms run on the same
tensors and are timed in the same loop (mode "ours"): the calls of one case
take turns rep by rep, so drift and buffer placement are shared; their
output is checked against torch eager's. A copy of the case's own x (mode
"copy") takes its turn in the same loop: each record's pct_copy is against
the copy of that case.
--c all: every multiple of 256 from 768 to 8192, of 1024 from 9216 to 32768,
then 49152 and 65536 (56 row lengths). --out FILE appends the records there
and skips the (op, dtype, C) cases FILE already holds, so that a run cut
short by --deadline-s (or a lost machine) goes on where it stopped.
  bench_torch.py [--reps 20] [--no-compile] [--ours LIB] [--c all|C,C,...] [--out FILE] [--deadline-s S]
"""
import argparse, ctypes, json, os, sys, time
import torch
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--reps", type=int, default=20)
ap.add_argument("--no-compile", action="store_true")
ap.add_argument("--ours", help="libfast_norm_capi.so: time fast_ln / fast_rms on the same tensors")
ap.add_argument("--c", default="768,1024,2048,4096,8192,16384,65536", help="'all' or a comma-separated list of row lengths")
ap.add_argument("--out", help="append the records to this JSONL file and skip the cases it holds")
ap.add_argument("--deadline-s", type=float, default=0, help="start no case after this many seconds (0: none)")
args = ap.parse_args()
if args.c == "all":
    row_lengths = list(range(768, 8192 + 1, 256)) + list(range(9216, 32768 + 1, 1024)) + [49152, 65536]
else:
    row_lengths = [int(c) for c in args.c.split(",")]
done = set()
if args.out and os.path.exists(args.out):
    for line in open(args.out):
        try:
            r = json.loads(line)
        except ValueError:
            continue  # a torn last line
        if r.get("mode") == "copy":
            done.add((r["op"], r["dtype"], r["C"]))
out_file = open(args.out, "a") if args.out else None
started = time.time()


def emit(rec):
    line = json.dumps(rec)
    print(line, flush=True)
    if out_file:
        out_file.write(line + "\n")
        out_file.flush()
torch._dynamo.config.cache_size_limit = 256
dev = "cuda"
flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)


def median_us_interleaved(fns):
    """{name: fn} timed rep by rep in turn; {name: median us}."""
    for fn in fns.values():
        for _ in range(3):
            fn()
    torch.cuda.synchronize()
    ts = {k: [] for k in fns}
    for i in range(args.reps):
        for k, fn in fns.items():
            flush.fill_(i & 0xFF)
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            fn()
            e1.record()
            e1.synchronize()
            ts[k].append(e0.elapsed_time(e1) * 1e3)
    return {k: sorted(v)[len(v) // 2] for k, v in ts.items()}


def median_us(fn):
    return median_us_interleaved({"fn": fn})["fn"]


ours = None
if args.ours:
    ours = ctypes.CDLL(args.ours)
    ours.normref_fast_norm.restype = ctypes.c_int
    ours.normref_fast_norm.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 6 + [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]


def our_norm(rms, x, w, b, y, mean, rstd):
    err = ours.normref_fast_norm(int(x.dtype == torch.bfloat16), int(rms), y.data_ptr(), mean.data_ptr(), rstd.data_ptr(),
                                 x.data_ptr(), w.data_ptr(), b.data_ptr(), x.shape[0], x.shape[1],
                                 torch.cuda.current_stream().cuda_stream)
    if err:
        raise RuntimeError(f"normref_fast_norm: cudaError {err}")


n = 1 << 27
src = torch.randn(n, device=dev)
dst = torch.empty_like(src)
copy_us = median_us(lambda: dst.copy_(src))
copy_gbps = 2 * n * 4 / (copy_us * 1e3)
emit({"kernel": "torch_copy", "us": round(copy_us, 2), "gbps": round(copy_gbps, 1)})

for dtype in (torch.float32, torch.bfloat16):
    dname = str(dtype).split(".")[-1].replace("float32", "fp32").replace("bfloat16", "bf16")
    for C in row_lengths:
        if all((op, dname, C) in done for op in ("layer_norm", "rms_norm")):
            continue
        if args.deadline_s and time.time() - started > args.deadline_s:
            emit({"skipped": f"{dname} C={C} and later: past --deadline-s"})
            break
        rows = n // C
        x = torch.randn(rows, C, device=dev, dtype=dtype)
        w = torch.randn(C, device=dev, dtype=dtype)
        b = torch.randn(C, device=dev, dtype=dtype)
        eb = x.element_size()
        ops = {"layer_norm": lambda x=x, w=w, b=b, C=C: F.layer_norm(x, (C,), w, b, 1e-5),
               "rms_norm": lambda x=x, w=w, C=C: F.rms_norm(x, (C,), w, 1e-5)}
        for name, fn in ops.items():
            if (name, dname, C) in done:
                continue
            xc = torch.empty_like(x)
            fns = {"copy": lambda x=x, xc=xc: xc.copy_(x), "eager": fn}
            compile_s = {}
            if not args.no_compile:
                t0 = time.time()
                fns["compile"] = torch.compile(fn, dynamic=False)
                fns["compile"]()
                compile_s["compile"] = round(time.time() - t0, 1)
            check = None
            if ours is not None:
                y, mean, rstd = torch.empty_like(x), torch.empty(rows, device=dev), torch.empty(rows, device=dev)
                rms = name == "rms_norm"
                fns["ours"] = lambda rms=rms, x=x, w=w, b=b, y=y, mean=mean, rstd=rstd: our_norm(rms, x, w, b, y, mean, rstd)
                fns["ours"]()
                ref = fn().float()
                check = (y.float() - ref).abs().max().item() / (ref.abs().max().item() + 1.0)
            us_by_mode = median_us_interleaved(fns)
            bytes_ = 2 * rows * C * eb + (2 if name == "layer_norm" else 1) * C * eb
            case_copy_gbps = 2 * rows * C * eb / (us_by_mode["copy"] * 1e3)
            # The copy last: a reader that finds it knows the case is whole.
            for mode in [m for m in us_by_mode if m != "copy"] + ["copy"]:
                us = us_by_mode[mode]
                gbps = (bytes_ if mode != "copy" else 2 * rows * C * eb) / (us * 1e3)
                kernel = {"ours": "fast_rms" if name == "rms_norm" else "fast_ln", "copy": "torch_copy"}.get(mode, f"torch_{name}")
                rec = {"kernel": kernel, "op": name, "mode": mode, "dtype": dname,
                       "C": C, "rows": rows, "reps": args.reps, "us": round(us, 2), "gbps": round(gbps, 1),
                       "copy_gbps": round(case_copy_gbps, 1), "pct_copy": round(100 * gbps / case_copy_gbps, 1)}
                if mode in compile_s:
                    rec["compile_s"] = compile_s[mode]
                if mode == "ours":
                    rec["max_rel_diff_vs_eager"] = check
                emit(rec)
            del xc
        del x, w, b
emit({"torch": torch.__version__})
