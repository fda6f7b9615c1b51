#!/usr/bin/env python3
"""Prose numbers come from the tool: every number of five or more significant
digits in a doc's prose (outside its generated blocks, code fences and
tables) must appear in one of the doc's generated blocks (run_blocks.py's,
or another generator's `<!-- BEGIN generated ... -->`), or be listed in
tools/docs/prose_numbers.txt with what it is derived from (an arch file's
value, arithmetic stated beside it, a GPU record). Shapes (`N x M`) and
powers of two are inputs, not results, and pass, as do numbers in inline
code (a command's arguments). A count of cases, however small ("181 of
189", "161 of the 169"), is a result too: it must appear as such in one of
the doc's generated blocks, or be listed as N_of_M. A figure typed from an
earlier run fails here as soon as it is not in a block.

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
        if line.startswith("<!-- BEGIN normsim") or line.startswith("<!-- BEGIN generated"):
            in_block = True
        elif line.startswith("<!-- END normsim") or line.startswith("<!-- END generated"):
            in_block = False
        elif in_block:
            blocks.append(line)
        elif line.startswith("```"):
            fence = not fence
        elif not fence and not line.startswith("|"):
            prose.append((i, line))
    return blocks, prose


CODE = re.compile(r"`[^`]*`")
SHAPE = re.compile(r"(\d[\d,]*) x (\d[\d,]*)")


def is_input(n, line):
    """A shape's side, or a power of two: what a run is given, not what it reports."""
    if "." not in n and int(n) > 0 and int(n) & (int(n) - 1) == 0:
        return True
    return any(n in (a.replace(",", ""), b.replace(",", "")) for a, b in SHAPE.findall(line))


def numbers(text):
    for n in NUM.findall(text):
        n = n.rstrip(".").replace(",", "")
        if len(n.replace(".", "").lstrip("0")) >= 5 and not is_input(n, text):
            yield n


COUNT = re.compile(r"(?<![\w.])(\d[\d,]*) of (?:the )?(\d[\d,]*)(?![\w.])")


def counts(text):
    """The "N of M" counts in a text, as N_of_M."""
    for a, b in COUNT.findall(text):
        yield a.replace(",", "") + "_of_" + b.replace(",", "")


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
    ok, listed, used, checked = True, allowed(), set(), set()
    for path in docs:
        blocks, prose = split(open(path).read())
        in_blocks = set(numbers(" ".join(blocks))) | set(n.replace(",", "") for n in NUM.findall(" ".join(blocks)))
        # As the list names it: relative to the tree (a copy elsewhere by its docs/ name).
        rel = os.path.relpath(os.path.abspath(path), os.path.dirname(os.path.dirname(HERE)))
        name = rel if not rel.startswith("..") else "docs/" + os.path.basename(path)
        checked.add(name)
        counted = set(counts(" ".join(blocks)))
        for i, line in prose:
            for c in counts(CODE.sub(" ", line)):
                if c in counted:
                    continue
                if (name, c) in listed:
                    used.add((name, c))
                    continue
                print(f"{path}:{i}: the count {c.replace('_', ' ')} is in no generated block of the doc and not listed "
                      f"as derived (tools/docs/prose_numbers.txt)")
                ok = False
            for n in numbers(CODE.sub(" ", line)):  # inline code is a command or key: an input
                if n not in in_blocks and (name, n) in listed:
                    used.add((name, n))
                elif n not in in_blocks:
                    print(f"{path}:{i}: {n} is in no generated block of the doc and not listed as derived "
                          f"(tools/docs/prose_numbers.txt)")
                    ok = False
    for doc, n in sorted(listed - used):
        if doc in checked:  # a listed number its doc no longer needs: the list stays exact
            print(f"tools/docs/prose_numbers.txt: {doc} {n} is listed but the doc's prose no longer needs it")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
