#!/usr/bin/env python3
"""torch.nn.functional.layer_norm / rms_norm, eager and torch.compile'd, on the
same shapes as fast_norm_bench (2^27 elements, C from 768 to 65536, fp32 and
bf16), timed like it: CUDA events after a warm-up, the L2 flushed (256 MiB
write) before every timed call, medians. One JSON object per line.
  bench_torch.py [--reps 20] [--no-compile]
"""
import argparse, json, sys, time
import torch
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--reps", type=int, default=20)
ap.add_argument("--no-compile", action="store_true")
args = ap.parse_args()
torch._dynamo.config.cache_size_limit = 256
dev = "cuda"
flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)


def median_us(fn):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for i in range(args.reps):
        flush.fill_(i & 0xFF)
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        ts.append(e0.elapsed_time(e1) * 1e3)
    ts.sort()
    return ts[len(ts) // 2]


n = 1 << 27
src = torch.randn(n, device=dev)
dst = torch.empty_like(src)
copy_us = median_us(lambda: dst.copy_(src))
copy_gbps = 2 * n * 4 / (copy_us * 1e3)
print(json.dumps({"kernel": "torch_copy", "us": round(copy_us, 2), "gbps": round(copy_gbps, 1)}), flush=True)

for dtype in (torch.float32, torch.bfloat16):
    for C in (768, 1024, 2048, 4096, 8192, 16384, 65536):
        rows = n // C
        x = torch.randn(rows, C, device=dev, dtype=dtype)
        w = torch.randn(C, device=dev, dtype=dtype)
        b = torch.randn(C, device=dev, dtype=dtype)
        eb = x.element_size()
        ops = {"layer_norm": lambda x=x, w=w, b=b, C=C: F.layer_norm(x, (C,), w, b, 1e-5),
               "rms_norm": lambda x=x, w=w, C=C: F.rms_norm(x, (C,), w, 1e-5)}
        for name, fn in ops.items():
            for mode in ("eager", "compile"):
                if mode == "compile" and args.no_compile:
                    continue
                f = fn
                t0 = time.time()
                if mode == "compile":
                    f = torch.compile(fn, dynamic=False)
                    f()
                compile_s = time.time() - t0
                us = median_us(f)
                bytes_ = 2 * rows * C * eb + (2 if name == "layer_norm" else 1) * C * eb
                gbps = bytes_ / (us * 1e3)
                print(json.dumps({"kernel": f"torch_{name}", "mode": mode, "dtype": str(dtype).split(".")[-1].replace("float32", "fp32").replace("bfloat16", "bf16"),
                                  "C": C, "rows": rows, "us": round(us, 2), "gbps": round(gbps, 1),
                                  "copy_gbps": round(copy_gbps, 1), "pct_copy": round(100 * gbps / copy_gbps, 1),
                                  "compile_s": round(compile_s, 1)}), flush=True)
        del x, w, b
print(json.dumps({"torch": torch.__version__}), flush=True)
