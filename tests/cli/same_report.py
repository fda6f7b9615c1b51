#!/usr/bin/env python3
"""same_report.py A.json B.json: exit 0 when two reports hold the same results.

The stamp's invocation keys (`report`, `command`: which subcommand, which
command line) are the only ones allowed to differ: a sweep run whole, on
4 jobs, or as shards merged must otherwise agree byte for byte in value.
"""
import json
import sys

INVOCATION = ("report", "command")

a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in INVOCATION:
    a.pop(k, None)
    b.pop(k, None)
if a != b:
    diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    print(f"{sys.argv[1]} and {sys.argv[2]} differ at {diff}")
    sys.exit(1)
