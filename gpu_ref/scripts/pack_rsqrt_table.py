#!/usr/bin/env python3
"""Packs the raw rsqrtf table (2^24 uint32 results, from rsqrt_table) as the
difference, in units in the last place, from the correctly rounded fp32
1/sqrt(x): a small signed number per input. Writes rsqrt_delta.npy (int8,
2^24 entries) and prints a JSON summary (histogram of the differences).
   pack_rsqrt_table.py RAW.bin OUT_DIR"""
import json, sys
import numpy as np

raw = np.fromfile(sys.argv[1], dtype="<u4")
assert raw.size == 1 << 24, raw.size
i = np.arange(1 << 24, dtype=np.uint32)
x_bits = ((127 + (i >> 23)) << 23) | (i & 0x7FFFFF)
x = x_bits.view(np.float32).astype(np.float64)
ref = (1.0 / np.sqrt(x)).astype(np.float32)  # float64 result rounded once to fp32 (ties impossible here)
delta = raw.astype(np.int64) - ref.view(np.uint32).astype(np.int64)
vals, counts = np.unique(delta, return_counts=True)
assert delta.min() >= -128 and delta.max() <= 127
np.save(f"{sys.argv[2]}/rsqrt_delta.npy", delta.astype(np.int8))
print(json.dumps({"entries": int(raw.size), "ulp_delta_histogram": {int(v): int(c) for v, c in zip(vals, counts)},
                  "exact": int(counts[vals == 0].sum())}))
