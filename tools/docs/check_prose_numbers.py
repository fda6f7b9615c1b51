#!/usr/bin/env python3
"""Prose numbers come from the tool: every number of five or more significant
digits in a doc's prose (outside its generated blocks, code fences and
tables) must appear in one of the doc's generated blocks (run_blocks.py), or
be listed in tools/docs/prose_numbers.txt with what it is derived from (an
arch file's value, arithmetic stated beside it, a GPU record). A figure
typed from an earlier run fails here as soon as it is not in a block.

  check_prose_numbers.py DOC...      exit 1 naming each unsourced number
"""
import os
import re
import sys

NUM = re.compile(r"(?<![\w.])(\d[\d,]*\.?\d*)(?!\w)")
HERE = os.path.dirname(os.path.abspath(__file__))


def split(text):
    blocks, prose, in_block, fence = [], [], False, False
    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith("<!-- BEGIN normsim"):
            in_block = True
        elif line.startswith("<!-- END normsim"):
            in_block = False
        elif in_block:
            blocks.append(line)
        elif line.startswith("```"):
            fence = not fence
        elif not fence and not line.startswith("|"):
            prose.append((i, line))
    return blocks, prose


def numbers(text):
    for n in NUM.findall(text):
        n = n.rstrip(".").replace(",", "")
        if len(n.replace(".", "").lstrip("0")) >= 5:
            yield n


def allowed():
    out = set()
    with open(os.path.join(HERE, "prose_numbers.txt")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                doc, number, _why = line.split(None, 2)
                out.add((doc, number))
    return out


def main(docs):
    ok, listed = True, allowed()
    for path in docs:
        blocks, prose = split(open(path).read())
        in_blocks = set(numbers(" ".join(blocks))) | set(n.replace(",", "") for n in NUM.findall(" ".join(blocks)))
        name = "docs/" + os.path.basename(path)
        for i, line in prose:
            for n in numbers(line):
                if n not in in_blocks and (name, n) not in listed:
                    print(f"{path}:{i}: {n} is in no generated block of the doc and not listed as derived "
                          f"(tools/docs/prose_numbers.txt)")
                    ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
