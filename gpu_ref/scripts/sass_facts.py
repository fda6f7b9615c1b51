#!/usr/bin/env python3
"""Per-kernel SASS facts that matter for bit-exact emulation: how many
fused multiply-adds the compiler formed, which special-function (MUFU)
approximations are used (RSQ: rsqrtf; RCP: reciprocal inside IEEE division
and sqrt slow paths), and whether IEEE division/sqrt subroutines are called."""
import json, re, sys, collections

facts = {}
name = None
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"Function : (\S+)", line)
    if m:
        name = m.group(1)
        facts[name] = collections.Counter()
        continue
    if name is None:
        continue
    m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)", line)
    if not m:
        continue
    op = m.group(1)
    for key in ("FFMA", "FMUL", "FADD", "MUFU.RSQ", "MUFU.RCP", "MUFU.SQRT", "MUFU.LG2", "MUFU.EX2", "CALL", "SHFL", "BAR"):
        if op == key or op.startswith(key + "."):
            facts[name][key] += 1
json.dump({k: dict(v) for k, v in facts.items()}, sys.stdout, indent=1, sort_keys=True)
print()
