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
--liger DIR: Liger-Kernel's Triton kernels (LigerLayerNormFunction,
LigerRMSNormFunction; a copy of its source, e.g. a copy of ../shared/peers/liger,
imported from DIR at run time) take their turn in the same loop (mode "liger").
--pass bwd: the backward instead (--c defaults to 768,2304,4096,8192):
autograd.grad of each implementation's own forward graph (rebuilt untimed
before every rep, dy restored: Liger's RMSNorm writes dx over dy), and with
--ours the LayerNorm backward (bwd_twolevel: dx, dgamma, dbeta) on the
statistics of fast_ln, and the RMSNorm backward on fast_rms's (both
bwd_twolevel: dx, dgamma (, dbeta)); where the shipped power-of-two block
leaves threads idle (C = 768, 2304) also a block of exactly the row's
vectors (mode ours_t96 / ours_t288), and each with the next row prefetched
(mode ..._pf); bytes counted as x, dy read and dx
written.
--c all: every multiple of 256 from 768 to 8192, of 1024 from 9216 to 32768,
then 49152 and 65536 (56 row lengths). --out FILE appends the records there
and skips the (op, dtype, C) cases FILE already holds, so that a run cut
short by --deadline-s (or a lost machine) goes on where it stopped.
  bench_torch.py [--reps 20] [--no-compile] [--ours LIB] [--liger DIR] [--pass fwd|bwd] [--c all|C,C,...] [--dtypes fp32,bf16]
                 [--out FILE] [--deadline-s S]
"""
import argparse, ctypes, json, os, sys, time
import torch
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--reps", type=int, default=20)
ap.add_argument("--no-compile", action="store_true")
ap.add_argument("--ours", help="libfast_norm_capi.so: time fast_ln / fast_rms on the same tensors")
ap.add_argument("--liger", help="a directory holding the liger_kernel package: time its Triton kernels too")
ap.add_argument("--pass", dest="pass_", choices=("fwd", "bwd"), default="fwd")
ap.add_argument("--c", default=None, help="'all' or a comma-separated list of row lengths")
ap.add_argument("--dtypes", default="fp32,bf16", help="the element types to run (fp32, bf16 or both)")
ap.add_argument("--out", help="append the records to this JSONL file and skip the cases it holds")
ap.add_argument("--deadline-s", type=float, default=0, help="start no case after this many seconds (0: none)")
args = ap.parse_args()
if args.c is None:
    args.c = "768,2304,4096,8192" if args.pass_ == "bwd" else "768,1024,2048,4096,8192,16384,65536"
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
        if r.get("mode") == "copy" and r.get("pass", "fwd") == args.pass_:
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



ours = None
if args.ours:
    ours = ctypes.CDLL(args.ours)
    ours.normref_fast_norm.restype = ctypes.c_int
    ours.normref_fast_norm.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 6 + [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    ours.normref_norm_backward_blocks.restype = ctypes.c_int
    ours.normref_norm_backward_blocks.argtypes = [ctypes.c_int] * 5
    ours.normref_norm_backward.restype = ctypes.c_int
    ours.normref_norm_backward.argtypes = [ctypes.c_int] * 2 + [ctypes.c_void_p] * 9 + [ctypes.c_int] * 4 + [ctypes.c_void_p]
    ours.normref_norm_backward_prefetch_blocks.restype = ctypes.c_int
    ours.normref_norm_backward_prefetch_blocks.argtypes = [ctypes.c_int] * 5
    ours.normref_norm_backward_prefetch.restype = ctypes.c_int
    ours.normref_norm_backward_prefetch.argtypes = ours.normref_norm_backward.argtypes

liger_ln = liger_rms = None
if args.liger:
    sys.path.insert(0, args.liger)
    try:
        import packaging.version  # noqa: F401  (Liger's utils import it)
    except ImportError:
        sys.path.append(os.path.join(args.liger, "_fallback"))
    from liger_kernel.ops.layer_norm import LigerLayerNormFunction as liger_ln
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction as liger_rms

EPS = 1e-5


def our_norm(rms, x, w, b, y, mean, rstd):
    err = ours.normref_fast_norm(int(x.dtype == torch.bfloat16), int(rms), y.data_ptr(), mean.data_ptr(), rstd.data_ptr(),
                                 x.data_ptr(), w.data_ptr(), b.data_ptr(), x.shape[0], x.shape[1],
                                 torch.cuda.current_stream().cuda_stream)
    if err:
        raise RuntimeError(f"normref_fast_norm: cudaError {err}")


def torch_fn(name, C):
    if name == "layer_norm":
        return lambda x, w, b: F.layer_norm(x, (C,), w, b, EPS)
    return lambda x, w, b: F.rms_norm(x, (C,), w, EPS)


def liger_fn(name):
    if name == "layer_norm":
        return lambda x, w, b: liger_ln.apply(x, w, b, EPS)
    # Llama-style LigerRMSNorm: offset 0, casting "llama", in place (dx over dy)
    return lambda x, w, b: liger_rms.apply(x, w, EPS, 0.0, "llama", True, None)


def rel_diff(a, ref):
    ref = ref.float()
    return (a.float() - ref).abs().max().item() / (ref.abs().max().item() + 1.0)


def timed(fns, pres):
    """{mode: median us}: modes take turns rep by rep; each rep's pre (untimed) then the L2 flush."""
    for k, fn in fns.items():
        for _ in range(3):
            if k in pres:
                pres[k]()
            fn()
    torch.cuda.synchronize()
    ts = {k: [] for k in fns}
    for i in range(args.reps):
        for k, fn in fns.items():
            if k in pres:
                pres[k]()
            flush.fill_(i & 0xFF)
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            fn()
            e1.record()
            e1.synchronize()
            ts[k].append(e0.elapsed_time(e1) * 1e3)
    return {k: sorted(v)[len(v) // 2] for k, v in ts.items()}


n = 1 << 27
src = torch.randn(n, device=dev)
dst = torch.empty_like(src)
copy_us = timed({"copy": lambda: dst.copy_(src)}, {})["copy"]
copy_gbps = 2 * n * 4 / (copy_us * 1e3)
emit({"kernel": "torch_copy", "us": round(copy_us, 2), "gbps": round(copy_gbps, 1), "device": torch.cuda.get_device_name()})
del src, dst


def forward_fns(name, dname, C, x, w, b, rows, checks):
    fn = torch_fn(name, C)
    eager = lambda: fn(x, w, b)
    fns = {"eager": eager}
    compile_s = {}
    if not args.no_compile:
        t0 = time.time()
        cf = torch.compile(fn, dynamic=False)
        fns["compile"] = lambda: cf(x, w, b)
        fns["compile"]()
        compile_s["compile"] = round(time.time() - t0, 1)
    ref = eager()
    if liger_ln is not None:
        lf = liger_fn(name)
        fns["liger"] = lambda: lf(x, w, b)
        checks["liger"] = rel_diff(fns["liger"](), ref)
    if ours is not None:
        y, mean, rstd = torch.empty_like(x), torch.empty(rows, device=dev), torch.empty(rows, device=dev)
        rms = name == "rms_norm"
        fns["ours"] = lambda: our_norm(rms, x, w, b, y, mean, rstd)
        fns["ours"]()
        checks["ours"] = rel_diff(y, ref)
    return fns, compile_s


def backward_fns(name, dname, C, x0, w0, b0, rows, checks):
    """{mode: fn} and {mode: pre}: pre rebuilds the forward graph (untimed)."""
    dy0 = torch.randn_like(x0)
    dy = dy0.clone()
    fns, pres, compile_s, grads = {}, {}, {}, {}
    impls = {"eager": torch_fn(name, C)}
    if not args.no_compile:
        impls["compile"] = torch.compile(torch_fn(name, C), dynamic=False)
    if liger_ln is not None:
        impls["liger"] = liger_fn(name)
    for mode, f in impls.items():
        x = x0.clone().requires_grad_(True)
        w = w0.clone().requires_grad_(True)
        b = b0.clone().requires_grad_(True)
        ins = (x, w, b) if name == "layer_norm" else (x, w)
        state = {}

        def pre(f=f, x=x, w=w, b=b, state=state):
            dy.copy_(dy0)
            state["y"] = f(x, w, b)

        t0 = time.time()
        pre()
        grads[mode] = [g.detach().clone() for g in torch.autograd.grad(state["y"], ins, dy)]
        if mode == "compile":
            compile_s[mode] = round(time.time() - t0, 1)
        pres[mode] = pre
        fns[mode] = lambda state=state, ins=ins: torch.autograd.grad(state["y"], ins, dy)
    if ours is not None:
        bf16, rms = int(x0.dtype == torch.bfloat16), int(name == "rms_norm")
        y, mean, rstd = torch.empty_like(x0), torch.empty(rows, device=dev), torch.empty(rows, device=dev)
        our_norm(bool(rms), x0, w0, b0, y, mean, rstd)
        gamma = w0.float().contiguous()
        stream = torch.cuda.current_stream().cuda_stream
        # The shipped block (0) and, where a power of two leaves threads
        # idle, the multiple of 32 that holds the row exactly (ours_t96/t288).
        vecs = 1 if bf16 else 2
        exact = -(-(C // (8 if bf16 else 4)) // vecs // 32) * 32
        # Each also with the next row prefetched (mode ..._pf: ln_backward PREFETCH).
        for threads, pf in [(t, p) for t in [0] + ([exact] if exact in (96, 288) else []) for p in (0, 1)]:
            blocks = (ours.normref_norm_backward_prefetch_blocks if pf else ours.normref_norm_backward_blocks)(
                bf16, rms, threads, rows, C)
            dx, dg, db = torch.empty_like(x0), torch.empty(C, device=dev), torch.empty(C, device=dev)
            partial = torch.empty(2 * blocks * C, device=dev)
            launch = ours.normref_norm_backward_prefetch if pf else ours.normref_norm_backward

            def run_ours(threads=threads, blocks=blocks, dx=dx, dg=dg, db=db, partial=partial, launch=launch):
                err = launch(bf16, rms, dx.data_ptr(), dg.data_ptr(), None if rms else db.data_ptr(),
                             partial.data_ptr(), dy0.data_ptr(), x0.data_ptr(), gamma.data_ptr(),
                             mean.data_ptr(), rstd.data_ptr(), rows, C, blocks, threads, stream)
                if err:
                    raise RuntimeError(f"normref_norm_backward: cudaError {err}")

            run_ours()
            mode = ("ours" if threads == 0 else f"ours_t{threads}") + ("_pf" if pf else "")
            grads[mode] = [dx.clone(), dg.clone()] + ([] if rms else [db.clone()])
            fns[mode] = run_ours
    ref = grads["eager"]
    for mode, g in grads.items():
        if mode != "eager":
            # dgamma (and dbeta) in fp32 against torch's, which are in x's dtype
            checks[mode] = max(rel_diff(a, r) for a, r in zip(g, ref))
    return fns, pres, compile_s


for dtype in [{"fp32": torch.float32, "bf16": torch.bfloat16}[d] for d in args.dtypes.split(",")]:
    dname = str(dtype).split(".")[-1].replace("float32", "fp32").replace("bfloat16", "bf16")
    for C in row_lengths:
        if all((op, dname, C) in done for op in ("layer_norm", "rms_norm")):
            continue
        if args.deadline_s and time.time() - started > args.deadline_s:
            emit({"skipped": f"{args.pass_} {dname} C={C} and later: past --deadline-s"})
            break
        rows = n // C
        x = torch.randn(rows, C, device=dev, dtype=dtype)
        w = (1.0 + 0.1 * torch.randn(C, device=dev)).to(dtype)
        b = (0.1 * torch.randn(C, device=dev)).to(dtype)
        eb = x.element_size()
        for name in ("layer_norm", "rms_norm"):
            if (name, dname, C) in done:
                continue
            xc = torch.empty_like(x)
            checks = {}
            try:
                if args.pass_ == "fwd":
                    fns, compile_s = forward_fns(name, dname, C, x, w, b, rows, checks)
                    pres = {}
                    bytes_ = 2 * rows * C * eb + (2 if name == "layer_norm" else 1) * C * eb
                else:
                    fns, pres, compile_s = backward_fns(name, dname, C, x, w, b, rows, checks)
                    bytes_ = 3 * rows * C * eb + (3 if name == "layer_norm" else 2) * C * eb
                fns["copy"] = lambda x=x, xc=xc: xc.copy_(x)
                us_by_mode = timed(fns, pres)
            except Exception as e:  # one case's failure (an OOM, a peer's error) is a record, not the end
                emit({"error": f"{type(e).__name__}: {e}"[:400], "pass": args.pass_, "op": name, "dtype": dname, "C": C})
                torch.cuda.empty_cache()
                continue
            case_copy_gbps = 2 * rows * C * eb / (us_by_mode["copy"] * 1e3)
            # The copy last: a reader that finds it knows the case is whole.
            for mode in [m for m in us_by_mode if m != "copy"] + ["copy"]:
                us = us_by_mode[mode]
                gbps = (bytes_ if mode != "copy" else 2 * rows * C * eb) / (us * 1e3)
                if mode.startswith("ours"):
                    kernel = ("fast_rms" if name == "rms_norm" else "fast_ln") if args.pass_ == "fwd" else \
                        ("bwd_rms_twolevel" if name == "rms_norm" else "bwd_twolevel")
                else:
                    kernel = {"copy": "torch_copy", "liger": f"liger_{name}"}.get(mode, f"torch_{name}")
                rec = {"kernel": kernel, "pass": args.pass_, "op": name, "mode": mode, "dtype": dname,
                       "C": C, "rows": rows, "reps": args.reps, "us": round(us, 2), "gbps": round(gbps, 1),
                       "copy_gbps": round(case_copy_gbps, 1), "pct_copy": round(100 * gbps / case_copy_gbps, 1)}
                if mode in compile_s:
                    rec["compile_s"] = compile_s[mode]
                if mode in checks:
                    rec["max_rel_diff_vs_eager"] = checks[mode]
                emit(rec)
            del xc, fns, pres
            torch.cuda.empty_cache()
        del x, w, b
emit({"torch": torch.__version__, "device": torch.cuda.get_device_name()})
