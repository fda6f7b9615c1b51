"""The Python API returns what the CLI's --json prints, and fails as the CLI does."""
import importlib.util
import json
import subprocess

import pytest

import normsim
from conftest import NORMSIM, SOURCE_DIR, without_invocation

SMALL = {"workload.rows": 16}


def test_compare_is_the_cli_report(cli):
    r = normsim.compare("llama2-7b", set=SMALL)
    assert [p["path"] for p in r["paths"]] == ["sram-replay", "dram-reread", "partial-replay"]
    assert all(p["timing"]["cycles"] > 0 for p in r["paths"])
    assert r["report"] == "compare" and r["command"][1] == "compare"
    assert without_invocation(r) == without_invocation(cli("compare", "llama2-7b", "--set", "workload.rows=16"))


def test_compare_fuse_modes_of_a_residual_workload():
    r = normsim.compare("postnorm-7b", set=SMALL, numerics=False, fuse=["none", "residual_dropout"])
    rows = [(p["fuse"], p["path"]) for p in r["paths"]]
    assert rows == [(f, p) for f in ("none", "residual_dropout") for p in ("sram-replay", "dram-reread", "partial-replay")]
    by = {(p["fuse"], p["path"]): p for p in r["paths"]}
    none, fused = by[("none", "sram-replay")], by[("residual_dropout", "sram-replay")]
    # The separate adder's pass moves x, r and z; the fused unit only x and r in, y out.
    assert none["traffic"]["dram_bytes_by_kind"]["adder_write"] == 16 * 4096 * 2
    assert fused["traffic"]["dram_bytes_by_kind"]["adder_write"] == 0
    assert fused["area"]["fusion_mm2"] > 0 == none["area"]["fusion_mm2"]
    with pytest.raises(normsim.NormsimError):
        normsim.compare("llama2-7b", set=SMALL, fuse="all")


def test_compare_across_two_rsqrt_designs():
    r = normsim.compare("gpt2-small", set=SMALL, numerics=False,
                        across={"arch.rsqrt.seed": ["table", "linear"], "arch.rsqrt.iterations": [2, 1]})
    assert r["across"] == ["arch.rsqrt.seed", "arch.rsqrt.iterations"]
    designs = [(p["arch.rsqrt.seed"], p["arch.rsqrt.iterations"], p["arch"]["rsqrt"]["seed"]) for p in r["paths"]]
    assert designs == [("table", "2", "table")] * 3 + [("linear", "1", "linear")] * 3
    with pytest.raises(normsim.NormsimError):
        normsim.compare("gpt2-small", set=SMALL, across={"arch.rsqrt.seed": ["table", "table"]})


def test_configs_as_names_paths_text_and_dicts():
    path = SOURCE_DIR / "workloads" / "gpt2-small.yaml"
    by_name = normsim.run("gpt2-small", "asic-fp32", set=SMALL)
    by_path = normsim.run(path, SOURCE_DIR / "workloads" / "arch" / "asic-fp32.yaml", set=SMALL)
    by_text = normsim.run(path.read_text(), "asic-fp32", set=SMALL)
    by_dict = normsim.run({"norm": "layernorm", "rows": 8, "hidden": 768, "seed": 1,
                           "input": {"dtype": "fp32"}, "output": {"dtype": "fp32"}}, "asic-fp32", set=SMALL)
    # The same resolved config, however it was named: the same digest and the same cycles.
    assert by_name["configs"]["workload"]["sha256"] == by_path["configs"]["workload"]["sha256"]
    assert by_name["configs"]["workload"]["sha256"] == by_text["configs"]["workload"]["sha256"]
    assert by_name["timing"] == by_path["timing"] == by_text["timing"]
    assert by_dict["workload"]["hidden"] == 768 and by_dict["workload"]["rows"] == 16


def test_overrides_as_dict_or_list():
    a = normsim.run(set={"workload.rows": 8, "arch.lanes": 8}, numerics=False)
    b = normsim.run(set=["workload.rows=8", "arch.lanes=8"], numerics=False)
    assert a["timing"] == b["timing"]
    assert a["configs"]["arch"]["overrides"] == ["arch.lanes=8"]


def test_bad_input_is_an_input_error_naming_the_set():
    with pytest.raises(normsim.InputError) as e:
        normsim.run(set={"workload.hidden": "abc"})
    assert e.value.exit_code == 2
    assert str(e.value).startswith("normsim: --set workload.hidden=abc: key 'hidden'")
    with pytest.raises(normsim.InputError, match="neither a shipped arch nor a file"):
        normsim.run(arch="h100")
    # Wrong argument types are input errors in the caller's own names.
    with pytest.raises(normsim.InputError, match="workload: expected a shipped name, a path, YAML text or a dict, got int 42"):
        normsim.run(workload=42)
    with pytest.raises(normsim.InputError, match="set: expected a dict or a list"):
        normsim.run(set=5)
    with pytest.raises(normsim.InputError, match="set: 7 is not a"):
        normsim.run(set=[7])
    with pytest.raises(normsim.InputError, match="run: threads: expected a number or a string, got list"):
        normsim.run(threads=[2])


def test_errors_name_what_the_caller_gave_not_temp_files():
    with pytest.raises(normsim.InputError) as e:
        normsim.run({"name": "w", "rows": 4, "hidden": -1})
    assert "<workload dict>" in str(e.value) and "/tmp" not in str(e.value) and "/tmp" not in e.value.stderr
    with pytest.raises(normsim.InputError) as e:
        normsim.run(arch="name: a\nlanes: 3\n")
    assert str(e.value).startswith("normsim: <arch text>") and "normsim-" not in str(e.value)


def test_a_failed_check_carries_its_report_and_warnings():
    with pytest.raises(normsim.CheckFailed) as e:
        normsim.run(set={"workload.rows": 8, "arch.formats.input.bits": 6, "arch.formats.input.frac": 4},
                    fail_on_overflow=True)
    assert e.value.exit_code == 1
    assert e.value.report is not None and e.value.report["numerics"]["overflow"]["input"] > 0
    assert any("input" in w for w in e.value.warnings), e.value.stderr


def test_each_call_is_its_own_simulation():
    # SystemC elaborates once per process: many calls in one interpreter must all run.
    cycles = [normsim.run(set={"workload.rows": n}, numerics=False)["timing"]["cycles"] for n in (8, 16, 8)]
    assert cycles[0] == cycles[2] and cycles[1] > cycles[0]


def test_sweep_rows_are_a_table():
    r = normsim.sweep(grid={"arch.lanes": [4, 8, 16], "arch.asic.input_path": ["sram-replay", "dram-reread"]},
                      set=SMALL, objectives=["cycles", "area"])
    rows = r.rows
    assert len(rows) == len(r["points"]) == 6
    assert len({frozenset(row) for row in rows}) == 1  # every row has the same columns
    assert {row["arch.lanes"] for row in rows} == {4, 8, 16}
    assert all(row["timing.cycles"] > 0 for row in rows)
    if importlib.util.find_spec("pandas"):
        import pandas

        assert pandas.DataFrame(rows).shape[0] == 6


def test_rows_name_their_columns_as_the_csv_does(tmp_path):
    out = tmp_path / "run"
    subprocess.run([NORMSIM, "run", "--set", "workload.rows=8", "--no-numerics", "-q", "--out", str(out)], check=True)
    report = json.loads((out / "report.json").read_text())
    for stamp in ("normsim_version", "schema_version", "report", "command", "configs"):  # the CSV has no stamp
        report.pop(stamp)
    header = (out / "report.csv").read_text().splitlines()[0].split(",")
    row = {}
    normsim._flatten(report, row)
    assert list(row) == [h.split(" [")[0] for h in header]


def test_simt_area_widths_list():
    p = normsim.simt("fast_ln", rows=1024, hidden=4096, dtype="bf16")
    assert p["kernel"] == "fast_ln" and p["prediction"]["dram_bytes_read"] > 0
    a = normsim.area("llama2-7b", "asic-default")
    assert a["total_mm2"] > 0
    n = normsim.netlist("llama2-7b", "asic-default", path="dram-reread", set={"arch.asic.rows_in_flight": 2})
    channels = {c["name"]: c for c in n["channels"]}
    assert n["pass"] == "forward" and [u["name"] for u in n["units"]][-1] == "reread_stream"
    assert channels["free_row_buffers"]["depth_entries"] == 2 and channels["reread_fifo"]["writer"]["unit"] == "reread_stream"
    w = normsim.widths("max_ulp<=8", set=SMALL, stages=["gamma"], guard="none", margin_bits=1)
    assert w["chosen"] and w["margin_bits"] == 1 and w["guards"] == []
    names = normsim.list()
    assert len(names["kernels"]) == 17 and any(x["name"] == "asic-fp32" for x in names["archs"])


def test_simt_explain_with_ncu_beside():
    golden = SOURCE_DIR / "gpu_ref" / "golden" / "h200"
    e = normsim.simt("v4", rows=1024, hidden=4096, explain=True, golden=golden)["explain"]
    assert e["ncu_case"] == "v4_fp32_1024x4096_b256"
    assert e["predicted"]["dominant"] == e["ncu"]["dominant"] == "long_scoreboard"
    assert e["predicted"]["limiter"] == e["ncu"]["limiter"] == "latency"
    assert "explain" not in normsim.simt("v4", rows=1024, hidden=4096)


def test_sweep_keeps_figures_or_whole_reports_and_samples_rows():
    grid = {"arch.lanes": [4, 8]}
    compact = normsim.sweep(grid=grid, set=SMALL)
    full = normsim.sweep(grid=grid, set=SMALL, full_reports=True)
    assert all("report" not in p and "figures" in p for p in compact["points"])
    assert all(p["report"]["timing"]["cycles"] == p["figures"]["timing.cycles"] for p in full["points"])
    assert [p["figures"] for p in compact["points"]] == [p["figures"] for p in full["points"]]
    sampled = normsim.sweep(grid=grid, set={**SMALL, "workload.rows": 64}, numerics=True, sample_rows=16)
    for p in sampled["points"]:
        f = p["figures"]
        assert f["numerics.sample_rel_l2_error_min"] <= f["numerics.rel_l2_error"] <= f["numerics.sample_rel_l2_error_max"]
