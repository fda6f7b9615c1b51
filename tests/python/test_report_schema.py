"""Every JSON report normsim writes starts with its stamp and matches docs/schema/report.schema.json."""
import hashlib
import json
import subprocess

import jsonschema
import pytest

from conftest import NORMSIM, SOURCE_DIR

SCHEMA = json.loads((SOURCE_DIR / "docs" / "schema" / "report.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
STAMP = ["normsim_version", "schema_version", "report", "command", "configs"]

COMMANDS = {
    "run": ["run", "--set", "workload.rows=8"],
    "run-numerics-only": ["run", "--arch", "fp32", "--set", "workload.rows=8"],
    "compare": ["compare", "--set", "workload.rows=8", "--no-numerics"],
    "compare-fuse": ["compare", "postnorm-7b", "--fuse", "all", "--set", "workload.rows=8", "--no-numerics"],
    "run-residual": ["run", "postnorm-7b", "--set", "arch.fuse.mode=residual_dropout", "--set", "workload.rows=8"],
    "sweep": ["sweep", "--grid", "arch.lanes=4,8", "--set", "workload.rows=8"],
    "widths": ["widths", "--target", "max_ulp<=8", "--stages", "gamma", "--guard", "none", "--set", "workload.rows=8"],
    "simt": ["simt", "--kernel", "v5", "--rows", "64", "--hidden", "768"],
    "area": ["area"],
    "netlist": ["netlist", "--path", "dram-reread"],
}


def report_of(args, tmp_path):
    out = subprocess.run([NORMSIM, *args, "--json", "-q"], check=True, capture_output=True, text=True, cwd=tmp_path).stdout
    return json.loads(out)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_report_matches_the_schema(name, tmp_path):
    args = COMMANDS[name]
    r = report_of(args, tmp_path)
    VALIDATOR.validate(r)
    assert list(r)[: len(STAMP)] == STAMP  # the stamp comes first, in this order
    assert r["command"][1:] == args + ["--json", "-q"]
    assert r["report"] == args[0]


def test_report_files_carry_the_stamp(tmp_path):
    subprocess.run([NORMSIM, "run", "--set", "workload.rows=8", "--out", tmp_path / "run", "-q"], check=True)
    subprocess.run([NORMSIM, "compare", "--set", "workload.rows=8", "--no-numerics", "--out", tmp_path / "cmp", "-q"],
                   check=True)
    for f in (tmp_path / "run" / "report.json", tmp_path / "cmp" / "compare.json"):
        r = json.loads(f.read_text())
        VALIDATOR.validate(r)
        assert list(r)[0] == "normsim_version"


def test_the_schema_rejects_what_it_should():
    good = report_of(COMMANDS["simt"], SOURCE_DIR)
    for broken in (
        {k: v for k, v in good.items() if k != "configs"},
        {**good, "schema_version": 2},
        {**good, "configs": {"gpu": {**good["configs"]["gpu"], "sha256": "xyz"}}},
        {k: v for k, v in good.items() if k != "prediction"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            VALIDATOR.validate(broken)


def test_digest_is_of_the_resolved_config(tmp_path):
    base = report_of(["run", "--no-numerics"], tmp_path)["configs"]
    by_path = report_of(["run", SOURCE_DIR / "workloads" / "llama2-7b.yaml", "--no-numerics"], tmp_path)["configs"]
    overridden = report_of(["run", "--no-numerics", "--set", "workload.seq=2048"], tmp_path)["configs"]
    # A comment does not change what runs, so it does not change the digest.
    commented = tmp_path / "w.yaml"
    commented.write_text("# a comment\n" + (SOURCE_DIR / "workloads" / "llama2-7b.yaml").read_text())
    with_comment = report_of(["run", commented, "--no-numerics"], tmp_path)["configs"]
    assert base["workload"]["sha256"] == by_path["workload"]["sha256"] == with_comment["workload"]["sha256"]
    assert overridden["workload"]["sha256"] != base["workload"]["sha256"]
    assert overridden["workload"]["overrides"] == ["workload.seq=2048"]
    assert base["arch"]["sha256"] == report_of(["run", "--arch", "asic-default", "--no-numerics"], tmp_path)["configs"]["arch"]["sha256"]
    for c in base.values():
        assert len(c["sha256"]) == 64 and c["sha256"] != hashlib.sha256(b"").hexdigest()
