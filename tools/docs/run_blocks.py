#!/usr/bin/env python3
"""The tables a doc shows from normsim, against what normsim prints now.

Each block

    <!-- BEGIN normsim ARGS -->
    ```text
    ...
    ```
    <!-- END normsim -->

holds the stdout of `NORMSIM ARGS -q`, run from the repository root. Exit 1
naming the first block that differs (and how to regenerate); --update
rewrites them. Only timing-only commands belong here (--no-numerics): they
are deterministic and fast.

    tools/docs/run_blocks.py NORMSIM DOC.md [--update]
"""
import os
import re
import shlex
import subprocess
import sys

BLOCK = re.compile(r"(<!-- BEGIN normsim (.*?) -->\n)(.*?)(<!-- END normsim -->)", re.S)


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--update"):
        sys.exit(__doc__)
    normsim, doc = sys.argv[1], sys.argv[2]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    text = open(doc).read()
    stale = []

    def render(m):
        args = m.group(2)
        run = subprocess.run([normsim] + shlex.split(args) + ["-q"], cwd=root, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"run_blocks: {doc}: `normsim {args}` exited {run.returncode}: {run.stderr.strip()}")
        body = "```text\n" + run.stdout.rstrip("\n") + "\n```\n"
        if body != m.group(3):
            stale.append(args)
        return m.group(1) + body + m.group(4)

    new, n = BLOCK.subn(render, text)
    if n == 0:
        sys.exit(f"run_blocks: {doc}: no '<!-- BEGIN normsim ARGS -->' blocks")
    if not stale:
        print(f"run_blocks: {doc}: {n} blocks match normsim's output")
        return
    if len(sys.argv) == 4:
        open(doc, "w").write(new)
        print(f"run_blocks: {doc}: rewrote {len(stale)} of {n} blocks")
        return
    sys.exit(f"run_blocks: {doc}: `normsim {stale[0]}` prints something else now "
             f"({len(stale)} of {n} blocks stale; tools/docs/run_blocks.py build/normsim {doc} --update)")


if __name__ == "__main__":
    main()
