"""normsim from Python: the simulator's commands as functions returning its JSON reports.

Each function runs the same code as the command line (``normsim run``,
``compare``, ``sweep``, ...) in a child process of the interpreter -- as the
CLI isolates each simulation -- and returns the report it would print with
``--json`` as a dict (docs/REPORTS.md; schema docs/schema/report.schema.json).

A workload, arch or GPU is given as

* a shipped name: ``"llama2-7b"``, ``"asic-fp32"``, ``"h200"`` (see :func:`list`),
* a path (``str`` or ``pathlib.Path``) to a YAML file,
* YAML text (a ``str`` holding a newline), or
* a ``dict`` of the file's keys,

with ``set=`` overrides as a dict (``{"workload.rows": 64}``) or a list of
``"key=value"`` strings, exactly as ``--set``.

Bad input raises :class:`InputError` (the CLI's exit 2) with the CLI's one-line
message; a failed check raises :class:`CheckFailed` (exit 1), except
:func:`regress`, whose report says ``pass: false``.
"""

import json as _json
import os as _os
import pathlib as _pathlib
import tempfile as _tempfile

from . import _normsim

__version__ = _normsim.version
__all__ = ["run", "compare", "sweep", "simt", "regress", "area", "netlist", "widths", "list",
           "NormsimError", "InputError", "CheckFailed"]

_list = list  # `list` below is normsim's


class NormsimError(RuntimeError):
    """normsim failed; ``exit_code`` and ``stderr`` say how."""

    def __init__(self, message, exit_code, stderr):
        super().__init__(message)
        self.exit_code = exit_code
        self.stderr = stderr


class InputError(NormsimError, ValueError):
    """Bad input (exit code 2): the message names the file or --set, the key, the value and what is allowed."""


class CheckFailed(NormsimError):
    """A check failed (exit code 1): a non-finite report, an overflow with fail_on_overflow, ...

    ``report`` is the report the command produced (a dict; None when it produced none) and
    ``warnings`` the warning lines it gave on the way, so the caller can see what failed."""

    def __init__(self, message, exit_code, stderr, report=None):
        super().__init__(message, exit_code, stderr)
        self.report = report
        self.warnings = [line.split("warning: ", 1)[1] for line in stderr.splitlines() if "warning: " in line]
        for section in (report or {}).values():  # the report's own (a quiet run prints none)
            if isinstance(section, dict):
                self.warnings += [w for w in section.get("warnings", []) if w not in self.warnings]


def _input_error(message):
    return InputError(message, 2, message)


class _Configs:
    """Turns config arguments into CLI arguments; text and dicts become files in a temp dir."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.labels = {}  # temp file -> what the caller gave, for messages

    def arg(self, value, role):
        if value is None:
            return None
        if isinstance(value, _pathlib.PurePath):
            return str(value)
        if isinstance(value, dict):
            text = _json.dumps(value)  # JSON is YAML
            label = f"<{role} dict>"
        elif isinstance(value, str) and "\n" in value:
            text = value
            label = f"<{role} text>"
        elif isinstance(value, str):
            return value  # a shipped name or a path
        else:
            raise _input_error(f"normsim: {role}: expected a shipped name, a path, YAML text or a dict, got "
                               f"{type(value).__name__} {value!r}")
        path = _os.path.join(self.tmp, f"{role}.yaml")
        with open(path, "w") as f:
            f.write(text)
        self.labels[path] = label
        return path

    def name_inputs(self, error):
        """The error with the caller's names for the temp files it mentions."""
        text = str(error)
        for path, label in self.labels.items():
            text = text.replace(path, label)
        error.args = (text,)
        error.stderr = error.stderr and _replace_all(error.stderr, self.labels)
        return error


def _replace_all(text, labels):
    for path, label in labels.items():
        text = text.replace(path, label)
    return text


def _sets(overrides):
    if overrides is None:
        return []
    items = overrides.items() if isinstance(overrides, dict) else None
    if items is None:
        if isinstance(overrides, str):
            overrides = [overrides]
        if not isinstance(overrides, (_list, tuple)):
            raise _input_error(f"normsim: set: expected a dict or a list of \"key=value\" strings, got "
                               f"{type(overrides).__name__} {overrides!r}")
        out = []
        for s in overrides:
            if not isinstance(s, str):
                raise _input_error(f"normsim: set: {s!r} is not a \"key=value\" string")
            out += ["--set", s]
        return out
    out = []
    for k, v in items:
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, (_list, dict)):
            v = _json.dumps(v)
        out += ["--set", f"{k}={v}"]
    return out


def _report(out):
    try:
        return _json.loads(out)
    except ValueError:
        return None


def _invoke(args, accept_check_failure=False):
    rc, out, err = _normsim.invoke([str(a) for a in args])
    message = err.strip().splitlines()[-1] if err.strip() else f"normsim exited {rc}"
    if rc == 2:
        raise InputError(message, rc, err)
    if rc == 1 and not accept_check_failure:
        # The CLI points at the warnings it printed and the report it wrote; here they ride on the exception.
        message = message.replace("(the warnings above say how; the report is written)",
                                  "(CheckFailed.report and .warnings say how)")
        raise CheckFailed(message, rc, err, _report(out))
    if rc not in (0, 1):
        raise NormsimError(message, rc, err)
    try:
        return _json.loads(out)
    except ValueError:
        raise NormsimError(f"normsim printed no JSON report: {message}", rc, err) from None


def _command(name, positional=(), configs=(), flags=(), options=(), overrides=None, accept_check_failure=False):
    """normsim NAME [POSITIONAL] [--OPTION VALUE ...] [--FLAG ...] --json -q, configs resolved first."""
    with _tempfile.TemporaryDirectory(prefix="normsim-") as tmp:
        c = _Configs(tmp)
        args = [name]
        for value, role, flag in configs:
            a = c.arg(value, role)
            if a is not None:
                args += [a] if flag is None else [flag, a]
        args += [p for p in positional if p is not None]
        for flag, value in options:
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                raise _input_error(f"normsim: {name}: {flag.lstrip('-').replace('-', '_')}: expected a number or a string, "
                                   f"got {type(value).__name__} {value!r}")
            args += [flag, str(value)]
        args += [f for f, on in flags if on]
        args += _sets(overrides)
        try:
            return _invoke(args + ["--json", "-q"], accept_check_failure)
        except NormsimError as e:
            raise c.name_inputs(e) from None


def run(workload=None, arch=None, *, set=None, path=None, numerics=True, rtl=False, algorithm=None,
        threads=None, fail_on_overflow=False):
    """`normsim run`: one workload through the datapath; the report as a dict."""
    return _command("run", configs=[(workload, "workload", None), (arch, "arch", "--arch")],
                    options=[("--path", path), ("--algorithm", algorithm), ("--threads", threads)],
                    flags=[("--no-numerics", not numerics), ("--rtl", rtl), ("--fail-on-overflow", fail_on_overflow)],
                    overrides=set)


def compare(workload=None, arch=None, *, set=None, sram_budget=None, target_cycles=None, numerics=True,
            fail_on_overflow=False, fuse=None, across=None):
    """`normsim compare`: every input path on one workload; {"mode", "paths": [report, ...]}.

    fuse: a residual workload's fuse modes to compare ("all", or e.g. ["none", "residual_dropout"]);
    each row then carries its "fuse".
    across: {arch key: [values]}, e.g. {"arch.rsqrt.seed": ["table", "linear"], "arch.rsqrt.iterations": [2, 1]}:
    each path once per design, the keys' values paired in order; each row carries every key's value."""
    if fuse is not None and not isinstance(fuse, str):
        fuse = ",".join(fuse)
    if across is not None and not isinstance(across, dict):
        raise _input_error(f"normsim: compare: across: expected a dict of arch key -> values, got {type(across).__name__}")
    seq = (type([]), tuple)  # `list` is this module's normsim.list
    designs = [("--across", f"{k}={','.join(str(v) for v in (vs if isinstance(vs, seq) else [vs]))}")
               for k, vs in (across or {}).items()]
    return _command("compare", configs=[(workload, "workload", None), (arch, "arch", "--arch")],
                    options=[("--sram-budget", sram_budget), ("--target-cycles", target_cycles), ("--fuse", fuse)] + designs,
                    flags=[("--no-numerics", not numerics), ("--fail-on-overflow", fail_on_overflow)], overrides=set)


class SweepReport(dict):
    """A sweep's report (a dict) with ``rows``: one flat dict per point, for ``pandas.DataFrame(r.rows)``."""

    @property
    def rows(self):
        out = []
        for p in self.get("points", []):
            row = {"index": p.get("index"), "status": p.get("status")}
            row.update(p.get("point", {}))
            if "reason" in p:
                row["reason"] = p["reason"]
            if "report" in p:
                _flatten(p["report"], row)
            else:  # the point's figures: already the columns' dotted paths
                row.update(p.get("figures", {}))
            out.append(row)
        return out


def _flatten(report, row):
    """Leaves of a report as dotted columns ("timing.cycles"): the CSV's names (without units), from the same code."""
    for path, leaf in _json.loads(_normsim.report_leaves(_json.dumps(report))):
        row[path] = _json.dumps(leaf) if isinstance(leaf, _list) else leaf


def sweep(workload=None, arch=None, *, study=None, grid=None, zip=None, set=None, objectives=None, path=None,
          jobs=None, numerics=False, full_reports=False, sample_rows=None):
    """`normsim sweep`: the ASIC model over a design space.

    ``grid``: {key: [values]} (each key its own axis, crossed); ``zip``: a list of
    {key: [values]} whose keys step together. Each point keeps its figures, and its
    whole run report with ``full_reports``; ``sample_rows``: with ``numerics``, the
    error on that many rows. Returns a :class:`SweepReport`.
    """
    axes = []
    for k, vs in (grid or {}).items():
        axes += ["--grid", f"{k}=" + ",".join(str(v) for v in vs)]
    for z in zip or []:
        axes += ["--zip", ",".join(f"{k}=" + ",".join(str(v) for v in vs) for k, vs in z.items())]
    with _tempfile.TemporaryDirectory(prefix="normsim-") as tmp:
        study_arg = _Configs(tmp).arg(study, "study")
        report = _command("sweep", configs=[(workload, "workload", None), (arch, "arch", "--arch")],
                          positional=(), options=[("--study", study_arg), ("--objectives",
                                                  ",".join(objectives) if objectives else None),
                                                  ("--path", path), ("-j", jobs), ("--sample-rows", sample_rows)],
                          flags=[("--numerics", numerics), ("--full-reports", full_reports)] + [(a, True) for a in axes],
                          overrides=set)
    return SweepReport(report)


def simt(kernel, rows=None, hidden=None, *, dtype=None, workload=None, block=None, gpu=None, set=None, explain=False,
         golden=None):
    """`normsim simt`: a GPU kernel's predicted DRAM/L2 traffic and duration, with ranges; with explain=True also its
    warp states, occupancy, limiter and the optimisation it implies (report["explain"]), ncu's beside from ``golden``."""
    return _command("simt", configs=[(workload, "workload", "--workload"), (gpu, "gpu", "--gpu")],
                    options=[("--kernel", kernel), ("--rows", rows), ("--hidden", hidden), ("--dtype", dtype),
                             ("--block", block), ("--golden", None if golden is None else str(golden))],
                    flags=[("--explain", explain)], overrides=set)


def regress(golden=None, *, gpu=None, set=None, baseline=True):
    """`normsim regress`: the models against the golden GPU runs; the report's "pass" says if the gate passed."""
    return _command("regress", positional=(None if golden is None else str(golden),),
                    configs=[(gpu, "gpu", "--gpu")], flags=[("--no-baseline", not baseline)], overrides=set,
                    accept_check_failure=True)


def area(workload=None, arch=None, *, set=None, synth=False, path=None, sram=None):
    """`normsim area`: the datapath's units' area (and, with synth=True, yosys's)."""
    return _command("area", configs=[(workload, "workload", None), (arch, "arch", "--arch")],
                    options=[("--path", path), ("--sram", sram)], flags=[("--synth", synth)], overrides=set)


def netlist(workload=None, arch=None, *, set=None, path=None):
    """`normsim netlist`: the units and channels of the ASIC design a run of ``workload`` on ``arch`` builds."""
    return _command("netlist", configs=[(workload, "workload", None), (arch, "arch", "--arch")],
                    options=[("--path", path)], overrides=set)


def widths(targets, workload=None, arch=None, *, stages=None, guard=None, margin_bits=None, set=None):
    """`normsim widths`: per-stage fixed-point formats of least area meeting ``targets`` ("max_ulp<=4", ...),
    held on ``guard`` ("auto", "none", "hidden=3000,llm") with ``margin_bits`` more bits a stage."""
    if isinstance(targets, str):
        targets = [targets]
    extra = []
    for t in targets:
        extra += ["--target", t]
    return _command("widths", positional=tuple(extra), configs=[(workload, "workload", None), (arch, "arch", "--arch")],
                    options=[("--stages", stages if isinstance(stages, str) or not stages else ",".join(stages)),
                             ("--guard", guard),
                             ("--margin-bits", None if margin_bits is None else str(margin_bits))], overrides=set)


def list(what=None):
    """`normsim list`: the shipped workloads, archs, GPUs, studies and the GPU kernels."""
    return _invoke(["list"] + ([what] if what else []) + ["--json"])
