#!/usr/bin/env bash
# What a new user hits first (issue-style papercuts): each check fails on the
# behaviour it replaced.
set -uo pipefail
source "$(dirname "$0")/cli_lib.sh"

# --set errors name the --set, not the file it overrides.
expect_exit 2 "^normsim: --set workload.hidden=abc: key 'hidden': expected an integer" -- run --set workload.hidden=abc -q
expect_exit 2 "^normsim: --set workload.foo=1: key 'foo': unknown key" -- run --set workload.foo=1 -q
expect_exit 2 "^normsim: --set arch.formats.output.frac=99: key 'formats.output.frac'" -- run --set arch.formats.output.frac=99 -q
# rows replaces batch x seq, and batch replaces rows (the other of batch/seq must then be given).
expect_exit 0 "" -- run --set workload.rows=16 --no-numerics -q
printf 'norm: layernorm\nrows: 4\nhidden: 8\n' >"$T/rows.yaml"
expect_exit 0 "" -- run "$T/rows.yaml" --set workload.batch=2 --set workload.seq=3 --no-numerics -q
expect_exit 2 "^normsim: --set workload.batch=2: key 'batch': given without seq" -- run "$T/rows.yaml" --set workload.batch=2 -q
"$N" run "$T/rows.yaml" --set workload.batch=2 --set workload.seq=3 --no-numerics --json -q >"$T/o.json" 2>/dev/null
grep -q '"rows":6' "$T/o.json" && ok || bad "batch 2 x seq 3 over rows: 4 is not 6 rows"

cli_summary
