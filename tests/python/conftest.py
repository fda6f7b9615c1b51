"""The normsim package as built (PYTHONPATH=build/python) and the CLI beside it."""
import json
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("NORMSIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
NORMSIM = os.environ.get("NORMSIM", str(SOURCE_DIR / "build" / "normsim"))


@pytest.fixture
def cli():
    """cli(*args) -> the report `normsim ARGS --json -q` prints, as a dict."""

    def run(*args):
        out = subprocess.run([NORMSIM, *map(str, args), "--json", "-q"], check=True, capture_output=True, text=True)
        return json.loads(out.stdout)

    return run


def without_invocation(report):
    """A report less the keys that say how it was invoked (the command line)."""
    return {k: v for k, v in report.items() if k not in ("command",)}
