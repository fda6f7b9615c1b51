"""`normsim run --trace`: a VCD with a scope per unit, FIFO and memory port, whose handshakes are consistent."""
import subprocess

import pytest

from conftest import NORMSIM
from vcd_reader import Vcd

UNITS = {  # unit -> its ports on FIFOs (NormAccelerator's bindings)
    "input_path": ["in_free_row_buffers", "out_input_to_lanes"],
    "welford_lanes": ["in_input_to_lanes", "out_stats_to_normalize"],
    "normalize": ["in_stats_to_normalize", "in_reread_fifo", "out_free_row_buffers"],
    "reread_stream": ["out_reread_fifo"],
}
FIFOS = ["free_row_buffers", "input_to_lanes", "stats_to_normalize", "reread_fifo"]


def trace(tmp_path, rows, *extra):
    f = tmp_path / f"t{rows}.vcd"
    subprocess.run([NORMSIM, "run", "--set", "workload.rows=32", "--no-numerics", "--trace", f, "--trace-rows", str(rows),
                    *extra, "-q"], check=True)
    return Vcd(f.read_text())


@pytest.fixture(scope="module")
def vcd(tmp_path_factory):
    return trace(tmp_path_factory.mktemp("vcd"), 6, "--path", "dram-reread")


def test_a_scope_per_unit_fifo_and_port(vcd):
    top = "SystemC.norm_accelerator"
    for unit, ports in UNITS.items():
        for p in ports:
            for sig in ("valid", "ready", "fire"):
                assert f"{top}.{unit}.{p}.{sig}" in vcd.vars, f"{unit}.{p}.{sig}"
    for f in FIFOS:
        assert f"{top}.{f}.occupancy" in vcd.vars and f"{top}.{f}.depth" in vcd.vars
    for port in ("dram.port", "sram.read_port", "sram.write_port"):
        for sig in ("request", "outstanding", "grant"):
            assert f"{top}.{port}.{sig}" in vcd.vars
    assert f"{top}.normalize.rows_done" in vcd.vars
    assert vcd.timescale is not None


def test_handshakes_agree_with_the_fifos(vcd):
    top = "SystemC.norm_accelerator"
    moved = 0
    for f, (writer, reader) in {"input_to_lanes": ("input_path", "welford_lanes"),
                                "stats_to_normalize": ("welford_lanes", "normalize")}.items():
        occ, depth = vcd.vars[f"{top}.{f}.occupancy"], vcd.vars[f"{top}.{f}.depth"]
        valid = vcd.vars[f"{top}.{reader}.in_{f}.valid"]
        ready = vcd.vars[f"{top}.{writer}.out_{f}.ready"]
        fire = vcd.vars[f"{top}.{writer}.out_{f}.fire"]
        for t in vcd.times:
            o, d = occ.at(t), depth.at(t)
            assert 0 <= o <= d, f"{f}: occupancy {o} beyond depth {d} at {t}"
            assert valid.at(t) == (1 if o > 0 else 0), f"{f}: valid is not occupancy > 0 at {t}"
            assert ready.at(t) == (1 if o < d else 0), f"{f}: ready is not occupancy < depth at {t}"
        moved += sum(v for _, v in fire.changes)
    assert moved > 0, "no token moved"
    # The DRAM port was granted (moved data) while the traced rows ran.
    assert any(v == 1 for _, v in vcd.vars[f"{top}.dram.port.grant"].changes)
    assert any(v > 0 for _, v in vcd.vars[f"{top}.dram.port.request"].changes)


def test_trace_rows_bounds_the_trace(tmp_path):
    short, long = trace(tmp_path, 2), trace(tmp_path, 12)
    done = "SystemC.norm_accelerator.normalize.rows_done"
    assert 2 <= short.vars[done].changes[-1][1] < 12 <= long.vars[done].changes[-1][1]
    last_change = lambda v: max(t for var in v.vars.values() for t, _ in var.changes)
    assert last_change(short) < last_change(long)
