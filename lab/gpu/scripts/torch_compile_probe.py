#!/usr/bin/env python3
"""What torch.compile generates for layer_norm / rms_norm (fp32, 2^27 elements)
and how fast it is, compiled afresh several times (Inductor autotunes on the
first call, so its choice can differ between compilations).
  trials:        TORCH_LOGS=output_code TRITON_PRINT_AUTOTUNING=1 torch_compile_probe.py trials [bf16]
                 (one JSON line per compilation: the op, C, median us of 20 timed calls, GB/s;
                 stderr holds the generated Triton source)
  one C ln|rms [bf16]:  the compiled op once between cudaProfilerStart/Stop, for
                 ncu --profile-from-start off (launch shape, registers, DRAM bytes, duration)
Recorded with its results in lab/records/h200/torch_compile_probe.jsonl.
"""
import json, sys
import torch
import torch.nn.functional as F

torch._dynamo.config.cache_size_limit = 256
n = 1 << 27


def op(name, x, w, b, C):
    if name in ("ln", "layer_norm"):
        return lambda: F.layer_norm(x, (C,), w, b, 1e-5)
    return lambda: F.rms_norm(x, (C,), w, 1e-5)


dtype = torch.bfloat16 if sys.argv[-1] == "bf16" else torch.float32
elem = 2 if dtype == torch.bfloat16 else 4


def tensors(C):
    # bf16: gamma/beta in bf16 too, as torch keeps a bf16 model's parameters
    rows = n // C
    return tuple(t.to(dtype) for t in (torch.randn(rows, C, device="cuda"), torch.randn(C, device="cuda"),
                                       torch.randn(C, device="cuda")))


if sys.argv[1] == "trials":
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")

    def median_us(fn, reps=20):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        ts = []
        for i in range(reps):
            flush.fill_(i & 0xFF)
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            ts.append(a.elapsed_time(b) * 1e3)
        return sorted(ts)[len(ts) // 2]

    for C in ((768, 1024, 8192) if dtype == torch.bfloat16 else (1024, 4096)):
        x, w, b = tensors(C)
        for name in ("layer_norm", "rms_norm"):
            for trial in range(3):
                torch._dynamo.reset()
                cf = torch.compile(op(name, x, w, b, C), dynamic=False)
                cf()
                us = median_us(cf)
                print(json.dumps({"op": name, "dtype": str(dtype).removeprefix("torch."), "C": C, "trial": trial,
                                  "us": round(us, 2), "gbps": round(2 * n * elem / us / 1e3, 1)}), flush=True)
else:
    C, name = int(sys.argv[2]), sys.argv[3]
    x, w, b = tensors(C)
    cf = torch.compile(op(name, x, w, b, C), dynamic=False)
    for _ in range(3):
        cf()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    cf()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
