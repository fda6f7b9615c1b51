#!/usr/bin/env bash
# `normsim area --synth` on the narrow co-simulation arch (outside the
# calibration sweep), on the dedicated merge tree and on two shared merge
# units: every synthesised unit within 10% of the analytic model, the
# report's contract, a fused residual unit's dropout mask generator, and
# exit 2 for a floating-point arch; the backward's units of both norms.
# Also the timing model's logic depth of each unit within 10% of yosys's.
set -u
N=${NORMSIM:?}; S=${NORMSIM_SOURCE_DIR:?}
command -v yosys >/dev/null || { echo "yosys not installed"; exit 77; }
out=$(mktemp)
"$N" area "$S/workloads/gpt2-small.yaml" --arch "$S/tests/rtl/narrow-wrap.yaml" --synth --json -q > "$out" || { echo "area --synth failed"; exit 1; }
trap 'rm -f "$out"' EXIT
/usr/bin/python3 - "$out" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
# Timing: the model's logic depth of each unit (one RTL stage) against yosys's
# `ltp -noff` after the same mapping, off the calibration sweep.
for u in r["units"]:
    if "synth" not in u or u["synth"]["model_logic_levels"] == 0:
        continue
    model, synth = u["synth"]["model_logic_levels"], u["synth"]["logic_levels"]
    print(f"{u['unit']:18s} model {model:6.1f} gate levels  yosys ltp {synth:4d}  ratio {model / synth:.3f}")
    assert synth > 0 and abs(model / synth - 1) <= 0.10, (u["unit"], model, synth)
units = {u["unit"]: u for u in r["units"]}
want = {"welford_lanes": 4, "chan_merge_tree": 3, "rsqrt_unit": 1, "normalize_affine": 4}
bad = []
for name, inst in want.items():
    u = units[name]
    s = u["synth"]
    assert s["instances"] == inst, (name, s["instances"])
    assert abs(s["ge"] - inst * s["ge_per_instance"]) < 1e-6 * s["ge"]
    assert s["flip_flops_per_instance"] >= (1 if name in ("welford_lanes", "rsqrt_unit") else 0)
    ratio = u["analytic_ge"] / s["ge"]
    print(f"{name:18s} analytic {u['analytic_ge']:9.0f} GE  synth {s['ge']:9.0f} GE  ratio {ratio:.3f}")
    if not 0.9 <= ratio <= 1.1:
        bad.append(name)
assert r["total_mm2"] > 0 and r["datapath_um2"] > 0
if bad:
    sys.exit("analytic area off by more than 10% for " + ", ".join(bad))
PY
# The shared merge: the whole sequencer (units, buffer, muxes) synthesised as one.
"$N" area "$S/workloads/gpt2-small.yaml" --arch "$S/tests/rtl/narrow-wrap.yaml" --set arch.merge.units=2 --synth --json -q > "$out" ||
  { echo "area --synth with shared merge units failed"; exit 1; }
/usr/bin/python3 - "$out" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
units = {u["unit"]: u for u in r["units"]}
assert "chan_merge_tree" not in units and "merge_tree_registers" not in units
u = units["merge_sequencer"]
s = u["synth"]
assert s["instances"] == 1
assert s["flip_flops_per_instance"] == u["operators_per_instance"]["flip_flops"], (s["flip_flops_per_instance"], u["operators_per_instance"])
ratio = u["analytic_ge"] / s["ge"]
print(f"merge_sequencer    analytic {u['analytic_ge']:9.0f} GE  synth {s['ge']:9.0f} GE  ratio {ratio:.3f}")
if not 0.9 <= ratio <= 1.1:
    sys.exit("analytic area of the merge sequencer off by more than 10%")
PY
# A fused residual unit's dropout mask generator: the Philox pipeline
# (rtl_models/philox_mask.v) synthesised as the model's figure says; its
# fixed-point adder (rtl_models/residual_add.v) against its inventory.
"$N" area "$S/workloads/postnorm-7b.yaml" --arch "$S/tests/rtl/narrow-wrap.yaml" --set arch.fuse.mode=residual_dropout --synth --json -q > "$out" ||
  { echo "area --synth of a fused residual unit failed"; exit 1; }
/usr/bin/python3 - "$out" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
units = {u["unit"]: u for u in r["units"]}
u = units["dropout_mask_generator"]
s = u["synth"]
assert s["instances"] == 1, s  # 4 lanes: one pipeline of four words a cycle
# a round's state, key, threshold and valid registers; the last round's key feeds nothing
assert s["flip_flops_per_instance"] == 10 * (128 + 64 + 32 + 1) - 64, s
ratio = u["analytic_ge"] / s["ge"]
print(f"dropout_mask_gen   analytic {u['analytic_ge']:9.0f} GE  synth {s['ge']:9.0f} GE  ratio {ratio:.3f}")
if not 0.98 <= ratio <= 1.02:
    sys.exit("the Philox pipeline's gate equivalents moved from the model's figure (sim/area/area_energy.hpp)")
# The fixed-point residual adder (narrow-wrap's fuse.add_format), a lane each, with the dropout multiplier.
u = units["residual_adder"]
s = u["synth"]
assert s["instances"] == 4 and s["flip_flops_per_instance"] == 0, s
ratio = u["analytic_ge"] / s["ge"]
print(f"residual_adder     analytic {u['analytic_ge']:9.0f} GE  synth {s['ge']:9.0f} GE  ratio {ratio:.3f}")
if not 0.85 <= ratio <= 1.15:
    sys.exit("analytic area of the residual adder off by more than 15%")
PY
# The backward's units (rtl_models/row_sum_lane.v, param_grad_acc.v,
# row_sum_node.v, row_mean.v, dx_unit.v) on the narrow arch's backward
# formats (truncating, wrapping and saturating: off the calibration sweep),
# LayerNorm and RMSNorm: each against its inventory at the backward's fitted
# costs; a unit of a few gates (a row mean that is a shift) within 100 GE.
for wl in bert-large-bwd llama2-7b-bwd; do
  "$N" area "$S/workloads/$wl.yaml" --arch "$S/tests/rtl/narrow-wrap.yaml" --synth --json -q > "$out" ||
    { echo "area --synth of $wl failed"; exit 1; }
  /usr/bin/python3 - "$out" "$wl" <<'PY' || exit 1
import json, sys
r, wl = json.load(open(sys.argv[1])), sys.argv[2]
units = {u["unit"]: u for u in r["units"]}
bad = []
for name, inst in {"row_sum_lanes": 4, "param_grad_lanes": 4, "row_sum_tree": 3, "row_mean_unit": 1, "dx_lanes": 4}.items():
    u = units[name]
    s = u["synth"]
    assert s["instances"] == inst, (name, s)
    if name == "row_sum_lanes":  # S1 (LayerNorm) and S2 with their overflow flags
        assert s["flip_flops_per_instance"] == u["operators_per_instance"]["flip_flops"], (s, u["operators_per_instance"])
    ratio = u["analytic_ge"] / s["ge"]
    print(f"{wl:15s} {name:18s} analytic {u['analytic_ge']:9.0f} GE  synth {s['ge']:9.0f} GE  ratio {ratio:.3f}")
    small = s["ge_per_instance"] < 100
    if (small and abs(u["analytic_ge"] - s["ge"]) > 100 * inst) or (not small and not 0.88 <= ratio <= 1.12):
        bad.append(name)
assert "welford_lanes" not in units and "normalize_affine" not in units, "a backward run's area has the forward's units"
if bad:
    sys.exit(f"{wl}: analytic area of the backward's " + ", ".join(bad) + " off by more than 12%")
PY
done
"$N" area --arch "$S/workloads/arch/asic-fp32.yaml" --synth -q 2>/dev/null; rc=$?
[ "$rc" = 2 ] || { echo "area --synth on an fp32 arch: exit $rc, want 2"; exit 1; }
out2=$(PATH=/nonexistent "$N" area --synth -q 2>&1 >/dev/null); rc=$?
{ [ "$rc" = 2 ] && [ "$(printf '%s\n' "$out2" | wc -l)" = 1 ] && printf '%s' "$out2" | grep -q yosys; } ||
  { echo "area --synth without yosys: exit $rc, '$out2' (want 2 and one line naming yosys)"; exit 1; }
echo "area synthesis: ok"
