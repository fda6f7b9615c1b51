#!/usr/bin/env python3
"""The layers' arrows (docs/ARCHITECTURE.md), checked on every #include and
every CMake link of the tree:

    core <- config <- {area, rtl, asic, simt} <- {validate, report} <- tools <- python
                 {area, asic} <- explore <- report  (the width search; the sweep engine's isolated runs)

asic and simt never include each other; validate is the only layer that
includes both; gpu_ref includes only sim/core (the RNG, the formats and the
fp64 reference), and sim/ includes from gpu_ref only the header-only kernel
table and launch shapes that normref itself uses.

  check_layers.py ROOT              exit 0, or 1 with one line per crossing
  check_layers.py --self-test ROOT  plants forbidden includes and links in a
                                    copy of ROOT and fails unless each is caught
"""
import pathlib
import re
import shutil
import sys
import tempfile

# What each layer may include (besides the standard library and its own folder).
GPU_REF_SHARED = {"gpu_ref/host/kernel_table.hpp", "gpu_ref/host/fast_shape.hpp"}
ALLOWED = {
    "core": {"core"},
    "config": {"core", "config"},
    "area": {"core", "config", "area"},
    "rtl": {"core", "config", "area", "rtl"},
    "asic": {"core", "config", "rtl", "asic"},
    "simt": {"core", "config", "simt", "gpu_ref_shared"},
    "validate": {"core", "config", "area", "rtl", "asic", "simt", "validate", "gpu_ref_shared"},
    "explore": {"core", "config", "area", "asic", "explore"},
    "report": {"core", "config", "area", "rtl", "asic", "simt", "explore", "report", "gpu_ref_shared"},
    "gpu_ref": {"core", "gpu_ref", "gpu_ref_shared"},
    "lab": {"core", "gpu_ref", "gpu_ref_shared", "lab"},
}
# The CMake library of each layer and the libraries it may link.
LIBRARY = {f"normsim_{layer}": layer for layer in ALLOWED if layer not in ("gpu_ref", "lab")}
SOURCES = (".cpp", ".hpp", ".h", ".cu", ".cuh", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(rel):
    parts = rel.parts
    if parts[0] == "sim" and len(parts) > 2:
        return parts[1]
    if parts[0] in ("gpu_ref", "lab"):
        return parts[0]
    if parts[0] == "tools":
        return "tools"
    return None  # tests, build outputs: anything goes


def target_of(include, src_dir, root):
    """The layer an include lands in, or None where it stays in the includer's folder."""
    if include in GPU_REF_SHARED:
        return "gpu_ref_shared"
    if include.startswith("sim/"):
        parts = include.split("/")
        return parts[1] if len(parts) > 2 else "sim"
    if include.startswith("gpu_ref/"):
        return "gpu_ref"
    if include.startswith(("tools/", "python/")):
        return include.split("/")[0]  # the top: nothing under sim/ or gpu_ref/ includes it
    if (src_dir / include).exists():
        return None  # the includer's own folder
    if (root / "gpu_ref" / include).exists():
        return "gpu_ref"  # gpu_ref's own "host/...", "kernels/..." (its include root)
    return None  # generated at build time (Verilator models, their parameters)


def check(root):
    root = pathlib.Path(root)
    crossings = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.suffix not in SOURCES or rel.parts[0] not in ("sim", "tools", "gpu_ref", "lab"):
            continue
        layer = layer_of(rel)
        if layer is None or layer == "tools":
            continue
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = target_of(m.group(1), path.parent, root)
            if target is None or target == layer:
                continue
            if target not in ALLOWED.get(layer, set()):
                crossings.append(f"{rel}:{n}: {layer} includes {m.group(1)} ({target}): not an arrow of the layers")
    for cmake in [root / "CMakeLists.txt"]:
        text = cmake.read_text()
        for m in re.finditer(r"target_link_libraries\((normsim_\w+)\s+(?:PUBLIC|PRIVATE|INTERFACE)\s+([^)]*)\)", text):
            lib, deps = m.group(1), m.group(2).split()
            if lib not in LIBRARY:
                continue
            layer = LIBRARY[lib]
            for d in deps:
                if d in LIBRARY and LIBRARY[d] != layer and LIBRARY[d] not in ALLOWED[layer]:
                    crossings.append(f"CMakeLists.txt: {lib} links {d}: not an arrow of the layers")
    return crossings


def self_test(root):
    """Every kind of crossing planted in a copy must be caught, and the copy
    must otherwise be clean."""
    plants = [
        ("sim/simt/simt_model.cpp", '#include "sim/asic/asic_run.hpp"\n', "simt includes sim/asic/asic_run.hpp"),
        ("sim/asic/asic_run.cpp", '#include "sim/simt/simt_model.hpp"\n', "asic includes sim/simt/simt_model.hpp"),
        ("sim/core/npy.cpp", '#include "sim/config/arch.hpp"\n', "core includes sim/config/arch.hpp"),
        ("sim/simt/kernel_desc.cpp", '#include "gpu_ref/host/normref_validate.hpp"\n', "simt includes gpu_ref/host/normref_validate.hpp"),
        ("gpu_ref/normref.cu", '#include "sim/simt/emulate.hpp"\n', "gpu_ref includes sim/simt/emulate.hpp"),
        ("sim/report/run_report.cpp", '#include "tools/normsim/command.hpp"\n', "report includes tools/normsim/command.hpp"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / "tree"
        for part in ("sim", "gpu_ref", "tools", "lab"):
            shutil.copytree(pathlib.Path(root) / part, copy / part, ignore=shutil.ignore_patterns("golden"))
        shutil.copy(pathlib.Path(root) / "CMakeLists.txt", copy / "CMakeLists.txt")
        if check(copy):
            print("check_layers --self-test: the copy is not clean to begin with")
            return 1
        for rel, line, want in plants:
            f = copy / rel
            original = f.read_text()
            f.write_text(line + original)
            found = check(copy)
            f.write_text(original)
            if not any(want in c for c in found):
                print(f"check_layers --self-test: a planted '{line.strip()}' in {rel} was not caught")
                return 1
        cm = copy / "CMakeLists.txt"
        text = cm.read_text()
        cm.write_text(text.replace("target_link_libraries(normsim_simt PUBLIC normsim_config",
                                   "target_link_libraries(normsim_simt PUBLIC normsim_config normsim_asic", 1))
        if not any("normsim_simt links normsim_asic" in c for c in check(copy)):
            print("check_layers --self-test: a planted link of normsim_simt to normsim_asic was not caught")
            return 1
    print(f"check_layers --self-test: {len(plants) + 1} planted crossings caught")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(argv[2])
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-4], file=sys.stderr)
        return 2
    crossings = check(argv[1])
    for c in crossings:
        print(c)
    print(f"check_layers: {len(crossings)} crossings")
    return 1 if crossings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
